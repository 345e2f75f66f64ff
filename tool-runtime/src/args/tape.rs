//! A parsed document as a flat list of tokens, and serde's `Deserializer` over it.
//!
//! Every deserializer a tool's arguments type is read with is compiled again for that type, in
//! the user's crate, for every tool (serde's derive is generic over the deserializer); that was
//! most of what `#[tool]` cost a build. Two remain: `serde_json`'s text deserializer, for text
//! that no rule beyond serde's is about (the commonest call, at serde's own speed), and this
//! one, for everything else: text whose rules are checked in the same pass that writes its tape
//! (see `inline`), arguments that arrive as a JSON value, and the long way's checked value. One
//! pass over the text, no tree of allocations, strings borrowed wherever they can be; and where
//! serde refuses a value, the path to it, which `serde_path_to_error` (a third deserializer per
//! type) used to give, at no cost while deserialization succeeds.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};
use serde_json::Value;

use super::problem::{ArgPath, PathSegment};

/// One token of a document. Arrays and objects are followed by their contents; an object's
/// members are key and value, one after the other.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(Cow<'a, str>),
    /// An array; the index just past its last token.
    Seq {
        end: usize,
    },
    /// An object; the index just past its last token.
    Map {
        end: usize,
    },
}

/// A document's tokens.
pub(crate) type Tape<'a> = Vec<Tok<'a>>;

/// Deserializes `T` from a tape. On failure `trail` holds the path of the value serde refused
/// (the innermost member or element it was reading): kept outside, so that this, compiled once
/// per arguments type, is no more than the call.
pub(crate) fn read<T: DeserializeOwned>(
    tape: &[Tok<'_>],
    trail: &Trail,
) -> Result<T, serde_json::Error> {
    T::deserialize(TapeDe { tape, at: 0, trail })
}

/// [`read`], with the path on failure.
#[cfg(test)]
pub(crate) fn from_tape<T: DeserializeOwned>(
    tape: &[Tok<'_>],
) -> Result<T, (serde_json::Error, ArgPath)> {
    let trail = Trail::default();
    read(tape, &trail).map_err(|error| (error, trail.path()))
}

/// The segments an error passed through on its way out, innermost first.
#[derive(Default)]
pub(crate) struct Trail(RefCell<Vec<PathSegment>>);

impl Trail {
    #[cold]
    fn note(&self, segment: PathSegment) {
        self.0.borrow_mut().push(segment);
    }

    /// The path, outermost first.
    pub(crate) fn path(self) -> ArgPath {
        let mut segments = self.0.into_inner();
        segments.reverse();
        ArgPath(segments)
    }
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
    // The tokens are dropped here, and the collect of none (in place, as std collects a
    // vector's own iterator) keeps the memory under the longer lifetime.
    tape.clear();
    #[allow(clippy::unnecessary_filter_map)] // `filter` could not change the tokens' lifetime.
    let spare: Vec<Tok<'static>> = tape.into_iter().filter_map(|_| None).collect();
    SPARE.with(|cell| cell.set(spare));
}

/// How deep the scanner reads: as deep as `serde_json` reads text (its recursion limit), so the
/// fast path never recurses further than it did.
const SCAN_DEPTH: usize = 128;

/// The tape of JSON text, nesting at most `max_depth` (and 128) arrays and objects; `None` for
/// anything else: text that is no JSON, or deeper, takes the long way, which repairs or
/// explains. Read by a scanner of its own, not through serde: serde's visitor for each token
/// cost more than the reading itself. Strings are borrowed from the text unless they have
/// escapes; numbers other than plain integers, and strings with escapes, are read by
/// `serde_json` itself, so every value is the one it would read.
pub(crate) fn of_text(text: &str, max_depth: usize) -> Option<Tape<'_>> {
    let mut tape = spare();
    if scan(text, max_depth.min(SCAN_DEPTH), &mut tape).is_some() {
        Some(tape)
    } else {
        recycle(tape);
        None
    }
}

/// The scanner: one loop over the bytes. An open container's token holds, until it is closed,
/// the place of the container around it (so the open ones need no stack of their own).
fn scan<'a>(text: &'a str, max_depth: usize, tape: &mut Tape<'a>) -> Option<()> {
    /// No container around it.
    const OUTSIDE: usize = usize::MAX;
    let bytes = text.as_bytes();
    let mut top = OUTSIDE;
    let mut depth = 0;
    let mut at = 0;
    'value: loop {
        at = skip_space(bytes, at);
        match *bytes.get(at)? {
            byte @ (b'{' | b'[') => {
                if depth == max_depth {
                    return None;
                }
                depth += 1;
                let around = top;
                top = tape.len();
                at = skip_space(bytes, at + 1);
                if byte == b'{' {
                    tape.push(Tok::Map { end: around });
                    if bytes.get(at) != Some(&b'}') {
                        at = key(text, at, tape)?;
                        continue 'value;
                    }
                } else {
                    tape.push(Tok::Seq { end: around });
                    if bytes.get(at) != Some(&b']') {
                        continue 'value;
                    }
                }
                // Empty: closed below, as after a last member.
            }
            b'"' => {
                let (string, next) = string(text, at)?;
                tape.push(Tok::Str(string));
                at = next;
            }
            b'-' | b'0'..=b'9' => at = number(text, at, tape)?,
            b't' => at = literal(bytes, at, b"true", Tok::Bool(true), tape)?,
            b'f' => at = literal(bytes, at, b"false", Tok::Bool(false), tape)?,
            b'n' => at = literal(bytes, at, b"null", Tok::Null, tape)?,
            _ => return None,
        }
        // After a value (or an empty container's opening): the next member or element, or the
        // container's end.
        loop {
            if top == OUTSIDE {
                return (skip_space(bytes, at) == bytes.len()).then_some(());
            }
            at = skip_space(bytes, at);
            let (object, around) = match tape[top] {
                Tok::Map { end } => (true, end),
                Tok::Seq { end } => (false, end),
                _ => return None,
            };
            match (*bytes.get(at)?, object) {
                (b',', true) => {
                    at = key(text, skip_space(bytes, at + 1), tape)?;
                    continue 'value;
                }
                (b',', false) => {
                    at += 1;
                    continue 'value;
                }
                (b'}', true) | (b']', false) => {
                    at += 1;
                    let end = tape.len();
                    tape[top] = if object {
                        Tok::Map { end }
                    } else {
                        Tok::Seq { end }
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
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// A member's key at `at` and its colon: the index after the colon.
#[inline(always)]
fn key<'a>(text: &'a str, at: usize, tape: &mut Tape<'a>) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let (key, next) = string(text, at)?;
    tape.push(Tok::Str(key));
    let colon = skip_space(bytes, next);
    (bytes.get(colon) == Some(&b':')).then_some(colon + 1)
}

/// The string whose opening quote is at `open`, and the index after its closing quote.
#[inline(always)]
fn string(text: &str, open: usize) -> Option<(Cow<'_, str>, usize)> {
    let bytes = text.as_bytes();
    let mut at = open + 1;
    let mut escaped = false;
    loop {
        match *bytes.get(at)? {
            b'"' => break,
            b'\\' => {
                escaped = true;
                at += 2;
            }
            // Control characters must be escaped in JSON.
            0..=0x1f => return None,
            _ => at += 1,
        }
    }
    let string = if escaped {
        // `serde_json` decodes the escapes (and refuses the bad ones).
        Cow::Owned(serde_json::from_str::<String>(text.get(open..=at)?).ok()?)
    } else {
        Cow::Borrowed(text.get(open + 1..at)?)
    };
    Some((string, at + 1))
}

fn literal<'a>(
    bytes: &[u8],
    at: usize,
    word: &[u8],
    token: Tok<'a>,
    tape: &mut Tape<'a>,
) -> Option<usize> {
    if bytes.get(at..at + word.len())? != word {
        return None;
    }
    tape.push(token);
    Some(at + word.len())
}

/// A number at `start`: plain integers read here, every other (fractions, exponents, `-0`,
/// integers past 64 bits) by `serde_json`, so each is the number it reads. The index after it.
fn number<'a>(text: &'a str, start: usize, tape: &mut Tape<'a>) -> Option<usize> {
    let bytes = text.as_bytes();
    let negative = bytes[start] == b'-';
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
        && (bytes[digits] != b'0' || (at == digits + 1 && !negative));
    if plain {
        if !negative {
            tape.push(Tok::U64(magnitude));
            return Some(at);
        }
        if let Ok(signed) = i64::try_from(magnitude) {
            tape.push(Tok::I64(-signed));
            return Some(at);
        }
    }
    // The rest of the number's grammar, then serde_json's reading of it.
    while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = bytes.get(at) {
        at += 1;
    }
    let number: serde_json::Number = serde_json::from_str(text.get(start..at)?).ok()?;
    tape.push(number_token(&number));
    Some(at)
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
        Value::String(s) => tape.push(Tok::Str(Cow::Borrowed(s))),
        Value::Array(items) => {
            let at = tape.len();
            tape.push(Tok::Seq { end: 0 });
            for item in items {
                push_value(tape, item);
            }
            tape[at] = Tok::Seq { end: tape.len() };
        }
        Value::Object(map) => {
            let at = tape.len();
            tape.push(Tok::Map { end: 0 });
            for (key, item) in map {
                tape.push(Tok::Str(Cow::Borrowed(key)));
                push_value(tape, item);
            }
            tape[at] = Tok::Map { end: tape.len() };
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

#[cfg(test)]
/// Writes the tape of whatever it is deserialized from: `serde_json`'s own reading, which the
/// scanner's is checked against.
struct Build<'t, 'a>(&'t mut Tape<'a>);

#[cfg(test)]
impl<'a> DeserializeSeed<'a> for Build<'_, 'a> {
    type Value = ();

    fn deserialize<D: Deserializer<'a>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

#[cfg(test)]
impl<'a> Visitor<'a> for Build<'_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.0.push(Tok::Bool(v));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.0.push(Tok::I64(v));
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.0.push(Tok::U64(v));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.0.push(Tok::F64(v));
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push(Tok::Str(Cow::Owned(v.to_owned())));
        Ok(())
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'a str) -> Result<(), E> {
        self.0.push(Tok::Str(Cow::Borrowed(v)));
        Ok(())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<(), E> {
        self.0.push(Tok::Str(Cow::Owned(v)));
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.push(Tok::Null);
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.push(Tok::Null);
        Ok(())
    }

    fn visit_some<D: Deserializer<'a>>(self, de: D) -> Result<(), D::Error> {
        Build(self.0).deserialize(de)
    }

    fn visit_seq<A: SeqAccess<'a>>(self, mut seq: A) -> Result<(), A::Error> {
        let tape = self.0;
        let at = tape.len();
        tape.push(Tok::Seq { end: 0 });
        while seq.next_element_seed(Build(&mut *tape))?.is_some() {}
        let end = tape.len();
        tape[at] = Tok::Seq { end };
        Ok(())
    }

    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<(), A::Error> {
        let tape = self.0;
        let at = tape.len();
        tape.push(Tok::Map { end: 0 });
        while map.next_key_seed(Build(&mut *tape))?.is_some() {
            map.next_value_seed(Build(&mut *tape))?;
        }
        let end = tape.len();
        tape[at] = Tok::Map { end };
        Ok(())
    }
}

/// The index just past the token at `at` and everything it holds.
pub(crate) fn skip(tape: &[Tok<'_>], at: usize) -> usize {
    match tape.get(at) {
        Some(Tok::Seq { end } | Tok::Map { end }) => *end,
        _ => at + 1,
    }
}

/// The value whose token is at `at`.
#[derive(Clone, Copy)]
struct TapeDe<'t, 'a> {
    tape: &'t [Tok<'a>],
    at: usize,
    trail: &'t Trail,
}

impl<'t, 'a> TapeDe<'t, 'a> {
    fn token(&self) -> &'t Tok<'a> {
        // Every index handed out points into the tape (`skip` and the containers' ends are
        // within it); a missing token reads as null, which every visitor refuses or takes.
        self.tape.get(self.at).unwrap_or(&Tok::Null)
    }

    fn unexpected(&self) -> Unexpected<'t> {
        match self.token() {
            Tok::Null => Unexpected::Unit,
            Tok::Bool(b) => Unexpected::Bool(*b),
            Tok::U64(u) => Unexpected::Unsigned(*u),
            Tok::I64(i) => Unexpected::Signed(*i),
            Tok::F64(f) => Unexpected::Float(*f),
            Tok::Str(s) => Unexpected::Str(s),
            Tok::Seq { .. } => Unexpected::Seq,
            Tok::Map { .. } => Unexpected::Map,
        }
    }

    fn refuse<'de, V: Visitor<'de>>(&self, visitor: &V) -> serde_json::Error {
        de::Error::invalid_type(self.unexpected(), visitor)
    }

    fn seq(self, end: usize) -> SeqTape<'t, 'a> {
        SeqTape {
            tape: self.tape,
            at: self.at + 1,
            end,
            index: 0,
            trail: self.trail,
        }
    }

    fn map(self, end: usize) -> MapTape<'t, 'a> {
        MapTape {
            tape: self.tape,
            at: self.at + 1,
            end,
            value: 0,
            key: "",
            trail: self.trail,
        }
    }

    /// The value at `at`, in the same document.
    fn at(self, at: usize) -> Self {
        TapeDe { at, ..self }
    }
}

/// The deserializer methods that take one kind of token and refuse the others.
macro_rules! only {
    ($($method:ident => |$this:ident, $visitor:ident| $token:pat => $visit:expr;)*) => {
        $(
            fn $method<V: Visitor<'t>>(self, $visitor: V) -> Result<V::Value, serde_json::Error> {
                let $this = self;
                match $this.token() {
                    $token => $visit,
                    _ => Err($this.refuse(&$visitor)),
                }
            }
        )*
    };
}

/// Numbers: as read (`u64`, `i64` or `f64`), for the primitive visitors' own range checks.
macro_rules! numbers {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
                match self.token() {
                    Tok::U64(u) => visitor.visit_u64(*u),
                    Tok::I64(i) => visitor.visit_i64(*i),
                    Tok::F64(f) => visitor.visit_f64(*f),
                    _ => Err(self.refuse(&visitor)),
                }
            }
        )*
    };
}

impl<'t> Deserializer<'t> for TapeDe<'t, '_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.token() {
            Tok::Null => visitor.visit_unit(),
            Tok::Bool(b) => visitor.visit_bool(*b),
            Tok::U64(u) => visitor.visit_u64(*u),
            Tok::I64(i) => visitor.visit_i64(*i),
            Tok::F64(f) => visitor.visit_f64(*f),
            Tok::Str(s) => visitor.visit_borrowed_str(s),
            Tok::Seq { end } => visitor.visit_seq(self.seq(*end)),
            Tok::Map { end } => visitor.visit_map(self.map(*end)),
        }
    }

    fn deserialize_option<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.token() {
            Tok::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_unit_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_tuple<V: Visitor<'t>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_seq(visitor)
    }

    /// An object only: a struct's schema is an object's, so an array (which serde's derive would
    /// also take) goes the long way.
    fn deserialize_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_map(visitor)
    }

    /// `"Name"` for a unit variant, `{"Name": content}` for the others.
    fn deserialize_enum<V: Visitor<'t>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match self.token() {
            Tok::Str(name) => visitor.visit_enum(BorrowedStrDeserializer::new(name)),
            Tok::Map { end } => match self.tape.get(self.at + 1) {
                Some(Tok::Str(name)) if skip(self.tape, self.at + 2) == *end => {
                    visitor.visit_enum(EnumTape {
                        name,
                        content: self.at(self.at + 2),
                    })
                }
                _ => Err(self.refuse(&visitor)),
            },
            _ => Err(self.refuse(&visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'t>>(
        self,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_unit()
    }

    // The rest take only what they can be, so that each type's visitor is compiled with the
    // visits it takes (a struct's: a map) and not every other.
    only! {
        deserialize_bool => |de, visitor| Tok::Bool(b) => visitor.visit_bool(*b);
        deserialize_str => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_string => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_char => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_identifier => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_bytes => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_byte_buf => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_unit => |de, visitor| Tok::Null => visitor.visit_unit();
        deserialize_seq => |de, visitor| Tok::Seq { end } => visitor.visit_seq(de.seq(*end));
        deserialize_map => |de, visitor| Tok::Map { end } => visitor.visit_map(de.map(*end));
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }
}

struct SeqTape<'t, 'a> {
    tape: &'t [Tok<'a>],
    at: usize,
    end: usize,
    index: usize,
    trail: &'t Trail,
}

impl<'t> SeqAccess<'t> for SeqTape<'t, '_> {
    type Error = serde_json::Error;

    fn next_element_seed<S: DeserializeSeed<'t>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, serde_json::Error> {
        if self.at >= self.end {
            return Ok(None);
        }
        let item = TapeDe {
            tape: self.tape,
            at: self.at,
            trail: self.trail,
        };
        self.at = skip(self.tape, self.at);
        self.index += 1;
        match seed.deserialize(item) {
            Ok(item) => Ok(Some(item)),
            Err(error) => {
                self.trail.note(PathSegment::Index(self.index - 1));
                Err(error)
            }
        }
    }
}

struct MapTape<'t, 'a> {
    tape: &'t [Tok<'a>],
    at: usize,
    end: usize,
    /// Where the value of the member whose key was read last starts, and that key.
    value: usize,
    key: &'t str,
    trail: &'t Trail,
}

impl<'t> MapTape<'t, '_> {
    /// The next member's key, its value's place kept for `next_value_seed`.
    fn advance(&mut self) -> Option<&'t str> {
        if self.at >= self.end {
            return None;
        }
        self.key = match self.tape.get(self.at) {
            Some(Tok::Str(key)) => key,
            _ => "",
        };
        self.value = self.at + 1;
        self.at = skip(self.tape, self.value);
        Some(self.key)
    }
}

impl<'t> MapAccess<'t> for MapTape<'t, '_> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'t>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, serde_json::Error> {
        match self.advance() {
            Some(key) => seed.deserialize(KeyDe(key)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'t>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, serde_json::Error> {
        let value = TapeDe {
            tape: self.tape,
            at: self.value,
            trail: self.trail,
        };
        match seed.deserialize(value) {
            Ok(value) => Ok(value),
            Err(error) => {
                self.trail.note(PathSegment::Key(self.key.to_owned()));
                Err(error)
            }
        }
    }
}

/// An object's key: a string, or a number or boolean written as one (`{"1": ..}` for a map
/// with integer keys), as `serde_json` reads keys from text.
struct KeyDe<'t>(&'t str);

macro_rules! parsed_key {
    ($($method:ident => $visit:ident,)*) => {
        $(
            fn $method<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
                match self.0.parse() {
                    Ok(value) => visitor.$visit(value),
                    Err(_) => Err(de::Error::invalid_type(Unexpected::Str(self.0), &visitor)),
                }
            }
        )*
    };
}

impl<'t> Deserializer<'t> for KeyDe<'t> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_borrowed_str(self.0)
    }

    parsed_key! {
        deserialize_bool => visit_bool,
        deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128,
        deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32,
        deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128,
        deserialize_f32 => visit_f32,
        deserialize_f64 => visit_f64,
    }

    fn deserialize_option<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'t>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_enum(BorrowedStrDeserializer::new(self.0))
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'t>>
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// `{"Name": content}`: an enum variant with content.
struct EnumTape<'t, 'a> {
    name: &'t str,
    content: TapeDe<'t, 'a>,
}

impl<'t> EnumAccess<'t> for EnumTape<'t, '_> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'t>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self), serde_json::Error> {
        let variant =
            seed.deserialize(BorrowedStrDeserializer::<serde_json::Error>::new(self.name))?;
        Ok((variant, self))
    }
}

impl<'t, 'a> EnumTape<'t, 'a> {
    /// Reads the variant's content; on failure, its name is a segment of the path.
    fn content<T>(
        self,
        read: impl FnOnce(TapeDe<'t, 'a>) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let trail = self.content.trail;
        read(self.content).inspect_err(|_| {
            trail.note(PathSegment::Key(self.name.to_owned()));
        })
    }
}

impl<'t> VariantAccess<'t> for EnumTape<'t, '_> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), serde_json::Error> {
        self.content(|content| match content.token() {
            Tok::Null => Ok(()),
            _ => Err(de::Error::invalid_type(
                content.unexpected(),
                &"unit variant",
            )),
        })
    }

    fn newtype_variant_seed<S: DeserializeSeed<'t>>(
        self,
        seed: S,
    ) -> Result<S::Value, serde_json::Error> {
        self.content(|content| seed.deserialize(content))
    }

    fn tuple_variant<V: Visitor<'t>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.content(|content| content.deserialize_seq(visitor))
    }

    fn struct_variant<V: Visitor<'t>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.content(|content| content.deserialize_map(visitor))
    }
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
    /// as `serde_json`'s own deserializer reads the value; what it refuses, refused too.
    fn agrees(value: &Value) {
        let reference = Args::deserialize(value).ok();
        assert_eq!(
            from_tape::<Args>(&of_value(value)).ok(),
            reference,
            "{value}"
        );
        let text = value.to_string();
        let tape = of_text(&text, 128).unwrap();
        assert_eq!(tape, of_value(value), "{text}");
        assert_eq!(tape, built(&text).unwrap(), "{text}");
        assert_eq!(from_tape::<Args>(&tape).ok(), reference, "{value}");
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for value in [
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
        ] {
            agrees(&value);
        }
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
    fn built(text: &str) -> Option<Tape<'_>> {
        let mut tape = Vec::new();
        let mut de = serde_json::Deserializer::from_str(text);
        Build(&mut tape).deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(tape)
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
            assert_eq!(of_text(text, 128), built(text), "{text}");
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
        let alphabet: Vec<char> = "{}[]\",:.-+eE0123456789 \\tnulrfasx\u{e9}"
            .chars()
            .collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % below as u64).unwrap_or(0)
        };
        let (mut checked, mut valid) = (0, 0);
        for seed in seeds {
            for _ in 0..3_000 {
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
                let text: String = chars.into_iter().collect();
                let scanned = of_text(&text, 128);
                assert_eq!(scanned, built(&text), "{text}");
                valid += usize::from(scanned.is_some());
                checked += 1;
            }
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
        assert!(of_text(&deep(128), 128).is_some());
        assert!(of_text(&deep(129), 128).is_none());
        assert!(of_text(&deep(10), 10).is_some());
        assert!(of_text(&deep(11), 10).is_none());
        // Never deeper than serde_json read text, whatever the limit.
        assert!(of_text(&deep(129), 100_000).is_none());
    }

    #[test]
    fn a_tape_reuses_the_last_ones_memory() {
        let first = of_text(r#"{"a": 1}"#, 128).unwrap();
        let memory = first.as_ptr() as usize;
        recycle(first);
        let text = String::from(r#"{"b": "two"}"#);
        let second = of_text(&text, 128).unwrap();
        assert_eq!(second.as_ptr() as usize, memory);
        assert_eq!(second[2], Tok::Str(Cow::Borrowed("two")));
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
