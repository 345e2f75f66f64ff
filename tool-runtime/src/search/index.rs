//! [`ToolIndex`]: a ranked search over tool definitions (BM25F over four fields), and the regex
//! search Anthropic defines for its regex tool search tool.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::terms::{Dictionary, Fast, Terms};
use super::text::terms;

/// The fields a definition is searched by, each with its weight and length normalization.
const FIELDS: usize = 4;
const _: () = assert!(FIELDS <= 4, "a field is two bits of a word's key");
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
    by_name: HashMap<Box<str>, u32, Fast>,
    /// Each term's number, and by it its postings and how many tools in the index have it.
    terms: Terms,
    postings: Vec<Vec<Posting>>,
    df: Vec<u32>,
    /// The fields' lengths summed over the tools in the index.
    totals: [u64; FIELDS],
    live: u32,
    /// Per entry, each field's weight over its length normalization (zero for a removed tool):
    /// worked out at the first search after a change.
    norms: OnceLock<Vec<[f32; FIELDS]>>,
}

#[derive(Debug, Clone)]
struct Doc {
    name: Box<str>,
    /// The other fields' text, for the regex search and a rebuild.
    text: Text,
    lengths: [u32; FIELDS],
    /// Its terms' numbers, each once.
    terms: Box<[u32]>,
    live: bool,
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    tf: [u16; FIELDS],
}

/// A tool's description, parameter names and parameter descriptions (one a line), in one
/// allocation.
#[derive(Debug, Clone)]
struct Text {
    all: Box<str>,
    /// Where the description and the names end.
    ends: [usize; 2],
}

impl Text {
    /// Reads the text of a tool; `names` and `docs` are scratch space.
    fn new(description: &str, parameters: &Value, names: &mut String, docs: &mut String) -> Text {
        names.clear();
        docs.clear();
        parameter_text(parameters, names, docs);
        let mut all = String::with_capacity(description.len() + names.len() + docs.len());
        all.push_str(description);
        all.push_str(names);
        all.push_str(docs);
        Text {
            all: all.into_boxed_str(),
            ends: [description.len(), description.len() + names.len()],
        }
    }

    /// The description, the parameter names, their descriptions.
    fn fields(&self) -> [&str; FIELDS - 1] {
        let [description, names] = self.ends;
        [
            &self.all[..description],
            &self.all[description..names],
            &self.all[names..],
        ]
    }
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
        let text = Text::new(
            description,
            parameters,
            &mut String::new(),
            &mut String::new(),
        );
        // Numbered by the index itself: nothing to renumber.
        let read = read(name.into(), text, |term| self.term(term));
        self.add(read, None);
    }

    /// The index's number of `term`, given it when first met.
    fn term(&mut self, term: &str) -> u32 {
        if let Some(id) = self.terms.get(term) {
            return id;
        }
        let id = u32::try_from(self.postings.len()).unwrap_or(u32::MAX);
        self.terms.insert(term, id);
        self.postings.push(Vec::new());
        self.df.push(0);
        id
    }

    /// Adds tools (`(name, description, parameters)`) as [`insert`](Self::insert) does, in
    /// order (a later tool of a name replaces an earlier one). Thousands are read on several
    /// threads (scoped: all joined before it returns).
    pub fn insert_all<'a, I>(&mut self, tools: I)
    where
        I: IntoIterator<Item = (&'a str, &'a str, &'a Value)>,
    {
        let tools: Vec<(&str, &str, &Value)> = tools.into_iter().collect();
        let threads = if tools.len() >= PARALLEL_FROM {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
        } else {
            1
        };
        let read_part = |part: &[(&str, &str, &Value)]| {
            let mut dictionary = Dictionary::default();
            let (mut names, mut docs) = (String::new(), String::new());
            let reads: Vec<Read> = part
                .iter()
                .map(|&(name, description, parameters)| {
                    let text = Text::new(description, parameters, &mut names, &mut docs);
                    read(name.into(), text, |term| dictionary.number(term))
                })
                .collect();
            (dictionary, reads)
        };
        let parts: Vec<(Dictionary, Vec<Read>)> = if threads > 1 {
            let size = tools.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let running: Vec<_> = tools
                    .chunks(size)
                    .map(|part| scope.spawn(move || read_part(part)))
                    .collect();
                running
                    .into_iter()
                    .map(|thread| {
                        thread
                            .join()
                            .unwrap_or_else(|p| std::panic::resume_unwind(p))
                    })
                    .collect()
            })
        } else {
            vec![read_part(&tools)]
        };
        for (dictionary, reads) in parts {
            let numbers = self.number(dictionary);
            // Room for every posting, so that no list grows twice.
            let mut more = vec![0usize; self.postings.len()];
            for read in &reads {
                for &(term, _) in &read.terms {
                    more[numbers[term as usize] as usize] += 1;
                }
            }
            for (postings, more) in self.postings.iter_mut().zip(more) {
                postings.reserve(more);
            }
            for read in reads {
                self.remove(&read.name);
                self.add(read, Some(&numbers));
            }
        }
    }

    /// The index's numbers for a dictionary's terms, by the dictionary's.
    fn number(&mut self, dictionary: Dictionary) -> Vec<u32> {
        let mut numbers = vec![0; dictionary.0.len()];
        dictionary
            .0
            .each(|term, local| numbers[local as usize] = self.term(term));
        numbers
    }

    /// Adds a tool read, its terms renumbered by `numbers` (`None`: numbered by the index).
    fn add(&mut self, read: Read, numbers: Option<&[u32]>) {
        let at = u32::try_from(self.docs.len()).unwrap_or(u32::MAX);
        let mut ids = Vec::with_capacity(read.terms.len());
        for (term, tf) in read.terms {
            let id = numbers.map_or(term, |numbers| numbers[term as usize]);
            self.postings[id as usize].push(Posting { doc: at, tf });
            self.df[id as usize] += 1;
            ids.push(id);
        }
        for (total, length) in self.totals.iter_mut().zip(read.lengths) {
            *total += u64::from(length);
        }
        self.by_name.insert(read.name.clone(), at);
        self.docs.push(Doc {
            name: read.name,
            text: read.text,
            lengths: read.lengths,
            terms: ids.into(),
            live: true,
        });
        self.live += 1;
        self.norms = OnceLock::new();
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
        for &id in &doc.terms {
            self.df[id as usize] -= 1;
        }
        self.live -= 1;
        self.norms = OnceLock::new();
        // Once most entries are of removed tools, the index is built again from the rest.
        if self.docs.len() > 64 && self.live as usize * 2 < self.docs.len() {
            let docs = std::mem::take(&mut self.docs);
            *self = ToolIndex::default();
            for doc in docs.into_iter().filter(|doc| doc.live) {
                let read = read(doc.name, doc.text, |term| self.term(term));
                self.add(read, None);
            }
        }
        true
    }

    /// Each entry's fields' weights over their length normalization (BM25F), zero for a removed
    /// tool.
    fn norms(&self) -> &[[f32; FIELDS]] {
        self.norms.get_or_init(|| {
            #[expect(
                clippy::cast_precision_loss,
                reason = "averages of term counts: far below 2^24 in any real index"
            )]
            let average = self
                .totals
                .map(|total| (total as f32 / self.live.max(1) as f32).max(1.0));
            self.docs
                .iter()
                .map(|doc| {
                    if !doc.live {
                        return [0.0; FIELDS];
                    }
                    std::array::from_fn(|field| {
                        #[expect(clippy::cast_precision_loss, reason = "a count of terms")]
                        let length = doc.lengths[field] as f32;
                        WEIGHT[field] / (1.0 - B[field] + B[field] * length / average[field])
                    })
                })
                .collect()
        })
    }

    /// The `k` tools that best match `query`, best first (ties in the order the tools were
    /// added); tools that share no term with it are not found.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit<'_>> {
        if k == 0 || self.live == 0 {
            return Vec::new();
        }
        let mut ids: Vec<u32> = Vec::new();
        terms(query, |term| {
            if let Some(id) = self.terms.get(term)
                && !ids.contains(&id)
            {
                ids.push(id);
            }
        });
        let norms = self.norms();
        #[expect(clippy::cast_precision_loss, reason = "a count of tools")]
        let n = self.live as f32;
        let mut scores = vec![0.0f32; self.docs.len()];
        let mut touched = Vec::new();
        for id in ids {
            #[expect(clippy::cast_precision_loss, reason = "a count of tools")]
            let df = self.df[id as usize] as f32;
            if df == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for posting in &self.postings[id as usize] {
                let weights = &norms[posting.doc as usize];
                let tf: f32 = posting
                    .tf
                    .iter()
                    .zip(weights)
                    .map(|(&count, weight)| f32::from(count) * weight)
                    .sum();
                if tf == 0.0 {
                    // A removed tool's entry.
                    continue;
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
        let by_name = live().filter(|doc| regex.is_match(&doc.name));
        let by_rest = live().filter(|doc| {
            !regex.is_match(&doc.name) && doc.text.fields().iter().any(|t| regex.is_match(t))
        });
        Ok(by_name
            .chain(by_rest)
            .take(k)
            .map(|doc| &*doc.name)
            .collect())
    }
}

/// Tools read at once from this many on, on several threads.
const PARALLEL_FROM: usize = 2048;

/// A tool read into words: each term once, numbered by the reading pass, with how often it is
/// in each field.
struct Read {
    name: Box<str>,
    text: Text,
    lengths: [u32; FIELDS],
    terms: Vec<(u32, [u16; FIELDS])>,
}

/// Reads a tool, `number` giving each term its number.
fn read(name: Box<str>, text: Text, mut number: impl FnMut(&str) -> u32) -> Read {
    let mut lengths = [0u32; FIELDS];
    // Every word's term and field (`term << 2 | field`), then counted.
    let mut words: Vec<u64> = Vec::with_capacity((name.len() + text.all.len()) / 5);
    let [description, names, docs] = text.fields();
    for (field, text) in [&*name, description, names, docs].into_iter().enumerate() {
        terms(text, |term| {
            lengths[field] += 1;
            words.push(u64::from(number(term)) << 2 | field as u64);
        });
    }
    words.sort_unstable();
    let terms = words
        .chunk_by(|a, b| a >> 2 == b >> 2)
        .map(|group| {
            let mut tf = [0u16; FIELDS];
            for &word in group {
                let field = (word & 3) as usize;
                tf[field] = tf[field].saturating_add(1);
            }
            (u32::try_from(group[0] >> 2).unwrap_or(u32::MAX), tf)
        })
        .collect();
    Read {
        name,
        text,
        lengths,
        terms,
    }
}

/// A parameters schema's property names (one a line), and their descriptions, titles and
/// string enum values (one a line), at any depth, reading at most [`MAX_NODES`] nodes.
fn parameter_text(schema: &Value, names: &mut String, docs: &mut String) {
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
        let Value::Object(map) = node else {
            // `items` as an array.
            if let Value::Array(subs) = node {
                stack.extend(subs);
            }
            continue;
        };
        // One pass over the node's keys (each `get` would hash every key it asks for).
        let mut schema_like = false;
        for (key, value) in map {
            match (key.as_str(), value) {
                ("properties", Value::Object(properties)) => {
                    schema_like = true;
                    for (name, property) in properties {
                        line(names, name);
                        if let Value::Object(fields) = property {
                            for (field, value) in fields {
                                match (field.as_str(), value) {
                                    ("description" | "title", Value::String(text)) => {
                                        line(docs, text);
                                    }
                                    ("enum", Value::Array(values)) => {
                                        for value in values.iter().filter_map(Value::as_str) {
                                            line(docs, value);
                                        }
                                    }
                                    _ => {}
                                }
                            }
                        }
                        stack.push(property);
                    }
                }
                ("type", _) => schema_like = true,
                ("items" | "additionalProperties" | "$defs" | "definitions", sub) => {
                    stack.push(sub);
                }
                ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(subs)) => {
                    stack.extend(subs);
                }
                _ => {}
            }
        }
        if !schema_like {
            // `$defs` and `definitions`: a map of schemas.
            stack.extend(map.values().filter(|v| v.is_object()));
        }
    }
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
