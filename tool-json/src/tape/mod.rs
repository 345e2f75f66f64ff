//! A parsed document as a flat list of tokens: what the schema's rules beyond serde's are
//! checked on (see `inline`) and what serde reads arguments from when they arrive as a value,
//! when their text had rules to check, and on the long way (see `stream`, which reads tapes and
//! text alike). One pass over the text, no tree of allocations, strings borrowed wherever they
//! can be.

use std::cell::Cell;

use serde_json::Value;

pub use crate::strict::{SCAN_DEPTH, Tok};
use crate::strict::{TextSource, number_token};

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
    #[expect(
        clippy::unnecessary_filter_map,
        reason = "`filter` could not change the tokens' lifetime."
    )]
    let spare: Vec<Tok<'static>> = tape.into_iter().filter_map(|_| None).collect();
    SPARE.with(|cell| cell.set(spare));
}

/// The tape of JSON text, nesting at most `max_depth` (and 128) arrays and objects; `None` for
/// anything else: text that is no JSON, or deeper, takes the long way, which repairs or
/// explains. Read by the strict grammar, not through serde: serde's visitor for each token
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

/// The scanner: the strict grammar's reading ([`TextSource`]), stored. An open container's
/// token holds, until it is closed, the place of the container around it, so the open ones need
/// no stack of their own, and the one open last (`top`) says whether a key or an element comes
/// next.
fn scan<'a>(
    text: &'a str,
    max_depth: usize,
    tape: &mut Tape<'a>,
    escaped: &mut Escaped,
) -> Option<()> {
    /// No container around it.
    const OUTSIDE: usize = usize::MAX;
    let mut source = TextSource::<true>::new(text, max_depth);
    let mut top = OUTSIDE;
    let mut token = source.read_value()?;
    loop {
        let first = match token {
            Tok::Map { .. } => {
                tape.push(Tok::Map { end: top });
                top = tape.len() - 1;
                true
            }
            Tok::Seq { .. } => {
                tape.push(Tok::Seq { end: top });
                top = tape.len() - 1;
                true
            }
            Tok::End => {
                let end = tape.len();
                tape.push(Tok::End);
                top = match tape.get_mut(top)? {
                    Tok::Map { end: slot } | Tok::Seq { end: slot } => std::mem::replace(slot, end),
                    _ => return None,
                };
                false
            }
            token => {
                push(token, tape, escaped)?;
                false
            }
        };
        token = match tape.get(top) {
            None => return source.finish().then_some(()),
            Some(Tok::Map { .. }) => match source.read_member(first)? {
                Tok::End => Tok::End,
                key => {
                    push(key, tape, escaped)?;
                    source.read_value()?
                }
            },
            Some(_) => source.read_item(first)?,
        };
    }
}

/// A scalar or key on the tape; a string with escapes (raw, quotes included) decoded into
/// `escaped`, its token a placeholder until the scan is over.
#[inline(always)]
fn push<'a>(token: Tok<'a>, tape: &mut Tape<'a>, escaped: &mut Escaped) -> Option<()> {
    match token {
        Tok::Str(raw) if raw.starts_with('"') => decode(raw, tape, escaped),
        token => {
            tape.push(token);
            Some(())
        }
    }
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

/// The index just past the token at `at` and everything it holds.
pub fn skip(tape: &[Tok<'_>], at: usize) -> usize {
    match tape.get(at) {
        Some(Tok::Seq { end } | Tok::Map { end }) => *end + 1,
        _ => at + 1,
    }
}

#[cfg(test)]
pub(crate) mod tests;
