//! Tests of the tape, and the helpers other tests of the crate share: a tape shown as text, the
//! tape `serde_json`'s own reading builds, and mutated documents.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::de::{self as stream, Source, Trail, from_tape};
use crate::path::{ArgPath, PathSegment};

/// Each token of a tape as text (its `Debug` form), to compare tapes whose strings live in
/// different places.
pub(crate) fn shown(tape: &[Tok<'_>]) -> Vec<String> {
    tape.iter().map(|token| format!("{token:?}")).collect()
}

/// Writes the tape of whatever it is deserialized from, [`shown`]: `serde_json`'s own reading,
/// which the scanner's is checked against.
struct Build<'t>(&'t mut Vec<String>);

impl Build<'_> {
    fn push(&mut self, token: Tok<'_>) {
        self.0.push(format!("{token:?}"));
    }

    /// A container's tokens: its opening (its end filled in after), its contents, its end.
    fn container(
        &mut self,
        map: bool,
        contents: impl FnOnce(&mut Vec<String>) -> Result<(), String>,
    ) -> Result<(), String> {
        let at = self.0.len();
        self.0.push(String::new());
        contents(&mut *self.0)?;
        let end = self.0.len();
        let open = if map {
            Tok::Map { end }
        } else {
            Tok::Seq { end }
        };
        self.0[at] = format!("{open:?}");
        self.push(Tok::End);
        Ok(())
    }
}

impl<'a> DeserializeSeed<'a> for Build<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'a>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'a> Visitor<'a> for Build<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(mut self, v: bool) -> Result<(), E> {
        self.push(Tok::Bool(v));
        Ok(())
    }

    fn visit_i64<E: de::Error>(mut self, v: i64) -> Result<(), E> {
        self.push(Tok::I64(v));
        Ok(())
    }

    fn visit_u64<E: de::Error>(mut self, v: u64) -> Result<(), E> {
        self.push(Tok::U64(v));
        Ok(())
    }

    fn visit_f64<E: de::Error>(mut self, v: f64) -> Result<(), E> {
        self.push(Tok::F64(v));
        Ok(())
    }

    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<(), E> {
        self.push(Tok::Str(v));
        Ok(())
    }

    fn visit_unit<E: de::Error>(mut self) -> Result<(), E> {
        self.push(Tok::Null);
        Ok(())
    }

    fn visit_none<E: de::Error>(mut self) -> Result<(), E> {
        self.push(Tok::Null);
        Ok(())
    }

    fn visit_some<D: Deserializer<'a>>(self, de: D) -> Result<(), D::Error> {
        Build(self.0).deserialize(de)
    }

    fn visit_seq<A: SeqAccess<'a>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut failed = None;
        self.container(false, |tape| {
            loop {
                match seq.next_element_seed(Build(&mut *tape)) {
                    Ok(Some(())) => {}
                    Ok(None) => return Ok(()),
                    Err(error) => {
                        failed = Some(error);
                        return Err(String::new());
                    }
                }
            }
        })
        .map_err(|_| failed.unwrap_or_else(|| de::Error::custom("failed")))
    }

    fn visit_map<A: MapAccess<'a>>(mut self, mut map: A) -> Result<(), A::Error> {
        let mut failed = None;
        self.container(true, |tape| {
            let mut step = || -> Result<bool, A::Error> {
                if map.next_key_seed(Build(&mut *tape))?.is_none() {
                    return Ok(false);
                }
                map.next_value_seed(Build(&mut *tape))?;
                Ok(true)
            };
            loop {
                match step() {
                    Ok(true) => {}
                    Ok(false) => return Ok(()),
                    Err(error) => {
                        failed = Some(error);
                        return Err(String::new());
                    }
                }
            }
        })
        .map_err(|_| failed.unwrap_or_else(|| de::Error::custom("failed")))
    }
}

/// Each seed mutated a character at a time (deleted, inserted or replaced, up to three times),
/// `per_seed` times, where and what picked by a deterministic xorshift from `state`: documents
/// near valid JSON, valid or not.
pub(crate) fn mutated(seeds: &[&str], per_seed: usize, mut state: u64) -> Vec<String> {
    let alphabet: Vec<char> = "{}[]\",:.-+eE0123456789 \\tnulrfasx\u{e9}"
        .chars()
        .collect();
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % below as u64).unwrap_or(0)
    };
    let mut texts = Vec::new();
    for seed in seeds {
        for _ in 0..per_seed {
            let mut chars: Vec<char> = seed.chars().collect();
            for _ in 0..=next(3) {
                let at = next(chars.len() + 1);
                match next(3) {
                    0 if at < chars.len() => {
                        chars.remove(at);
                    }
                    1 => chars.insert(at, alphabet[next(alphabet.len())]),
                    _ if at < chars.len() => chars[at] = alphabet[next(alphabet.len())],
                    _ => {}
                }
            }
            texts.push(chars.into_iter().collect());
        }
    }
    texts
}

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::json;

use super::*;

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Args {
    name: String,
    count: u8,
    tags: Vec<String>,
    inner: Option<Inner>,
    shape: Option<Shape>,
    #[serde(default)]
    by_id: HashMap<u32, bool>,
    #[serde(default)]
    grid: Vec<Vec<u8>>,
    #[serde(default)]
    anything: Option<Value>,
    #[serde(default)]
    tagged: Option<Tagged>,
    #[serde(default)]
    either: Option<Either>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Inner {
    limits: BTreeMap<String, (u8, u8)>,
}

#[derive(Debug, Deserialize, PartialEq)]
enum Shape {
    Dot,
    Circle { radius: f64 },
    Line(u8, u8),
    Named(String),
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Tagged {
    Square { side: u32 },
    Label { text: String },
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum Either {
    Number(f64),
    Words { text: String },
}

/// From the tape of the value, and of its text (written as the checks write it), the same
/// as `serde_json`'s own deserializer reads the value; what it refuses, refused too. Returns
/// whether `serde_json` accepted it as `Args` and whether the text source read it itself
/// (rather than declining it to a tape), so a caller can tell that something was compared.
fn agrees(value: &Value) -> (bool, bool) {
    let reference = Args::deserialize(value).ok();
    assert_eq!(
        from_tape::<Args>(&of_value(value)).ok(),
        reference,
        "{value}"
    );
    let text = value.to_string();
    let mut escaped = Escaped::new();
    let tape = of_text(&text, 128, &mut escaped).unwrap();
    assert_eq!(tape, of_value(value), "{text}");
    assert_eq!(shown(&tape), built(&text).unwrap(), "{text}");
    assert_eq!(from_tape::<Args>(&tape).ok(), reference, "{value}");
    // Read as it is deserialized, where the text source reads it.
    let mut source = stream::TextSource::new(&text, 128);
    let streamed = stream::read::<Args>(Source::Text(&mut source), &Trail::default());
    let read_as_text = !source.declined();
    if read_as_text {
        assert_eq!(streamed.ok(), reference, "{text}");
    }
    (reference.is_some(), read_as_text)
}

#[test]
fn reads_what_serde_json_reads() {
    let cases = [
        json!({"name": "a", "count": 3, "tags": ["x"], "inner": {"limits": {"k": [1, 2]}}, "shape": {"Circle": {"radius": 1.5}}, "by_id": {"7": true}}),
        json!({"name": "a \"quoted\" \\ name\n", "count": 3, "tags": [], "inner": null, "shape": "Dot"}),
        json!({"name": "a", "count": 3, "tags": [], "shape": {"Line": [1, 2]}, "grid": [[1], [], [2, 3]]}),
        json!({"name": "a", "count": 3, "tags": [], "shape": {"Named": "n"}, "anything": {"x": [1, {"y": null}], "z": -2.5}}),
        json!({"name": "a", "count": 3, "tags": [], "tagged": {"kind": "square", "side": 4}, "either": 2}),
        json!({"name": "a", "count": 3, "tags": [], "tagged": {"text": "t", "kind": "label"}, "either": {"text": "w"}}),
        json!({"name": "a", "count": 300, "tags": []}),
        json!({"name": "a", "count": 3, "tags": [1]}),
        json!({"name": "a", "count": 3, "tags": [], "extra": 1}),
        json!({"name": "a", "tags": []}),
        json!({"name": "a", "count": 3, "tags": [], "shape": {"Square": 1}}),
        json!({"name": "a", "count": 3, "tags": [], "shape": {"Dot": null, "Line": [1, 2]}}),
        json!({"name": "a", "count": 3, "tags": [], "by_id": {"x": true}}),
        json!({"name": "a", "count": -1.5, "tags": []}),
        json!({"name": "a", "count": 3, "tags": [], "tagged": {"kind": "circle"}}),
        json!({"name": "a", "count": 3, "tags": [], "either": "neither"}),
    ];
    let results: Vec<(bool, bool)> = cases.iter().map(agrees).collect();
    // Both outcomes are compared: some cases are valid `Args` and some are not; and the text
    // source reads all but the one with escapes in a string, which it declines to a tape.
    let valid = results.iter().filter(|(valid, _)| *valid).count();
    let read_as_text = results.iter().filter(|(_, text)| *text).count();
    assert_eq!((valid, read_as_text), (6, cases.len() - 1), "{results:?}");
}

fn at(path: &ArgPath) -> Vec<String> {
    path.segments()
        .iter()
        .map(|s| match s {
            PathSegment::Key(k) => k.clone(),
            PathSegment::Index(i) => i.to_string(),
        })
        .collect()
}

#[test]
fn says_where_it_failed() {
    let cases = [
        (
            json!({"name": "a", "count": 300, "tags": []}),
            vec!["count"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": ["x", 2]}),
            vec!["tags", "1"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": [], "grid": [[1], [2, 256]]}),
            vec!["grid", "1", "1"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": [], "grid": [[1], "no"]}),
            vec!["grid", "1"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": [], "inner": {"limits": {"k, \"}": [1, 900]}}}),
            vec!["inner", "limits", "k, \"}", "1"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": [], "shape": {"Circle": {"radius": "big"}}}),
            vec!["shape", "Circle", "radius"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": [], "inner": {}}),
            vec!["inner"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": [], "by_id": {"x": true}}),
            vec!["by_id"],
        ),
        (
            json!({"name": "a", "count": 3, "tags": [], "extra": 1}),
            vec![],
        ),
        (json!({"name": "a", "tags": []}), vec![]),
        (json!({"name": "a", "count": 3, "tags": "x"}), vec!["tags"]),
    ];
    for (case, expected) in cases {
        let (_, path) = from_tape::<Args>(&of_value(&case)).expect_err("invalid");
        assert_eq!(at(&path), expected, "{case}");
    }
}

/// `serde_json`'s own reading of the text into a tape.
fn built(text: &str) -> Option<Vec<String>> {
    let mut tape = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    Build(&mut tape).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(tape)
}

/// The scanner's tape of `text`, [`shown`].
fn scanned(text: &str, max_depth: usize) -> Option<Vec<String>> {
    let mut escaped = Escaped::new();
    of_text(text, max_depth, &mut escaped).map(|tape| shown(&tape))
}

#[test]
fn the_scanner_reads_what_serde_json_reads() {
    let texts = [
        r#"{"a": 2, "b": 3}"#,
        " { \"a\" : [ 1 , -2 , 3.5 , -0 , 0 , -0.0 , 1e3 , 1E-2 , 12345678901234567890 , -9223372036854775808 , 18446744073709551616 , -9223372036854775809 ] } ",
        r#"{"s": "plain", "e": "tab\tquote\"slash\\u\u00e9\ud83d\ude00", "n": null, "t": true, "f": false}"#,
        r#"[[], {}, [[[]]], {"": {"": ""}}]"#,
        // Escapes in keys, beside plain ones, at every level.
        r#"{"k\u0065y": {"in\"ner": ["a\nb", {"\\": 1}]}, "plain": "x"}"#,
        "\"just a string\"",
        "17",
        "{\"unicode\": \"é ünï 😀\"}",
        // Not JSON, or not as serde_json reads it: each refused by both.
        "{\"a\": 01}",
        "{\"a\": 1.}",
        "{\"a\": .5}",
        "{\"a\": +1}",
        "{\"a\": 1e}",
        "{\"a\": --1}",
        "{\"a\": 1,}",
        "[1, 2,]",
        "{\"a\" 1}",
        "{a: 1}",
        "{'a': 1}",
        "{\"a\": tru}",
        "{\"a\": nulll}",
        "{\"a\": \"raw\nline\"}",
        "{\"a\": \"bad \\x escape\"}",
        "{\"a\": \"lone \\ud800 surrogate\"}",
        "{\"a\": \"unterminated}",
        "{\"a\": 1} trailing",
        "{\"a\": 1}}",
        "",
        "   ",
        "[",
        "{\"a\": [1, 2}",
    ];
    for text in texts {
        assert_eq!(scanned(text, 128), built(text), "{text}");
    }
}

/// Valid documents mutated a character at a time (a deterministic xorshift picks where and
/// what): the scanner and `serde_json` read every one alike, or both refuse it.
#[test]
fn the_scanner_agrees_with_serde_json_on_mutated_text() {
    let seeds = [
        r#"{"a": 2, "b": -3, "c": [1.5, 2e10, -0.25, 0], "d": {"e": null, "f": true}}"#,
        r#"{"s": "x\"y\\z\u0041\n", "t": "", "n": 12345678901234567890, "m": -9223372036854775808}"#,
        r#"[[{"k": [false, {"": ""}]}], "é", 1E+2, 3.0]"#,
    ];
    let (mut checked, mut valid) = (0, 0);
    for text in mutated(&seeds, 3_000, 0x9E37_79B9_7F4A_7C15) {
        let scanned = scanned(&text, 128);
        assert_eq!(scanned, built(&text), "{text}");
        valid += usize::from(scanned.is_some());
        checked += 1;
    }
    assert_eq!(checked, 9_000);
    // Both outcomes are well represented.
    assert!(
        (1_000..8_000).contains(&valid),
        "{valid} of {checked} valid"
    );
}

#[test]
fn the_scanner_stops_at_the_depth_limit() {
    let deep = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
    assert!(scanned(&deep(128), 128).is_some());
    assert!(scanned(&deep(129), 128).is_none());
    assert!(scanned(&deep(10), 10).is_some());
    assert!(scanned(&deep(11), 10).is_none());
    // Never deeper than serde_json read text, whatever the limit.
    assert!(scanned(&deep(129), 100_000).is_none());
}

#[test]
fn a_tape_reuses_the_last_ones_memory() {
    let mut escaped = Escaped::new();
    let first = of_text(r#"{"a": 1}"#, 128, &mut escaped).unwrap();
    let memory = first.as_ptr() as usize;
    recycle(first);
    let text = String::from(r#"{"b": "two"}"#);
    let mut escaped = Escaped::new();
    let second = of_text(&text, 128, &mut escaped).unwrap();
    assert_eq!(second.as_ptr() as usize, memory);
    assert_eq!(second[2], Tok::Str("two"));
    // A large one is let go, and the next starts afresh.
    let numbers = json!((0..300).collect::<Vec<u32>>());
    let large = of_value(&numbers);
    assert!(large.capacity() > 256);
    recycle(large);
    recycle(second);
}

#[test]
fn a_struct_is_an_object() {
    // serde_json's own deserializers take a struct from an array of its fields; the schema
    // does not, and neither does the tape.
    let value = json!({"name": "a", "count": 3, "tags": [], "inner": [{"k": [1, 2]}]});
    assert!(Args::deserialize(&value).is_ok());
    assert!(from_tape::<Args>(&of_value(&value)).is_err());
}
