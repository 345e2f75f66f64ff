//! A parsed document as a flat list of tokens: what the schema's rules beyond serde's are
//! checked on (see `inline`) and what serde reads arguments from when they arrive as a value,
//! when their text had rules to check, and on the long way (see `stream`, which reads tapes and
//! text alike). One pass over the text, no tree of allocations, strings borrowed wherever they
//! can be.

use std::cell::Cell;

use serde_json::Value;

/// One token of a document. Arrays and objects are followed by their contents and an `End`;
/// an object's members are key and value, one after the other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tok<'a> {
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
pub type Tape<'a> = Vec<Tok<'a>>;

/// The strings of scanned text that had escapes, decoded: each with the index of its token.
/// Kept by the caller, as long as the tape: the tape's tokens borrow them.
pub type Escaped = Vec<(usize, String)>;

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
pub fn recycle(mut tape: Tape<'_>) {
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
pub const SCAN_DEPTH: usize = 128;

/// The tape of JSON text, nesting at most `max_depth` (and 128) arrays and objects; `None` for
/// anything else: text that is no JSON, or deeper, takes the long way, which repairs or
/// explains. Read by a scanner of its own, not through serde: serde's visitor for each token
/// cost more than the reading itself. Strings are borrowed from the text unless they have
/// escapes; numbers other than plain integers, and strings with escapes, are read by
/// `serde_json` itself, so every value is the one it would read.
pub fn of_text<'a>(text: &'a str, max_depth: usize, escaped: &'a mut Escaped) -> Option<Tape<'a>> {
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
pub fn skip_space(bytes: &[u8], mut at: usize) -> usize {
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
pub fn string_end(bytes: &[u8], open: usize) -> Option<(usize, bool)> {
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
pub fn literal_end(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
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
pub fn number(text: &str, start: usize) -> Option<(Tok<'static>, usize)> {
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
pub fn of_value(value: &Value) -> Tape<'_> {
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

/// The index just past the token at `at` and everything it holds.
pub fn skip(tape: &[Tok<'_>], at: usize) -> usize {
    match tape.get(at) {
        Some(Tok::Seq { end } | Tok::Map { end }) => *end + 1,
        _ => at + 1,
    }
}

#[cfg(test)]
pub(crate) mod tests;
