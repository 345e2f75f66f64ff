//! The one deserializer every arguments type is compiled against: serde's `Deserializer` over
//! a document's tokens, read from text as serde asks for them or from a tape.
//!
//! serde's derive is generic over the deserializer, so each deserializer a type is read with is
//! compiled again for that type, in the user's crate, for every tool: that was most of what
//! `#[tool]` cost a build. Here there is one, `Stream`, and it asks a [`Source`] for the
//! document's tokens, so the reading itself is compiled once, in this crate:
//! - [`TextSource`] reads JSON text as serde asks for it: one pass, no tokens stored, strings
//!   borrowed; called out of line. Text it does not read here (a string with escapes, text that
//!   is no JSON) is declined, not guessed: the caller reads it through a tape, or the long way.
//! - [`TapeSource`] walks a [tape](super::tape), inline (a token read is a few instructions):
//!   arguments that arrived as a value, text whose rules were checked on its tokens, the long
//!   way's checked value.
//!
//! Where serde refuses a value, the [`Trail`] holds the path to it (the members and elements the
//! error passed through on its way out), at no cost while deserialization succeeds.
//!
//! A [`TextSource`] made [`watched`](TextSource::watched) by a schema's [`Rules`] also has each
//! value checked as it reads it (in passing: no tape, no second walk); nothing of that is
//! compiled per type, since the text source's reads are out of line.

use std::cell::{Cell, RefCell};

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};

use self::key::KeyDe;
use super::path::{ArgPath, PathSegment};
pub use super::source::{Rules, Source, TapeSource, TextSource, UNCHECKED, Verdict, Watch};
use super::tape::Tok;

mod key;

/// `T` read from `source`; on failure, `trail` holds the path to the value serde refused (the
/// innermost member or element it was reading). This is all that is compiled per arguments
/// type.
#[inline(never)]
pub fn read<T: DeserializeOwned>(
    mut source: Source<'_, '_>,
    trail: &Trail,
) -> Result<T, serde_json::Error> {
    match source.value() {
        Some(ev) => T::deserialize(Stream { source, ev, trail }),
        None => Err(unreadable()),
    }
}

/// `T` read from a tape, with the path of the value serde refused on failure.
pub fn from_tape<T: DeserializeOwned>(tape: &[Tok<'_>]) -> Result<T, (serde_json::Error, ArgPath)> {
    let trail = Trail::default();
    read(Source::Tape(&mut TapeSource::new(tape)), &trail).map_err(|error| (error, trail.path()))
}

/// The source gave no token: the document is not read here (the source knows why).
#[cold]
#[inline(never)]
fn unreadable() -> serde_json::Error {
    de::Error::custom("the document cannot be read here")
}

/// What a read leaves behind beside its value: the segments an error passed through on its way
/// out (innermost first), and whether serde asked for any value whatever its type (`buffered`).
#[derive(Default)]
pub struct Trail {
    /// Made on the first segment: a read that succeeds (the commonest) then drops nothing, where
    /// an empty list still took a call to drop.
    segments: RefCell<Option<Vec<PathSegment>>>,
    buffered: Cell<bool>,
}

impl Trail {
    #[cold]
    fn note(&self, segment: PathSegment) {
        self.segments
            .borrow_mut()
            .get_or_insert_with(Vec::new)
            .push(segment);
    }

    /// The path, outermost first.
    pub fn path(self) -> ArgPath {
        let mut segments = self.segments.into_inner().unwrap_or_default();
        segments.reverse();
        ArgPath(segments)
    }

    /// Whether serde asked for a value of any type (`deserialize_any`) during the read: what it
    /// does to keep a value aside for later (an untagged or internally tagged enum, a
    /// `#[serde(flatten)]` field, a `serde_json::Value`). Otherwise every struct was read here,
    /// as an object only: a struct sent as an array (which serde's derive takes from a value it
    /// kept aside) was refused.
    pub fn buffered(&self) -> bool {
        self.buffered.get()
    }
}

/// The value whose first token is `ev`, the rest to come from `source`.
struct Stream<'s, 'de> {
    source: Source<'s, 'de>,
    ev: Tok<'de>,
    trail: &'s Trail,
}

impl<'de> Stream<'_, 'de> {
    fn unexpected(&self) -> Unexpected<'de> {
        match self.ev {
            Tok::Null => Unexpected::Unit,
            Tok::Bool(b) => Unexpected::Bool(b),
            Tok::U64(u) => Unexpected::Unsigned(u),
            Tok::I64(i) => Unexpected::Signed(i),
            Tok::F64(f) => Unexpected::Float(f),
            Tok::Str(s) => Unexpected::Str(s),
            Tok::Seq { .. } => Unexpected::Seq,
            Tok::Map { .. } | Tok::End => Unexpected::Map,
        }
    }

    /// The error for a visitor that does not take this token. (Taking `&dyn Expected` would
    /// compile it once rather than per visitor, but costs every read about ten instructions.)
    fn refuse<V: Visitor<'de>>(&self, visitor: &V) -> serde_json::Error {
        de::Error::invalid_type(self.unexpected(), visitor)
    }

    fn seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        let mut items = Items {
            source: self.source,
            trail: self.trail,
            index: 0,
            done: false,
        };
        // `match` rather than `?` here and below: in generic code each `?` is more functions
        // compiled per type.
        match visitor.visit_seq(&mut items) {
            Ok(value) => match items.done() {
                Ok(()) => Ok(value),
                Err(error) => Err(error),
            },
            Err(error) => Err(error),
        }
    }

    fn map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        let mut members = Members {
            source: self.source,
            trail: self.trail,
            key: "",
            first: true,
            done: false,
        };
        match visitor.visit_map(&mut members) {
            Ok(value) => match members.done() {
                Ok(()) => Ok(value),
                Err(error) => Err(error),
            },
            Err(error) => Err(error),
        }
    }
}

/// The deserializer methods that take one kind of token and refuse the others.
macro_rules! only {
    ($($method:ident => |$this:ident, $visitor:ident| $token:pat => $visit:expr;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $visitor: V) -> Result<V::Value, serde_json::Error> {
                let $this = self;
                match $this.ev {
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
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
                match self.ev {
                    Tok::U64(u) => visitor.visit_u64(u),
                    Tok::I64(i) => visitor.visit_i64(i),
                    Tok::F64(f) => visitor.visit_f64(f),
                    _ => Err(self.refuse(&visitor)),
                }
            }
        )*
    };
}

impl<'de> Deserializer<'de> for Stream<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        self.trail.buffered.set(true);
        match self.ev {
            Tok::Null => visitor.visit_unit(),
            Tok::Bool(b) => visitor.visit_bool(b),
            Tok::U64(u) => visitor.visit_u64(u),
            Tok::I64(i) => visitor.visit_i64(i),
            Tok::F64(f) => visitor.visit_f64(f),
            Tok::Str(s) => visitor.visit_borrowed_str(s),
            Tok::Seq { .. } => self.seq(visitor),
            Tok::Map { .. } => self.map(visitor),
            Tok::End => Err(self.refuse(&visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match self.ev {
            Tok::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_seq(visitor)
    }

    /// An object only: a struct's schema is an object's, so an array (which serde's derive would
    /// also take) goes the long way.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.deserialize_map(visitor)
    }

    /// `"Name"` for a unit variant, `{"Name": content}` for the others.
    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match self.ev {
            Tok::Str(name) => visitor.visit_enum(BorrowedStrDeserializer::new(name)),
            Tok::Map { .. } => match self.source.key(true) {
                Some(Tok::Str(name)) => {
                    let variant = Variant {
                        name,
                        source: self.source.reborrow(),
                        trail: self.trail,
                    };
                    match visitor.visit_enum(variant) {
                        // One member: the variant's.
                        Ok(value) => match self.source.key(false) {
                            Some(Tok::End) => Ok(value),
                            Some(_) => {
                                Err(de::Error::invalid_length(2, &"one member, the variant"))
                            }
                            None => Err(unreadable()),
                        },
                        Err(error) => Err(error),
                    }
                }
                Some(_) => Err(self.refuse(&visitor)),
                None => Err(unreadable()),
            },
            _ => Err(self.refuse(&visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        if matches!(self.ev, Tok::Seq { .. } | Tok::Map { .. }) && self.source.skip_rest().is_none()
        {
            return Err(unreadable());
        }
        visitor.visit_unit()
    }

    // The rest take only what they can be, so that each type's visitor is compiled with the
    // visits it takes (a struct's: a map) and not every other.
    only! {
        deserialize_bool => |de, visitor| Tok::Bool(b) => visitor.visit_bool(b);
        deserialize_str => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_string => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_char => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_identifier => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_bytes => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_byte_buf => |de, visitor| Tok::Str(s) => visitor.visit_borrowed_str(s);
        deserialize_unit => |de, visitor| Tok::Null => visitor.visit_unit();
        deserialize_seq => |de, visitor| Tok::Seq { .. } => de.seq(visitor);
        deserialize_map => |de, visitor| Tok::Map { .. } => de.map(visitor);
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }
}

/// An array's elements.
struct Items<'s, 'de> {
    source: Source<'s, 'de>,
    trail: &'s Trail,
    index: usize,
    done: bool,
}

impl Items<'_, '_> {
    /// After the visitor: the array is over (a visitor that took fewer elements than there are
    /// is refused, as `serde_json` refuses it).
    fn done(&mut self) -> Result<(), serde_json::Error> {
        if self.done {
            return Ok(());
        }
        match self.source.item(self.index == 0) {
            Some(Tok::End) => Ok(()),
            Some(_) => Err(de::Error::invalid_length(self.index + 1, &"fewer elements")),
            None => Err(unreadable()),
        }
    }
}

impl<'de> SeqAccess<'de> for &mut Items<'_, 'de> {
    type Error = serde_json::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, serde_json::Error> {
        if self.done {
            return Ok(None);
        }
        let ev = match self.source.item(self.index == 0) {
            Some(Tok::End) => {
                self.done = true;
                return Ok(None);
            }
            Some(ev) => ev,
            None => return Err(unreadable()),
        };
        let item = Stream {
            source: self.source.reborrow(),
            ev,
            trail: self.trail,
        };
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

/// An object's members.
struct Members<'s, 'de> {
    source: Source<'s, 'de>,
    trail: &'s Trail,
    /// The key read last, for the path when its value is refused.
    key: &'de str,
    first: bool,
    done: bool,
}

impl Members<'_, '_> {
    /// After the visitor: the object is over.
    fn done(&mut self) -> Result<(), serde_json::Error> {
        if self.done {
            return Ok(());
        }
        match self.source.key(self.first) {
            Some(Tok::End) => Ok(()),
            Some(_) => Err(de::Error::custom("more members than were read")),
            None => Err(unreadable()),
        }
    }
}

impl<'de> MapAccess<'de> for &mut Members<'_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, serde_json::Error> {
        if self.done {
            return Ok(None);
        }
        let first = std::mem::replace(&mut self.first, false);
        match self.source.key(first) {
            Some(Tok::Str(key)) => {
                self.key = key;
                match seed.deserialize(KeyDe(key)) {
                    Ok(key) => Ok(Some(key)),
                    Err(error) => Err(error),
                }
            }
            Some(Tok::End) => {
                self.done = true;
                Ok(None)
            }
            // Keys are strings, in text and on tapes alike.
            Some(_) => Err(de::Error::custom("a key that is no string")),
            None => Err(unreadable()),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, serde_json::Error> {
        let Some(ev) = self.source.value() else {
            return Err(unreadable());
        };
        let value = Stream {
            source: self.source.reborrow(),
            ev,
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

/// `{"Name": content}`: an enum variant with content, its name read.
struct Variant<'s, 'de> {
    name: &'de str,
    source: Source<'s, 'de>,
    trail: &'s Trail,
}

impl<'de> EnumAccess<'de> for Variant<'_, 'de> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self), serde_json::Error> {
        match seed.deserialize(BorrowedStrDeserializer::<serde_json::Error>::new(self.name)) {
            Ok(variant) => Ok((variant, self)),
            Err(error) => Err(error),
        }
    }
}

impl<'s, 'de> Variant<'s, 'de> {
    /// Reads the variant's content; on failure, its name is a segment of the path.
    fn content<T>(
        mut self,
        read: impl FnOnce(Stream<'s, 'de>) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let Some(ev) = self.source.value() else {
            return Err(unreadable());
        };
        let content = Stream {
            source: self.source,
            ev,
            trail: self.trail,
        };
        read(content).inspect_err(|_| {
            self.trail.note(PathSegment::Key(self.name.to_owned()));
        })
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, 'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), serde_json::Error> {
        self.content(|content| match content.ev {
            Tok::Null => Ok(()),
            _ => Err(de::Error::invalid_type(
                content.unexpected(),
                &"unit variant",
            )),
        })
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<S::Value, serde_json::Error> {
        self.content(|content| seed.deserialize(content))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.content(|content| content.deserialize_seq(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        self.content(|content| content.deserialize_map(visitor))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::Value;

    use super::*;
    use crate::tape::tests::mutated;
    use crate::tape::{Escaped, of_text, recycle};

    /// `T` read from text as it is deserialized: `None` when the text source declined it.
    fn streamed<T: DeserializeOwned>(
        text: &str,
        max_depth: usize,
    ) -> Option<Result<T, serde_json::Error>> {
        let mut source = TextSource::new(text, max_depth);
        let read = read::<T>(Source::Text(&mut source), &Trail::default());
        let whole = read.is_err() || source.finish();
        (!source.declined() && whole).then_some(read)
    }

    /// `T` read from the scanner's tape of the text: `None` when the scanner refused it.
    fn taped<T: DeserializeOwned>(text: &str) -> Option<Result<T, serde_json::Error>> {
        let mut escaped = Escaped::new();
        let tape = of_text(text, 128, &mut escaped)?;
        let read = read::<T>(Source::Tape(&mut TapeSource::new(&tape)), &Trail::default());
        recycle(tape);
        Some(read)
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Loose {
        name: String,
        #[serde(default)]
        count: Option<i32>,
        #[serde(default)]
        pair: Option<(u8, u8)>,
    }

    /// A struct read here is read from an object only, and the trail says when serde asked for
    /// a value of any type instead (keeping it aside, where a struct is also taken from an
    /// array).
    #[test]
    fn structs_are_objects_unless_serde_kept_a_value_aside() {
        #[derive(Deserialize)]
        #[expect(
            dead_code,
            reason = "read by serde only: the test asks whether the read succeeds"
        )]
        struct Point {
            x: i32,
            y: i32,
        }
        #[derive(Deserialize)]
        #[expect(
            dead_code,
            reason = "read by serde only: the test asks whether the read succeeds"
        )]
        struct Direct {
            at: Point,
        }
        #[derive(Deserialize)]
        #[expect(
            dead_code,
            reason = "read by serde only: the test asks whether the read succeeds"
        )]
        struct Kept {
            #[serde(flatten)]
            inner: Direct,
        }
        let read = |text: &str, kept: bool| {
            let trail = Trail::default();
            let mut source = TextSource::new(text, 128);
            let ok = if kept {
                read::<Kept>(Source::Text(&mut source), &trail).is_ok()
            } else {
                read::<Direct>(Source::Text(&mut source), &trail).is_ok()
            };
            (ok, trail.buffered())
        };
        assert_eq!(read(r#"{"at": {"x": 1, "y": 2}}"#, false), (true, false));
        assert_eq!(read(r#"{"at": [1, 2]}"#, false), (false, false));
        // Flattened: serde keeps the members aside, and takes the array.
        assert_eq!(read(r#"{"at": {"x": 1, "y": 2}}"#, true), (true, true));
        assert_eq!(read(r#"{"at": [1, 2]}"#, true), (true, true));
    }

    #[test]
    fn reads_values_as_serde_json_reads_them() {
        for text in [
            r#"{"a": 2, "b": -3, "c": [1.5, 2e10, -0.25, 0, -0], "d": {"e": null, "f": true}}"#,
            r#"[[], {}, [[[]]], {"": {"": ""}}, "x", false]"#,
            "  17  ",
            "\"just a string\"",
            r#"{"n": 12345678901234567890, "m": -9223372036854775808, "big": 18446744073709551616}"#,
            "{\"unicode\": \"é ünï 😀\"}",
        ] {
            let reference: Value = serde_json::from_str(text).unwrap();
            let read = streamed::<Value>(text, 128).expect("read here").unwrap();
            assert_eq!(read, reference, "{text}");
        }
    }

    #[test]
    fn declines_what_it_does_not_read_and_never_takes_broken_text() {
        for text in [
            // Escapes: the tape reads these.
            r#"{"name": "a \"quoted\" name"}"#,
            r#"{"na\u006de": "a"}"#,
            // Not JSON.
            r#"{"name": "a",}"#,
            r#"{"name": "a" "count": 1}"#,
            r#"{"name": "a"} trailing"#,
            r#"{"name": "a"}}"#,
            r#"{"name": "a", "count": 01}"#,
            r#"{"name": "a", "extra": [1, }"#,
            r#"{"name": "a", "extra": {"x" 1}}"#,
            r#"{"name": "a", "extra": [1, 2,]}"#,
            "{\"name\": \"raw\nline\"}",
            r#"{"name": "a""#,
            "",
        ] {
            assert!(streamed::<Loose>(text, 128).is_none(), "{text}");
        }
        // What serde refuses in valid JSON is refused, not declined: the long way explains.
        let refused = streamed::<Loose>(r#"{"name": 1}"#, 128).expect("read here");
        assert!(refused.is_err());
        // An element too many is refused, as serde_json refuses it.
        let refused = streamed::<Loose>(r#"{"name": "a", "pair": [1, 2, 3]}"#, 128);
        assert!(refused.expect("read here").is_err());
    }

    #[test]
    fn skips_what_serde_ignores_reading_it_all() {
        let text = r#"{"extra": {"deep": [1, {"y": [2, {}], "z": "w"}, []], "k": null}, "name": "a", "more": [[{}]], "count": 3}"#;
        let read = streamed::<Loose>(text, 128).expect("read here").unwrap();
        assert_eq!(
            read,
            Loose {
                name: "a".into(),
                count: Some(3),
                pair: None
            }
        );
        assert_eq!(taped::<Loose>(text).unwrap().unwrap(), read);
    }

    #[test]
    fn stops_at_the_depth_limit() {
        let deep = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        assert!(streamed::<Value>(&deep(128), 128).is_some());
        assert!(streamed::<Value>(&deep(129), 128).is_none());
        assert!(streamed::<Value>(&deep(10), 10).is_some());
        assert!(streamed::<Value>(&deep(11), 10).is_none());
        assert!(streamed::<Value>(&deep(129), 100_000).is_none());
        // Also where serde ignores the value.
        let ignored = format!(r#"{{"name": "a", "extra": {}}}"#, deep(200));
        assert!(streamed::<Loose>(&ignored, 128).is_none());
    }

    /// Valid documents mutated a character at a time (a deterministic xorshift picks where and
    /// what): what the text source reads is what `serde_json` reads, and what it reads into a
    /// type is what the tape of the same text gives; broken text is never read.
    #[test]
    fn agrees_with_serde_json_and_the_tape_on_mutated_text() {
        let seeds = [
            r#"{"name": "x", "count": -3, "pair": [1, 2], "extra": {"e": null, "f": [true, 2.5e1]}}"#,
            r#"{"count": 7, "name": "y\"z", "pair": null}"#,
            r#"[[{"k": [false, {"": ""}]}], "é", 1E+2, 3.0, -0]"#,
        ];
        let (mut checked, mut read_here) = (0, 0);
        for text in mutated(&seeds, 3_000, 0x2545_F491_4F6C_DD1D) {
            let reference = serde_json::from_str::<Value>(&text).ok();
            if let Some(value) = streamed::<Value>(&text, 128) {
                assert_eq!(value.ok(), reference, "{text}");
                read_here += 1;
            }
            // Read here, the text was JSON and the tape reads the same; refused here, the
            // tape refuses it too, or the text is no JSON past where serde stopped.
            match (streamed::<Loose>(&text, 128), taped::<Loose>(&text)) {
                (Some(Ok(loose)), taped) => {
                    assert!(reference.is_some(), "{text}");
                    assert_eq!(taped.and_then(Result::ok), Some(loose), "{text}");
                }
                (Some(Err(_)), Some(taped)) => assert!(taped.is_err(), "{text}"),
                (Some(Err(_)) | None, _) => {}
            }
            checked += 1;
        }
        assert_eq!(checked, 9_000);
        // Both outcomes are well represented (the second seed has escapes: never read here).
        assert!(
            (500..8_000).contains(&read_here),
            "{read_here} of {checked} read"
        );
    }
}
