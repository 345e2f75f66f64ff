//! Checking the schema in the pass that reads the text, for the fast path.
//!
//! A generated arguments struct enforces types, required and unknown names itself; what a schema
//! adds (a range, a pattern, a length, an enum over a string, ...) is checked here, on each value
//! as `serde_json` reads it into the [`tape`](super::tape) the typed arguments are then read
//! from, so a valid call still costs one pass over its text. The wrappers below pass everything
//! through unchanged, and look only at values whose schema node says more than serde enforces
//! ([`CompiledSchema::needs_check`]). Unions are taken where the value read picks the branch: by
//! its JSON type (`Option<T>`, untagged enums of different shapes) or by a tag read first
//! (serde's tagged enums); sets of scalars compare their items as they pass. Anything they
//! cannot check in passing (`not`, unions of one type without a tag, sets of objects, a tag
//! after other members, ...) or any value that breaks a rule stops the pass with a private
//! error: the call then takes the long way (decode, coerce, validate with every problem,
//! serde), which decides and explains.
//!
//! The wrappers are generic, as serde's traits are, but compiled once, here, around the tape's
//! writer: no tool's own types pass through them.

use std::cell::{Cell, RefCell};
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::compiled::{
    Additional, CompiledSchema, Discriminator, Node, NodeId, Passing, ROOT, Types,
};
use super::number::{self, same};
use super::tape::{Build, Tape};

/// The error that sends a call the long way; never shown to anyone.
const LONG_WAY: &str = "the value needs the full check against the schema";

/// The tape of JSON text whose values hold to the schema's rules beyond what serde enforces,
/// written in the same pass as the rules are checked; `None` when a rule is broken, or cannot
/// be told in passing (the long way then decides). The typed arguments are read from the tape,
/// so each tool's arguments type is compiled against the tape's deserializer only; the checks
/// are compiled once, here.
pub(crate) fn tape_str<'a>(schema: &CompiledSchema, text: &'a str) -> Option<Tape<'a>> {
    let mut tape = Vec::with_capacity(16);
    let mut de = serde_json::Deserializer::from_str(text);
    Build(&mut tape)
        .deserialize(Checked {
            de: &mut de,
            schema,
            node: ROOT,
        })
        .ok()?;
    de.end().ok()?;
    Some(tape)
}

/// [`tape_str`] for a JSON value.
pub(crate) fn tape_value<'a>(schema: &CompiledSchema, value: &'a Value) -> Option<Tape<'a>> {
    let mut tape = Vec::with_capacity(16);
    Build(&mut tape)
        .deserialize(Checked {
            de: value,
            schema,
            node: ROOT,
        })
        .ok()?;
    Some(tape)
}

/// The rules of one node, applied to scalars.
struct Rules<'s> {
    node: &'s Node,
    /// The values a union of constants allows (`oneOf` of `const`s, as schemars writes enums
    /// with documented variants).
    values: Option<&'s [Value]>,
}

impl Rules<'_> {
    fn allows(&self, types: Types) -> bool {
        self.node.types.is_none_or(|t| t.accepts(types))
    }

    fn listed(&self, value: &Value) -> bool {
        self.node.constant.as_ref().is_none_or(|c| same(c, value))
            && self
                .node
                .enumeration
                .as_ref()
                .is_none_or(|values| values.iter().any(|v| same(v, value)))
            && self
                .values
                .is_none_or(|values| values.iter().any(|v| same(v, value)))
    }

    /// A number, of JSON type `types` (`Types::of(value)`).
    fn number(&self, value: &Value, types: Types) -> bool {
        let Value::Number(n) = value else {
            return false;
        };
        self.allows(types)
            && self.listed(value)
            && self.node.number_holds(n)
            && self.node.format.as_ref().is_none_or(|f| f.check(value))
    }

    fn string(&self, s: &str) -> bool {
        let node = self.node;
        let listed = node.constant.is_none() && node.enumeration.is_none() && self.values.is_none()
            || self.listed(&Value::from(s));
        let lengths = node.min_length.is_none() && node.max_length.is_none() || {
            let len = s.chars().count();
            node.min_length.is_none_or(|min| len >= min)
                && node.max_length.is_none_or(|max| len <= max)
        };
        self.allows(Types::STRING)
            && listed
            && lengths
            && node
                .pattern
                .as_ref()
                .is_none_or(|(_, regex)| regex.is_match(s))
            && node.format.as_ref().is_none_or(|f| f.check_str(s))
    }

    fn literal(&self, value: &Value) -> bool {
        self.allows(Types::of(value)) && self.listed(value)
    }
}

fn within(len: usize, min: Option<usize>, max: Option<usize>) -> bool {
    min.is_none_or(|min| len >= min) && max.is_none_or(|max| len <= max)
}

/// A deserializer whose values are checked against a schema node.
struct Checked<'s, D> {
    de: D,
    schema: &'s CompiledSchema,
    node: NodeId,
}

/// A seed whose value is checked against a schema node.
struct CheckedSeed<'s, S> {
    seed: S,
    schema: &'s CompiledSchema,
    node: NodeId,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for CheckedSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Checked {
            de,
            schema: self.schema,
            node: self.node,
        })
    }
}

/// Forwards every `deserialize_*` method, wrapping the visitor.
macro_rules! forward_deserializer {
    ($wrap:ident; $($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
                let visitor = self.$wrap(visitor)?;
                self.de.$method($($arg,)* visitor)
            }
        )*
    };
}

macro_rules! deserializer_methods {
    ($wrap:ident) => {
        forward_deserializer! {
            $wrap;
            deserialize_any();
            deserialize_bool();
            deserialize_i8();
            deserialize_i16();
            deserialize_i32();
            deserialize_i64();
            deserialize_i128();
            deserialize_u8();
            deserialize_u16();
            deserialize_u32();
            deserialize_u64();
            deserialize_u128();
            deserialize_f32();
            deserialize_f64();
            deserialize_char();
            deserialize_str();
            deserialize_string();
            deserialize_bytes();
            deserialize_byte_buf();
            deserialize_option();
            deserialize_unit();
            deserialize_unit_struct(name: &'static str);
            deserialize_newtype_struct(name: &'static str);
            deserialize_seq();
            deserialize_tuple(len: usize);
            deserialize_tuple_struct(name: &'static str, len: usize);
            deserialize_map();
            deserialize_struct(name: &'static str, fields: &'static [&'static str]);
            deserialize_identifier();
        }

        /// A value the reader would skip is still read whole here: the checks must see it.
        fn deserialize_ignored_any<V: Visitor<'de>>(
            self,
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            let visitor = self.$wrap(visitor)?;
            self.de.deserialize_any(visitor)
        }

        fn is_human_readable(&self) -> bool {
            self.de.is_human_readable()
        }
    };
}

impl<'s, D> Checked<'s, D> {
    /// The visitor wrapped with this node's rules; the long way when they cannot be checked in
    /// passing.
    fn wrap<V, E: de::Error>(&self, visitor: V) -> Result<Wrap<'s, V>, E> {
        let node = self.schema.target(self.node);
        if self.schema.passing(node) == Passing::No {
            return Err(E::custom(LONG_WAY));
        }
        Ok(Wrap {
            visitor,
            schema: self.schema,
            node,
        })
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, D> {
    type Error = D::Error;

    deserializer_methods!(wrap);

    /// A unit variant is a string to the schema (`"celsius"`): read as any value, so that its
    /// text is checked; an enum written as an object takes the long way.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let wrap = self.wrap(visitor)?;
        self.de.deserialize_any(UnitVariant(wrap))
    }
}

/// Reads a unit variant from its name, checking the name against the schema.
struct UnitVariant<'s, V>(Wrap<'s, V>);

impl<'de, V: Visitor<'de>> Visitor<'de> for UnitVariant<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        pass(self.0.rules(Types::STRING)?.string(v))?;
        self.0
            .visitor
            .visit_enum(de::value::StrDeserializer::<E>::new(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        pass(self.0.rules(Types::STRING)?.string(v))?;
        self.0
            .visitor
            .visit_enum(de::value::BorrowedStrDeserializer::<E>::new(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        pass(self.0.rules(Types::STRING)?.string(&v))?;
        self.0
            .visitor
            .visit_enum(de::value::StringDeserializer::<E>::new(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(LONG_WAY))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(LONG_WAY))
    }
}

/// A visitor that checks each value against a node's rules before passing it on.
struct Wrap<'s, V> {
    visitor: V,
    schema: &'s CompiledSchema,
    node: NodeId,
}

impl<'s, V> Wrap<'s, V> {
    /// The node whose rules a value of type `types` answers to: the node itself, or the branch
    /// of a union the type (or, for objects, the tag) picks. `None`: not in passing.
    #[inline]
    fn select(&self, types: Types) -> Option<NodeId> {
        let schema = self.schema;
        // Most nodes are no union: themselves.
        if schema.passing(self.node) == Passing::Plain {
            return Some(self.node);
        }
        let mut node = self.node;
        for _ in 0..8 {
            node = schema.target(node);
            let branches = {
                let n = schema.node(node);
                if n.any_of.is_empty() {
                    &n.one_of
                } else {
                    &n.any_of
                }
            };
            match schema.passing(node) {
                Passing::Plain | Passing::Listed => return Some(node),
                Passing::Tagged if types == Types::OBJECT => return Some(node),
                Passing::Union => {
                    node = *branches
                        .iter()
                        .find(|branch| schema.types_of(**branch).accepts(types))?;
                }
                Passing::Tagged | Passing::No => return None,
            }
        }
        None
    }

    /// The rules for a value of type `types`, or the long way.
    #[inline]
    fn rules<E: de::Error>(&self, types: Types) -> Result<Rules<'s>, E> {
        let schema = self.schema;
        let node = self.select(types).ok_or_else(|| E::custom(LONG_WAY))?;
        Ok(Rules {
            node: schema.node(node),
            values: schema.listed(node),
        })
    }
}

/// Goes on when the rules hold; otherwise takes the long way.
fn pass<E: de::Error>(ok: bool) -> Result<(), E> {
    if ok { Ok(()) } else { Err(E::custom(LONG_WAY)) }
}

macro_rules! visit_number {
    ($($method:ident($ty:ty);)*) => {
        $(
            fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
                let value = Value::from(v);
                let types = Types::of(&value);
                pass(self.rules(types)?.number(&value, types))?;
                self.visitor.$method(v)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    visit_number! {
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_f32(f32);
        visit_f64(f64);
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<V::Value, E> {
        // Beyond 64 bits JSON numbers are floats to the schema.
        #[allow(clippy::cast_precision_loss)]
        let value = Value::from(v as f64);
        let types = Types::of(&value);
        pass(self.rules(types)?.number(&value, types))?;
        self.visitor.visit_i128(v)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<V::Value, E> {
        #[allow(clippy::cast_precision_loss)]
        let value = Value::from(v as f64);
        let types = Types::of(&value);
        pass(self.rules(types)?.number(&value, types))?;
        self.visitor.visit_u128(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        pass(self.rules(Types::BOOLEAN)?.literal(&Value::Bool(v)))?;
        self.visitor.visit_bool(v)
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<V::Value, E> {
        pass(
            self.rules(Types::STRING)?
                .string(v.encode_utf8(&mut [0; 4])),
        )?;
        self.visitor.visit_char(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        pass(self.rules(Types::STRING)?.string(v))?;
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        pass(self.rules(Types::STRING)?.string(v))?;
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        pass(self.rules(Types::STRING)?.string(&v))?;
        self.visitor.visit_string(v)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.visitor.visit_bytes(v)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.visitor.visit_borrowed_bytes(v)
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.visitor.visit_byte_buf(v)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        pass(self.rules(Types::NULL)?.literal(&Value::Null))?;
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        pass(self.rules(Types::NULL)?.literal(&Value::Null))?;
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        let (schema, node) = (self.schema, self.node);
        self.visitor.visit_some(Checked { de, schema, node })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        let (schema, node) = (self.schema, self.node);
        self.visitor
            .visit_newtype_struct(Checked { de, schema, node })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let rules = self.rules(Types::ARRAY)?;
        pass(rules.allows(Types::ARRAY))?;
        let node = self.select(Types::ARRAY).unwrap_or(self.node);
        let count = Cell::new(0);
        // A set's items, as they pass, to compare.
        let seen = rules.node.unique_items.then(|| RefCell::new(Vec::new()));
        let schema = self.schema;
        let value = self.visitor.visit_seq(CheckedSeq {
            seq,
            schema,
            node,
            count: &count,
            seen: seen.as_ref(),
        })?;
        if let Some(seen) = seen {
            let mut seen = seen.into_inner();
            seen.sort_unstable();
            pass(seen.windows(2).all(|pair| pair[0] != pair[1]))?;
        }
        if within(count.get(), rules.node.min_items, rules.node.max_items) {
            Ok(value)
        } else {
            Err(de::Error::custom(LONG_WAY))
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let node = self
            .select(Types::OBJECT)
            .ok_or_else(|| de::Error::custom(LONG_WAY))?;
        let schema = self.schema;
        // A tagged union: its branch is known once the tag is read.
        let tag = if schema.passing(node) == Passing::Tagged {
            schema.discriminator(node)
        } else {
            pass(
                schema
                    .node(node)
                    .types
                    .is_none_or(|t| t.accepts(Types::OBJECT)),
            )?;
            None
        };
        let state = MapState {
            schema,
            current: Cell::new(if tag.is_some() { None } else { Some(node) }),
            tag,
            slot: Cell::new(None),
            count: Cell::new(0),
        };
        let value = self.visitor.visit_map(CheckedMap {
            map,
            state: &state,
            child: None,
        })?;
        // Members counted against the object's (or the picked branch's) rules.
        let current = state.current.get();
        let node = schema.node(current.ok_or_else(|| de::Error::custom(LONG_WAY))?);
        if within(state.count.get(), node.min_properties, node.max_properties) {
            Ok(value)
        } else {
            Err(de::Error::custom(LONG_WAY))
        }
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, _data: A) -> Result<V::Value, A::Error> {
        // An enum under rules of its own: the long way decides.
        Err(de::Error::custom(LONG_WAY))
    }
}

struct CheckedSeq<'s, 'c, A> {
    seq: A,
    schema: &'s CompiledSchema,
    node: NodeId,
    count: &'c Cell<usize>,
    /// A set's items so far, in canonical form.
    seen: Option<&'c RefCell<Vec<String>>>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for CheckedSeq<'_, '_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let index = self.count.get();
        let node = self.schema.node(self.node);
        let child = node
            .prefix_items
            .get(index)
            .copied()
            .or(node.items)
            .filter(|child| self.schema.needs_check(*child));
        let element = match (child, self.seen) {
            (None, None) => self.seq.next_element_seed(seed)?,
            (None, Some(items)) => self
                .seq
                .next_element_seed(CaptureSeed { seed, seen: items })?,
            (Some(child), None) => self.seq.next_element_seed(CheckedSeed {
                seed,
                schema: self.schema,
                node: child,
            })?,
            (Some(child), Some(items)) => self.seq.next_element_seed(CaptureSeed {
                seed: CheckedSeed {
                    seed,
                    schema: self.schema,
                    node: child,
                },
                seen: items,
            })?,
        };
        if element.is_some() {
            self.count.set(index + 1);
        }
        Ok(element)
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// A seed whose scalar value is noted, for a set's comparison of its items.
struct CaptureSeed<'c, S> {
    seed: S,
    seen: &'c RefCell<Vec<String>>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for CaptureSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Capture {
            de,
            seen: self.seen,
        })
    }
}

struct Capture<'c, D> {
    de: D,
    seen: &'c RefCell<Vec<String>>,
}

impl<'c, D> Capture<'c, D> {
    // The same shape as `Checked::wrap`, for the shared forwarding macro.
    #[allow(clippy::unnecessary_wraps)]
    fn capture<V, E>(&self, visitor: V) -> Result<CaptureVisitor<'c, V>, E> {
        Ok(CaptureVisitor {
            visitor,
            seen: self.seen,
        })
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Capture<'_, D> {
    type Error = D::Error;

    deserializer_methods!(capture);

    /// A unit variant in a set: its name is the item.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_enum(
            name,
            variants,
            CaptureEnum {
                visitor,
                seen: self.seen,
            },
        )
    }
}

/// Notes the name of a set's unit variant as it is read.
struct CaptureEnum<'c, V> {
    visitor: V,
    seen: &'c RefCell<Vec<String>>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for CaptureEnum<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(CaptureVariant {
            data,
            seen: self.seen,
        })
    }
}

struct CaptureVariant<'c, A> {
    data: A,
    seen: &'c RefCell<Vec<String>>,
}

impl<'de, A: de::EnumAccess<'de>> de::EnumAccess<'de> for CaptureVariant<'_, A> {
    type Error = A::Error;
    type Variant = A::Variant;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, A::Variant), A::Error> {
        self.data.variant_seed(CaptureSeed {
            seed,
            seen: self.seen,
        })
    }
}

struct CaptureVisitor<'c, V> {
    visitor: V,
    seen: &'c RefCell<Vec<String>>,
}

impl<V> CaptureVisitor<'_, V> {
    /// Notes a scalar as JSON text (numbers by value: `1` and `1.0` alike).
    fn note(&self, value: &Value) {
        let text = match value {
            Value::Number(n) => number::canonical(n),
            other => other.to_string(),
        };
        self.seen.borrow_mut().push(text);
    }
}

macro_rules! capture_number {
    ($($method:ident($ty:ty);)*) => {
        $(
            fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
                self.note(&Value::from(v));
                self.visitor.$method(v)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for CaptureVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    capture_number! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_f32(f32);
        visit_f64(f64);
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.note(&Value::from(v));
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.note(&Value::from(v));
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.note(&Value::from(v.as_str()));
        self.visitor.visit_string(v)
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<V::Value, E> {
        self.note(&Value::from(v.to_string()));
        self.visitor.visit_char(v)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.note(&Value::Null);
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.note(&Value::Null);
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(Capture {
            de,
            seen: self.seen,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(Capture {
            de,
            seen: self.seen,
        })
    }

    // Items that are not scalars (a set of objects or arrays, or 128-bit numbers): the long
    // way compares them.
    fn visit_i128<E: de::Error>(self, _v: i128) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_u128<E: de::Error>(self, _v: u128) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_bytes<E: de::Error>(self, _v: &[u8]) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(LONG_WAY))
    }

    fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(LONG_WAY))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, _data: A) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(LONG_WAY))
    }
}

/// What the members of one object are checked against, shared by its map and key readers.
struct MapState<'s> {
    schema: &'s CompiledSchema,
    /// The object's node: known from the start, or (for a tagged union) once the tag is read.
    current: Cell<Option<NodeId>>,
    tag: Option<&'s Discriminator>,
    /// What the member whose key was just read is checked against.
    slot: Cell<Option<Member>>,
    count: Cell<usize>,
}

struct CheckedMap<'s, 'c, A> {
    map: A,
    state: &'c MapState<'s>,
    /// What the member whose value comes next is checked against.
    child: Option<Member>,
}

/// What a member's value is checked against.
#[derive(Clone, Copy)]
enum Member {
    /// A schema node.
    Node(NodeId),
    /// The tag of a tagged union, which picks the branch.
    Tag,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for CheckedMap<'_, '_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let state = self.state;
        state.slot.set(None);
        let key = self.map.next_key_seed(KeySeed { seed, state })?;
        if key.is_some() {
            state.count.set(state.count.get() + 1);
            self.child = state.slot.get();
        }
        Ok(key)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let schema = self.state.schema;
        match self.child.take() {
            Some(Member::Node(child)) if schema.needs_check(child) => {
                self.map.next_value_seed(CheckedSeed {
                    seed,
                    schema,
                    node: child,
                })
            }
            Some(Member::Tag) => {
                let picked = Cell::new(None);
                let value = self.map.next_value_seed(TagSeed {
                    seed,
                    tag: self.state.tag.ok_or_else(|| de::Error::custom(LONG_WAY))?,
                    picked: &picked,
                })?;
                // The branch named must itself be checkable in passing.
                let branch = picked
                    .get()
                    .map(|branch| schema.target(branch))
                    .filter(|branch| schema.passing(*branch) == Passing::Plain)
                    .ok_or_else(|| de::Error::custom(LONG_WAY))?;
                self.state.current.set(Some(branch));
                Ok(value)
            }
            _ => self.map.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// Reads a member's key as usual, noting what the member's value is checked against.
struct KeySeed<'s, 'c, K> {
    seed: K,
    state: &'c MapState<'s>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, '_, K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyDeserializer {
            de,
            state: self.state,
        })
    }
}

struct KeyDeserializer<'s, 'c, D> {
    de: D,
    state: &'c MapState<'s>,
}

impl<'s, 'c, D> KeyDeserializer<'s, 'c, D> {
    // The same shape as `Checked::wrap`, for the shared forwarding macro; keys never fail here.
    #[allow(clippy::unnecessary_wraps)]
    fn capture<V, E>(&self, visitor: V) -> Result<KeyVisitor<'s, 'c, V>, E> {
        Ok(KeyVisitor {
            visitor,
            state: self.state,
        })
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDeserializer<'_, '_, D> {
    type Error = D::Error;

    deserializer_methods!(capture);
    forward_deserializer! { capture; deserialize_enum(name: &'static str, variants: &'static [&'static str]); }
}

struct KeyVisitor<'s, 'c, V> {
    visitor: V,
    state: &'c MapState<'s>,
}

impl<V> KeyVisitor<'_, '_, V> {
    /// Notes what the member's value is checked against; the long way for a member of a tagged
    /// union read before its tag.
    fn note<E: de::Error>(&self, key: &str) -> Result<(), E> {
        let state = self.state;
        let Some(current) = state.current.get() else {
            return match state.tag {
                Some(tag) if tag.name == key => {
                    state.slot.set(Some(Member::Tag));
                    Ok(())
                }
                _ => Err(E::custom(LONG_WAY)),
            };
        };
        let node = state.schema.node(current);
        let child = node.property(key).or(match node.additional {
            Additional::Schema(id) => Some(id),
            _ => None,
        });
        state.slot.set(child.map(Member::Node));
        Ok(())
    }
}

/// Reads a tagged union's tag, noting the branch it names (`None`: no branch, or not a string).
struct TagSeed<'s, 'c, S> {
    seed: S,
    tag: &'s Discriminator,
    picked: &'c Cell<Option<NodeId>>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for TagSeed<'_, '_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(TagDeserializer {
            de,
            tag: self.tag,
            picked: self.picked,
        })
    }
}

struct TagDeserializer<'s, 'c, D> {
    de: D,
    tag: &'s Discriminator,
    picked: &'c Cell<Option<NodeId>>,
}

impl<'s, 'c, D> TagDeserializer<'s, 'c, D> {
    // The same shape as `Checked::wrap`, for the shared forwarding macro.
    #[allow(clippy::unnecessary_wraps)]
    fn capture<V, E>(&self, visitor: V) -> Result<TagVisitor<'s, 'c, V>, E> {
        Ok(TagVisitor {
            visitor,
            tag: self.tag,
            picked: self.picked,
        })
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for TagDeserializer<'_, '_, D> {
    type Error = D::Error;

    deserializer_methods!(capture);
    forward_deserializer! { capture; deserialize_enum(name: &'static str, variants: &'static [&'static str]); }
}

struct TagVisitor<'s, 'c, V> {
    visitor: V,
    tag: &'s Discriminator,
    picked: &'c Cell<Option<NodeId>>,
}

impl<V> TagVisitor<'_, '_, V> {
    fn pick(&self, value: &str) {
        self.picked.set(self.tag.branch_of_tag(&Value::from(value)));
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TagVisitor<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.pick(v);
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.pick(v);
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.pick(&v);
        self.visitor.visit_string(v)
    }

    // A tag that is not a string: the long way decides.
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        Err(E::custom(LONG_WAY))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(LONG_WAY))
    }

    fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<V::Value, A::Error> {
        Err(de::Error::custom(LONG_WAY))
    }
}

macro_rules! visit_plain {
    ($($method:ident($ty:ty);)*) => {
        $(
            fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
                self.visitor.$method(v)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.note(v)?;
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.note(v)?;
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.note(&v)?;
        self.visitor.visit_string(v)
    }

    visit_plain! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(de)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(map)
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(data)
    }
}

#[cfg(test)]
// The types are read, never looked at: only whether they are read in passing matters.
#[allow(dead_code)]
mod tests {
    use std::collections::BTreeSet;

    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;

    /// A unit, with documented variants (a `oneOf` of constants).
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Unit {
        /// Celsius.
        Celsius,
        /// Fahrenheit.
        Fahrenheit,
    }

    /// A tagged enum.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    enum Shape {
        /// A circle.
        Circle {
            /// At least 0.
            #[schemars(range(min = 0.0))]
            radius: f64,
        },
        /// A square.
        Square {
            /// At most 10.
            #[schemars(range(max = 10))]
            side: u32,
        },
    }

    /// An untagged enum of different shapes.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(untagged)]
    enum Amount {
        /// A number, at most 100.
        Number(#[schemars(range(max = 100))] f64),
        /// Words.
        Words {
            /// The words, 1 to 5 characters.
            #[schemars(length(min = 1, max = 5))]
            text: String,
        },
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Args {
        unit: Option<Unit>,
        shape: Option<Shape>,
        amount: Option<Amount>,
        tags: Option<BTreeSet<String>>,
        units: Option<BTreeSet<Unit>>,
    }

    fn schema() -> CompiledSchema {
        CompiledSchema::compile(&serde_json::to_value(schemars::schema_for!(Args)).unwrap())
    }

    /// Whether the text is read in passing (`Ok`), or sent the long way (any error: ours, or
    /// serde's own, as for an unknown tag), the same from text and from a value.
    fn in_passing(text: &str) -> bool {
        let schema = schema();
        assert!(
            schema.checks_inline(),
            "the whole schema is checkable in passing"
        );
        let value: Value = serde_json::from_str(text).unwrap();
        let from_text = tape_str(&schema, text)
            .and_then(|tape| super::super::tape::from_tape::<Args>(&tape).ok())
            .is_some();
        let from_value = tape_value(&schema, &value)
            .and_then(|tape| super::super::tape::from_tape::<Args>(&tape).ok())
            .is_some();
        assert_eq!(from_value, from_text, "{text}");
        from_text
    }

    #[test]
    fn unions_and_sets_are_read_in_passing() {
        for text in [
            r#"{"unit": "celsius"}"#,
            r#"{"unit": null, "shape": null, "amount": null}"#,
            r#"{"shape": {"kind": "circle", "radius": 1.5}}"#,
            r#"{"shape": {"kind": "square", "side": 10}}"#,
            r#"{"amount": 7}"#,
            r#"{"amount": {"text": "seven"}}"#,
            r#"{"tags": ["a", "b"], "units": ["celsius", "fahrenheit"]}"#,
        ] {
            assert!(in_passing(text), "{text}");
        }
    }

    #[test]
    fn what_breaks_a_rule_or_cannot_be_told_in_passing_goes_the_long_way() {
        for text in [
            // Broken rules.
            r#"{"unit": "kelvin"}"#,
            r#"{"shape": {"kind": "circle", "radius": -1}}"#,
            r#"{"shape": {"kind": "square", "side": 11}}"#,
            r#"{"shape": {"kind": "triangle"}}"#,
            r#"{"amount": 101}"#,
            r#"{"amount": {"text": "seventeen"}}"#,
            r#"{"tags": ["a", "a"]}"#,
            r#"{"units": ["celsius", "celsius"]}"#,
            // A member before the tag: its branch is not known yet.
            r#"{"shape": {"radius": 1.5, "kind": "circle"}}"#,
        ] {
            assert!(!in_passing(text), "{text}");
        }
    }
}
