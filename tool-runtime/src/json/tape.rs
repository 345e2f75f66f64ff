//! A parsed document as a flat list of tokens: what the schema's rules beyond serde's are
//! checked on (see `inline`) and what serde reads arguments from when they arrive as a value,
//! when their text had rules to check, and on the long way (see `stream`, which reads tapes and
//! text alike). One pass over the text, no tree of allocations, strings borrowed wherever they
//! can be.

use std::cell::Cell;

#[cfg(test)]
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::Value;

#[cfg(test)]
use super::de::{self as stream, Source, TapeSource, Trail};
#[cfg(test)]
use super::path::{ArgPath, PathSegment};

/// One token of a document. Arrays and objects are followed by their contents and an `End`;
/// an object's members are key and value, one after the other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tok<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'a str),
    /// An array; the index of its `End` (on a tape; read from text as serde asks for it, where
    /// the end is not known yet, 0).
    Seq {
        end: usize,
    },
    /// An object; the index of its `End` (as for `Seq`).
    Map {
        end: usize,
    },
    /// The end of the array or object opened last.
    End,
}

/// A document's tokens.
pub(crate) type Tape<'a> = Vec<Tok<'a>>;

/// The strings of scanned text that had escapes, decoded: each with the index of its token.
/// Kept by the caller, as long as the tape: the tape's tokens borrow them.
pub(crate) type Escaped = Vec<(usize, String)>;

/// `T` read from a tape, with the path of the value serde refused on failure.
#[cfg(test)]
pub(crate) fn from_tape<T: DeserializeOwned>(
    tape: &[Tok<'_>],
) -> Result<T, (serde_json::Error, ArgPath)> {
    let trail = Trail::default();
    stream::read(Source::Tape(&mut TapeSource::new(tape)), &trail)
        .map_err(|error| (error, trail.path()))
}

thread_local! {
    /// A tape's memory, kept between calls on this thread: a call's tape then costs no
    /// allocation (most calls need far fewer tokens than it holds).
    static SPARE: Cell<Vec<Tok<'static>>> = const { Cell::new(Vec::new()) };
}

/// An empty tape, on this thread's spare memory when there is some.
fn spare<'a>() -> Tape<'a> {
    let spare = SPARE.with(Cell::take);
    if spare.capacity() == 0 {
        return Vec::with_capacity(16);
    }
    spare
}

/// Gives a tape's memory back for the next call on this thread.
pub(crate) fn recycle(mut tape: Tape<'_>) {
    // A tape grown for a large document is let go: the spare stays small.
    if tape.capacity() > 256 {
        return;
    }
    // The collect of none (in place, as std collects a vector's own iterator) keeps the memory
    // under the longer lifetime.
    tape.clear();
    #[allow(clippy::unnecessary_filter_map)] // `filter` could not change the tokens' lifetime.
    let spare: Vec<Tok<'static>> = tape.into_iter().filter_map(|_| None).collect();
    SPARE.with(|cell| cell.set(spare));
}

/// How deep the scanner reads: as deep as `serde_json` reads text (its recursion limit), so the
/// fast path never recurses further than it did.
pub(crate) const SCAN_DEPTH: usize = 128;

/// The tape of JSON text, nesting at most `max_depth` (and 128) arrays and objects; `None` for
/// anything else: text that is no JSON, or deeper, takes the long way, which repairs or
/// explains. Read by a scanner of its own, not through serde: serde's visitor for each token
/// cost more than the reading itself. Strings are borrowed from the text unless they have
/// escapes; numbers other than plain integers, and strings with escapes, are read by
/// `serde_json` itself, so every value is the one it would read.
pub(crate) fn of_text<'a>(
    text: &'a str,
    max_depth: usize,
    escaped: &'a mut Escaped,
) -> Option<Tape<'a>> {
    let mut tape = spare();
    if scan(text, max_depth, &mut tape, escaped).is_none() {
        recycle(tape);
        return None;
    }
    // The strings with escapes, in their places.
    let escaped: &'a Escaped = escaped;
    for (at, string) in escaped {
        if let Some(token) = tape.get_mut(*at) {
            *token = Tok::Str(string);
        }
    }
    Some(tape)
}

/// The scanner: one loop over the bytes. An open container's token holds, until it is closed,
/// the place of the container around it (so the open ones need no stack of their own), and a
/// bit a level says which open containers are objects (the depth is at most 128).
fn scan<'a>(
    text: &'a str,
    max_depth: usize,
    tape: &mut Tape<'a>,
    escaped: &mut Escaped,
) -> Option<()> {
    /// No container around it.
    const OUTSIDE: usize = usize::MAX;
    let bytes = text.as_bytes();
    let max_depth = max_depth.min(SCAN_DEPTH);
    let mut top = OUTSIDE;
    let mut depth = 0;
    // Bit `d`: whether the open container at depth `d + 1` is an object.
    let mut objects = 0u128;
    let mut at = 0;
    'value: loop {
        at = skip_space(bytes, at);
        match *bytes.get(at)? {
            b'"' => at = string(text, at, tape, escaped)?,
            b'0'..=b'9' | b'-' => at = push_number(text, at, tape)?,
            b'{' => {
                if depth == max_depth {
                    return None;
                }
                objects |= 1 << depth;
                depth += 1;
                tape.push(Tok::Map { end: top });
                top = tape.len() - 1;
                at = skip_space(bytes, at + 1);
                if bytes.get(at) != Some(&b'}') {
                    at = key(text, at, tape, escaped)?;
                    continue 'value;
                }
                // Empty: closed below, as after a last member.
            }
            b'[' => {
                if depth == max_depth {
                    return None;
                }
                objects &= !(1 << depth);
                depth += 1;
                tape.push(Tok::Seq { end: top });
                top = tape.len() - 1;
                at = skip_space(bytes, at + 1);
                if bytes.get(at) != Some(&b']') {
                    continue 'value;
                }
            }
            b't' => at = literal(bytes, at, b"true", Tok::Bool(true), tape)?,
            b'f' => at = literal(bytes, at, b"false", Tok::Bool(false), tape)?,
            b'n' => at = literal(bytes, at, b"null", Tok::Null, tape)?,
            _ => return None,
        }
        // After a value (or an empty container's opening): the next member or element, or the
        // container's end.
        loop {
            at = skip_space(bytes, at);
            if depth == 0 {
                return (at == bytes.len()).then_some(());
            }
            let object = objects & (1 << (depth - 1)) != 0;
            match (*bytes.get(at)?, object) {
                (b',', true) => {
                    at = key(text, skip_space(bytes, at + 1), tape, escaped)?;
                    continue 'value;
                }
                (b',', false) => {
                    at += 1;
                    continue 'value;
                }
                (b'}', true) | (b']', false) => {
                    at += 1;
                    let end = tape.len();
                    tape.push(Tok::End);
                    let around = match tape.get_mut(top)? {
                        Tok::Map { end: slot } | Tok::Seq { end: slot } => {
                            std::mem::replace(slot, end)
                        }
                        _ => return None,
                    };
                    top = around;
                    depth -= 1;
                }
                _ => return None,
            }
        }
    }
}

#[inline]
pub(crate) fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// A member's key at `at` and its colon: the index after the colon.
#[inline(always)]
fn key<'a>(text: &'a str, at: usize, tape: &mut Tape<'a>, escaped: &mut Escaped) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let next = string(text, at, tape, escaped)?;
    let colon = skip_space(bytes, next);
    (bytes.get(colon) == Some(&b':')).then_some(colon + 1)
}

/// The string whose opening quote is at `open` on the tape (one with escapes decoded into
/// `escaped`, its token a placeholder until the scan is over), and the index after its closing
/// quote.
#[inline(always)]
fn string<'a>(
    text: &'a str,
    open: usize,
    tape: &mut Tape<'a>,
    escaped: &mut Escaped,
) -> Option<usize> {
    let (close, has_escapes) = string_end(text.as_bytes(), open)?;
    if has_escapes {
        decode(text.get(open..=close)?, tape, escaped)?;
    } else {
        tape.push(Tok::Str(text.get(open + 1..close)?));
    }
    Some(close + 1)
}

/// A string with escapes (quotes included), decoded by `serde_json` (which refuses the bad
/// ones).
#[inline(never)]
fn decode(quoted: &str, tape: &mut Tape<'_>, escaped: &mut Escaped) -> Option<()> {
    let string = serde_json::from_str::<String>(quoted).ok()?;
    escaped.push((tape.len(), string));
    tape.push(Tok::Str(""));
    Some(())
}

/// The closing quote of the string whose opening quote is at `open`, and whether the string has
/// escapes (which are checked when they are decoded).
#[inline(always)]
pub(crate) fn string_end(bytes: &[u8], open: usize) -> Option<(usize, bool)> {
    let mut at = open + 1;
    let mut escaped = false;
    loop {
        match *bytes.get(at)? {
            b'"' => return Some((at, escaped)),
            b'\\' => {
                escaped = true;
                at += 2;
            }
            // Control characters must be escaped in JSON.
            0..=0x1f => return None,
            _ => at += 1,
        }
    }
}

fn literal<'a>(
    bytes: &[u8],
    at: usize,
    word: &[u8],
    token: Tok<'a>,
    tape: &mut Tape<'a>,
) -> Option<usize> {
    let next = literal_end(bytes, at, word)?;
    tape.push(token);
    Some(next)
}

/// The index after `word` when the text at `at` is that word.
#[inline]
pub(crate) fn literal_end(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    (bytes.get(at..at + word.len())? == word).then_some(at + word.len())
}

/// A number at `start` on the tape, and the index after it.
fn push_number<'a>(text: &'a str, start: usize, tape: &mut Tape<'a>) -> Option<usize> {
    let (token, next) = number(text, start)?;
    tape.push(token);
    Some(next)
}

/// A number at `start` (a `U64`, `I64` or `F64` token) and the index after it: plain integers
/// read here, every other (fractions, exponents, `-0`, integers past 64 bits) by `serde_json`,
/// so each is the number it reads.
#[inline(always)]
pub(crate) fn number(text: &str, start: usize) -> Option<(Tok<'static>, usize)> {
    let bytes = text.as_bytes();
    let negative = bytes.get(start) == Some(&b'-');
    let digits = start + usize::from(negative);
    let mut at = digits;
    let mut magnitude = 0u64;
    while let Some(&digit @ b'0'..=b'9') = bytes.get(at) {
        magnitude = magnitude
            .wrapping_mul(10)
            .wrapping_add(u64::from(digit - b'0'));
        at += 1;
    }
    // At most 19 digits always fit in a u64; a leading zero only alone; `-0` is serde_json's.
    let plain = at > digits
        && at - digits <= 19
        && !matches!(bytes.get(at), Some(b'.' | b'e' | b'E'))
        && (bytes.get(digits) != Some(&b'0') || (at == digits + 1 && !negative));
    if plain {
        if !negative {
            return Some((Tok::U64(magnitude), at));
        }
        if let Ok(signed) = i64::try_from(magnitude) {
            return Some((Tok::I64(-signed), at));
        }
    }
    other_number(text, start, at)
}

/// The rest of a number's grammar from `at`, then `serde_json`'s reading of it.
#[inline(never)]
fn other_number(text: &str, start: usize, mut at: usize) -> Option<(Tok<'static>, usize)> {
    let bytes = text.as_bytes();
    while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = bytes.get(at) {
        at += 1;
    }
    let number: serde_json::Number = serde_json::from_str(text.get(start..at)?).ok()?;
    Some((number_token(&number), at))
}

/// The tape of a JSON value.
pub(crate) fn of_value(value: &Value) -> Tape<'_> {
    let mut tape = spare();
    push_value(&mut tape, value);
    tape
}

fn push_value<'a>(tape: &mut Tape<'a>, value: &'a Value) {
    match value {
        Value::Null => tape.push(Tok::Null),
        Value::Bool(b) => tape.push(Tok::Bool(*b)),
        Value::Number(n) => tape.push(number_token(n)),
        Value::String(s) => tape.push(Tok::Str(s)),
        Value::Array(items) => {
            let at = tape.len();
            tape.push(Tok::Seq { end: 0 });
            for item in items {
                push_value(tape, item);
            }
            tape[at] = Tok::Seq { end: tape.len() };
            tape.push(Tok::End);
        }
        Value::Object(map) => {
            let at = tape.len();
            tape.push(Tok::Map { end: 0 });
            for (key, item) in map {
                tape.push(Tok::Str(key));
                push_value(tape, item);
            }
            tape[at] = Tok::Map { end: tape.len() };
            tape.push(Tok::End);
        }
    }
}

fn number_token(n: &serde_json::Number) -> Tok<'static> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => Tok::U64(u),
        (None, Some(i)) => Tok::I64(i),
        (None, None) => Tok::F64(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Each token of a tape as text (its `Debug` form), to compare tapes whose strings live in
/// different places.
#[cfg(test)]
pub(crate) fn shown(tape: &[Tok<'_>]) -> Vec<String> {
    tape.iter().map(|token| format!("{token:?}")).collect()
}

#[cfg(test)]
/// Writes the tape of whatever it is deserialized from, [`shown`]: `serde_json`'s own reading,
/// which the scanner's is checked against.
struct Build<'t>(&'t mut Vec<String>);

#[cfg(test)]
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

#[cfg(test)]
impl<'a> DeserializeSeed<'a> for Build<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'a>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

#[cfg(test)]
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

/// The index just past the token at `at` and everything it holds.
pub(crate) fn skip(tape: &[Tok<'_>], at: usize) -> usize {
    match tape.get(at) {
        Some(Tok::Seq { end } | Tok::Map { end }) => *end + 1,
        _ => at + 1,
    }
}

/// Each seed mutated a character at a time (deleted, inserted or replaced, up to three times),
/// `per_seed` times, where and what picked by a deterministic xorshift from `state`: documents
/// near valid JSON, valid or not.
#[cfg(test)]
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

#[cfg(test)]
mod tests {
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
}
