//! [`ToolIndex`]: a ranked search over tool definitions (BM25F over four fields), and the regex
//! search Anthropic defines for its regex tool search tool.

use std::collections::HashMap;

use serde_json::Value;

use super::text::terms;

/// The fields a definition is searched by, each with its weight and length normalization.
const FIELDS: usize = 4;
/// Name, description, parameter names, parameter descriptions and enum values.
const WEIGHT: [f32; FIELDS] = [3.0, 1.5, 1.2, 0.6];
const B: [f32; FIELDS] = [0.3, 0.75, 0.5, 0.75];
const K1: f32 = 1.2;
/// The schema nodes of one definition read for its parameters, at most.
const MAX_NODES: usize = 4096;
/// The longest regex pattern taken, as Anthropic's regex tool search tool takes.
pub const MAX_PATTERN: usize = 200;

/// A ranked search over tool definitions: each tool's name (split at `_`, `.`, `-` and changes
/// of case), description, parameter names, and their descriptions and enum values, weighted in
/// that order (BM25F). Built in one pass; tools are added and removed in place.
///
/// ```
/// use serde_json::json;
/// use toolwright::search::ToolIndex;
///
/// let mut index = ToolIndex::new();
/// index.insert("get_weather", "The current weather in a city.", &json!({
///     "type": "object",
///     "properties": {"city": {"type": "string", "description": "The city's name"}},
/// }));
/// index.insert("create_order", "Place an order for a product.", &json!({}));
/// let found: Vec<_> = index.search("what's the weather like in Lisbon?", 5)
///     .iter().map(|hit| hit.name).collect();
/// assert_eq!(found, ["get_weather"]);
/// assert_eq!(index.regex("(?i)ORDER", 5).unwrap(), ["create_order"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolIndex {
    docs: Vec<Doc>,
    by_name: HashMap<Box<str>, u32>,
    postings: HashMap<Box<str>, Vec<Posting>>,
    /// The fields' lengths summed over the tools in the index.
    totals: [u64; FIELDS],
    live: u32,
}

#[derive(Debug, Clone)]
struct Doc {
    name: Box<str>,
    /// Each field's text, for the regex search (parameter fields one line per entry).
    text: [Box<str>; FIELDS],
    lengths: [u32; FIELDS],
    live: bool,
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    tf: [u16; FIELDS],
}

/// One tool found, with its score (higher is better; comparable within one search only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its score.
    pub score: f32,
}

/// A regex search that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The pattern is longer than [`MAX_PATTERN`] characters.
    #[error("the pattern is {0} characters long, over {MAX_PATTERN}")]
    TooLong(usize),
    /// The pattern is not a regular expression the search reads.
    #[error("the pattern is not a valid regular expression: {0}")]
    Pattern(String),
}

impl ToolIndex {
    /// An empty index.
    pub fn new() -> Self {
        ToolIndex::default()
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether the index holds no tools.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Whether a tool of this name is in the index.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Adds a tool (or replaces the one of the same name): its name, description and parameters
    /// schema, whose property names, descriptions, titles and enum values are read at any depth.
    pub fn insert(&mut self, name: &str, description: &str, parameters: &Value) {
        self.remove(name);
        let (names, docs) = parameter_text(parameters);
        let text = [name.into(), description.into(), names.into(), docs.into()];
        self.add(Doc {
            name: name.into(),
            text,
            lengths: [0; FIELDS],
            live: true,
        });
    }

    fn add(&mut self, mut doc: Doc) {
        let at = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        let mut counts: HashMap<String, [u16; FIELDS]> = HashMap::new();
        for (field, text) in doc.text.iter().enumerate() {
            terms(text, |term| {
                doc.lengths[field] += 1;
                let tf = &mut counts.entry(term.to_owned()).or_default()[field];
                *tf = tf.saturating_add(1);
            });
        }
        for (total, length) in self.totals.iter_mut().zip(doc.lengths) {
            *total += u64::from(length);
        }
        for (term, tf) in counts {
            self.postings
                .entry(term.into_boxed_str())
                .or_default()
                .push(Posting { doc: at, tf });
        }
        self.by_name.insert(doc.name.clone(), at);
        self.docs.push(doc);
        self.live += 1;
    }

    /// Removes the tool named `name`; whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(at) = self.by_name.remove(name) else {
            return false;
        };
        let doc = &mut self.docs[at as usize];
        doc.live = false;
        for (total, length) in self.totals.iter_mut().zip(doc.lengths) {
            *total -= u64::from(length);
        }
        self.live -= 1;
        // Once most entries are of removed tools, the index is built again from the rest.
        if self.docs.len() > 64 && self.live as usize * 2 < self.docs.len() {
            let docs = std::mem::take(&mut self.docs);
            *self = ToolIndex::default();
            for doc in docs.into_iter().filter(|doc| doc.live) {
                self.add(Doc {
                    lengths: [0; FIELDS],
                    ..doc
                });
            }
        }
        true
    }

    /// The `k` tools that best match `query`, best first (ties in the order the tools were
    /// added); tools that share no term with it are not found.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit<'_>> {
        if k == 0 || self.live == 0 {
            return Vec::new();
        }
        let mut seen: Vec<String> = Vec::new();
        terms(query, |term| {
            if !seen.iter().any(|t| t == term) {
                seen.push(term.to_owned());
            }
        });
        #[expect(
            clippy::cast_precision_loss,
            reason = "averages of term counts: far below 2^24 in any real index"
        )]
        let (average, n) = (
            self.totals
                .map(|total| (total as f32 / self.live as f32).max(1.0)),
            self.live as f32,
        );
        let mut scores = vec![0.0f32; self.docs.len()];
        let mut touched = Vec::new();
        for term in &seen {
            let Some(postings) = self.postings.get(term.as_str()) else {
                continue;
            };
            let live: Vec<&Posting> = postings
                .iter()
                .filter(|p| self.docs[p.doc as usize].live)
                .collect();
            #[expect(clippy::cast_precision_loss, reason = "a count of tools")]
            let df = live.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for posting in live {
                let doc = &self.docs[posting.doc as usize];
                let mut tf = 0.0;
                for field in 0..FIELDS {
                    if posting.tf[field] > 0 {
                        #[expect(clippy::cast_precision_loss, reason = "a count of terms")]
                        let norm =
                            1.0 - B[field] + B[field] * doc.lengths[field] as f32 / average[field];
                        tf += WEIGHT[field] * f32::from(posting.tf[field]) / norm;
                    }
                }
                let slot = &mut scores[posting.doc as usize];
                if *slot == 0.0 {
                    touched.push(posting.doc);
                }
                *slot += idf * tf * (K1 + 1.0) / (K1 + tf);
            }
        }
        let mut hits: Vec<(u32, f32)> = touched
            .into_iter()
            .map(|doc| (doc, scores[doc as usize]))
            .collect();
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if hits.len() > k {
            hits.select_nth_unstable_by(k - 1, order);
            hits.truncate(k);
        }
        hits.sort_unstable_by(order);
        hits.into_iter()
            .map(|(doc, score)| Hit {
                name: &self.docs[doc as usize].name,
                score,
            })
            .collect()
    }

    /// At most `k` tools whose name, description, parameter names or parameter descriptions
    /// match `pattern` somewhere (as Python's `re.search`, which Anthropic's regex tool search
    /// tool uses; `(?i)` for case-insensitive): tools matched by name first, then the rest, each
    /// in the order they were added.
    ///
    /// # Errors
    /// A pattern over [`MAX_PATTERN`] characters, or one that is not a regular expression (the
    /// syntax is Rust's `regex`, which agrees with Python's on the patterns models write;
    /// look-around and backreferences are refused).
    pub fn regex(&self, pattern: &str, k: usize) -> Result<Vec<&str>, SearchError> {
        let length = pattern.chars().count();
        if length > MAX_PATTERN {
            return Err(SearchError::TooLong(length));
        }
        let regex = regex_lite::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| SearchError::Pattern(e.to_string()))?;
        let live = || self.docs.iter().filter(|doc| doc.live);
        let by_name = live().filter(|doc| regex.is_match(&doc.text[0]));
        let by_rest = live().filter(|doc| {
            !regex.is_match(&doc.text[0]) && doc.text[1..].iter().any(|t| regex.is_match(t))
        });
        Ok(by_name
            .chain(by_rest)
            .take(k)
            .map(|doc| &*doc.name)
            .collect())
    }
}

/// A parameters schema's property names (one a line), and their descriptions, titles and
/// string enum values (one a line), at any depth, reading at most [`MAX_NODES`] nodes.
fn parameter_text(schema: &Value) -> (String, String) {
    let (mut names, mut docs) = (String::new(), String::new());
    let mut stack = vec![schema];
    let mut read = 0;
    let line = |out: &mut String, text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    while let Some(node) = stack.pop() {
        read += 1;
        if read > MAX_NODES {
            break;
        }
        match node {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for (name, property) in properties {
                        line(&mut names, name);
                        for key in ["description", "title"] {
                            if let Some(Value::String(text)) = property.get(key) {
                                line(&mut docs, text);
                            }
                        }
                        if let Some(Value::Array(values)) = property.get("enum") {
                            for value in values.iter().filter_map(Value::as_str) {
                                line(&mut docs, value);
                            }
                        }
                        stack.push(property);
                    }
                }
                for key in ["items", "additionalProperties", "$defs", "definitions"] {
                    if let Some(sub) = map.get(key) {
                        stack.push(sub);
                    }
                }
                for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
                    if let Some(Value::Array(subs)) = map.get(key) {
                        stack.extend(subs);
                    }
                }
            }
            // `$defs`' values, `items` as an array.
            Value::Array(subs) => stack.extend(subs),
            _ => {}
        }
        if let Value::Object(map) = node
            && node.get("properties").is_none()
            && node.get("type").is_none()
        {
            // `$defs` and `definitions`: a map of schemas.
            stack.extend(map.values().filter(|v| v.is_object()));
        }
    }
    (names, docs)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn index() -> ToolIndex {
        let mut index = ToolIndex::new();
        index.insert(
            "get_weather",
            "Current weather conditions for a location.",
            &json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City name"},
                "units": {"enum": ["celsius", "fahrenheit"]},
            }}),
        );
        index.insert(
            "listOpenOrders",
            "List a customer's open orders.",
            &json!({"type": "object", "properties": {"customer_id": {"type": "string"}}}),
        );
        index.insert("send_email", "Send an email message.", &json!({}));
        index
    }

    fn names(hits: &[Hit<'_>]) -> Vec<String> {
        hits.iter().map(|h| h.name.to_owned()).collect()
    }

    #[test]
    fn every_field_is_searched() {
        let index = index();
        assert_eq!(names(&index.search("weather", 5)), ["get_weather"]);
        assert_eq!(names(&index.search("open order", 5)), ["listOpenOrders"]);
        assert_eq!(names(&index.search("fahrenheit", 5)), ["get_weather"]);
        assert_eq!(names(&index.search("customer id", 5)), ["listOpenOrders"]);
        assert!(index.search("zebra", 5).is_empty());
        assert!(index.search("", 5).is_empty());
    }

    #[test]
    fn a_name_outweighs_a_description() {
        let mut index = ToolIndex::new();
        index.insert("send_message", "Deliver text to a person.", &json!({}));
        index.insert(
            "notify",
            "Send a notification message to a channel.",
            &json!({}),
        );
        assert_eq!(names(&index.search("send message", 5))[0], "send_message");
    }

    #[test]
    fn tools_come_and_go() {
        let mut index = index();
        assert!(index.remove("get_weather"));
        assert!(!index.remove("get_weather"));
        assert!(index.search("weather", 5).is_empty());
        index.insert("get_weather", "Weather now.", &json!({}));
        assert_eq!(names(&index.search("weather", 5)), ["get_weather"]);
        assert_eq!(index.len(), 3);
        // Many removals compact the index, and the rest is still found.
        for i in 0..100 {
            index.insert(&format!("tool_{i}"), "Filler.", &json!({}));
        }
        for i in 0..100 {
            index.remove(&format!("tool_{i}"));
        }
        assert_eq!(names(&index.search("customer", 5)), ["listOpenOrders"]);
        assert_eq!(index.len(), 3);
    }

    #[test]
    fn k_bounds_the_hits_and_ranks_hold() {
        let mut index = ToolIndex::new();
        for i in 0..20 {
            index.insert(&format!("order_{i}"), &"order ".repeat(i + 1), &json!({}));
        }
        let hits = index.search("order", 3);
        assert_eq!(hits.len(), 3);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    }

    #[test]
    fn regex_searches_as_anthropic_says() {
        let index = index();
        assert_eq!(index.regex("weather", 5).unwrap(), ["get_weather"]);
        assert_eq!(index.regex("(?i)EMAIL", 5).unwrap(), ["send_email"]);
        assert_eq!(index.regex("customer_id", 5).unwrap(), ["listOpenOrders"]);
        // By name first: `order` is in one name and one description.
        assert_eq!(index.regex("(?i)order", 5).unwrap(), ["listOpenOrders"]);
        assert_eq!(index.regex(".*", 2).unwrap().len(), 2);
        assert!(matches!(index.regex("(", 5), Err(SearchError::Pattern(_))));
        assert_eq!(
            index.regex(&"a".repeat(201), 5),
            Err(SearchError::TooLong(201))
        );
    }

    #[test]
    fn deep_wide_and_odd_schemas_are_read_boundedly() {
        let mut deep = json!({"type": "string"});
        for i in 0..200 {
            deep = json!({"type": "object", "properties": {format!("p{i}"): deep}});
        }
        // More nodes than are read: the names of the first level are still all there.
        let wide: serde_json::Map<String, Value> = (0..10_000)
            .map(|i| {
                (
                    format!("w{i}"),
                    json!({"type": "object", "properties": {"x": {}}}),
                )
            })
            .collect();
        let mut index = ToolIndex::new();
        index.insert("deep", "Deep.", &deep);
        index.insert(
            "wide",
            "Wide.",
            &json!({"type": "object", "properties": wide}),
        );
        index.insert("odd", "Odd.", &json!([1, "x", null]));
        assert_eq!(index.len(), 3);
        // `199` is in both; `p` in one.
        assert_eq!(names(&index.search("p199", 5)), ["deep", "wide"]);
        assert_eq!(names(&index.search("w9999", 5)), ["wide"]);
    }
}
