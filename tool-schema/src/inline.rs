//! Checking what the schema says beyond serde, for the fast path: in passing, or on a tape.
//!
//! A generated arguments struct enforces types, required and unknown names itself; what a schema
//! adds (a range, a pattern, a length, an enum over a string, a nested struct being an object,
//! ...) is checked here, only on values whose schema node says more than serde enforces
//! ([`CompiledSchema::needs_check`]), one of two ways:
//! - **In passing**, where every rule is about one value at a time (ranges, lengths, patterns,
//!   formats, enums of scalars, counts of items and members, unions the type read picks;
//!   [`CompiledSchema::checks_in_passing`]): the schema is the text source's [`Rules`], asked
//!   about each value as serde reads it from the text. No tape, no second walk: the commonest
//!   tools cost what serde costs.
//! - **On a tape** ([`holds`]), for the rest, for values, and for text the text source declines
//!   (escapes): one pass over the text into tokens, then a walk over them, where a union's tag
//!   may come after the members it decides, and sets of scalars compare their items.
//!
//! Unions are taken where the value picks the branch: by its JSON type (`Option<T>`, untagged
//! enums of different shapes) or, on the tape, by its tag (serde's tagged enums). Anything not
//! decided here (`not`, unions of one type without a tag, sets of objects, ...) or any value that
//! breaks a rule sends the call the long way (decode, coerce, validate with every problem, serde),
//! which decides and explains.
//!
//! Nothing here is generic: it is compiled once, in the runtime, whatever the tools' types.

use serde_json::{Number, Value};

use super::compiled::{CompiledSchema, Node, NodeId, Passing, ROOT, Types, is_integral, keywords};
use super::number::{self, same};
use toolwright_json::de::{Rules, UNCHECKED, Verdict};
use toolwright_json::tape::{Tok, skip};

/// The schema's rules, checked in passing as the text source reads (see the module's
/// documentation).
/// Only for a schema that [`checks_in_passing`](CompiledSchema::checks_in_passing): asked about
/// another, a value is undecided, never taken.
impl Rules for CompiledSchema {
    fn root(&self) -> usize {
        if self.needs_check(ROOT) {
            ROOT
        } else {
            UNCHECKED
        }
    }

    fn enter(&self, node: usize, token: &Tok<'_>) -> Result<usize, Verdict> {
        if !self.checks_in_passing() {
            return Err(Verdict::Undecided);
        }
        let node = self.target(node);
        // The commonest rule first: an integer in a range.
        if let Some((low, high)) = self.integers(node) {
            let int = match *token {
                Tok::I64(i) => Some(i),
                Tok::U64(u) => i64::try_from(u).ok(),
                _ => None,
            };
            if let Some(int) = int {
                return if low <= int && int <= high {
                    Ok(UNCHECKED)
                } else {
                    Err(Verdict::Broken)
                };
            }
        }
        // `None` from the checks below: a type no branch takes, or a rule broken.
        let checked = match token {
            Tok::Map { .. } => self.containers(node)[0],
            Tok::Seq { .. } => self.containers(node)[1],
            scalar => check(self, std::slice::from_ref(scalar), 0, node).map(|_| UNCHECKED),
        };
        checked.ok_or(Verdict::Broken)
    }

    fn member(&self, node: usize, key: &str) -> usize {
        match self.checked_members(node) {
            Some(members) => members
                .iter()
                .find(|(name, _)| same_bytes(name.as_bytes(), key.as_bytes()))
                .map_or(UNCHECKED, |(_, child)| *child),
            None => self.member_in_full(node, key),
        }
    }

    fn item(&self, node: usize, index: usize) -> usize {
        match self.node(node).item(index) {
            Some(child) if self.needs_check(child) => child,
            _ => UNCHECKED,
        }
    }

    fn close(&self, node: usize, object: bool, count: usize) -> Result<(), Verdict> {
        let node = self.node(node);
        let holds = if object {
            within(count, node.min_properties, node.max_properties)
        } else {
            within(count, node.min_items, node.max_items)
        };
        if holds { Ok(()) } else { Err(Verdict::Broken) }
    }
}

/// Whether two member names are the same, compared here byte by byte: names are short, and a
/// call to `memcmp` (with the registers it makes the lookup save) costs more than the bytes.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl CompiledSchema {
    /// A member's node where `properties` alone does not say (pattern properties, a schema for
    /// the others): looked up in full. Out of line, so that the common lookup stays small.
    #[cold]
    #[inline(never)]
    fn member_in_full(&self, node: usize, key: &str) -> usize {
        match self.node(node).member(key) {
            Some(child) if self.needs_check(child) => child,
            _ => UNCHECKED,
        }
    }
}

/// Whether the document on `tape` holds to the schema's rules beyond serde's, as far as they can
/// be told here; `false` sends the call the long way.
pub fn holds(schema: &CompiledSchema, tape: &[Tok<'_>]) -> bool {
    !tape.is_empty() && (!schema.needs_check(ROOT) || check(schema, tape, 0, ROOT).is_some())
}

/// Checks the value whose token is at `at` against `node` (which needs a check): the index
/// just past the value, or `None` when a rule is broken or cannot be told here.
fn check(schema: &CompiledSchema, tape: &[Tok<'_>], at: usize, node: NodeId) -> Option<usize> {
    let node = schema.target(node);
    match tape.get(at)? {
        Tok::Seq { end } => seq(schema, tape, at, *end, node),
        Tok::Map { end } => map(schema, tape, at, *end, node),
        Tok::U64(u) => number(schema, node, &Number::from(*u)).then_some(at + 1),
        Tok::I64(i) => number(schema, node, &Number::from(*i)).then_some(at + 1),
        Tok::F64(f) => number(schema, node, &Number::from_f64(*f)?).then_some(at + 1),
        Tok::Str(s) => rules(schema, node, Types::STRING)?
            .string(s)
            .then_some(at + 1),
        Tok::Null => rules(schema, node, Types::NULL)?
            .literal(&Value::Null)
            .then_some(at + 1),
        Tok::Bool(b) => rules(schema, node, Types::BOOLEAN)?
            .literal(&Value::Bool(*b))
            .then_some(at + 1),
        Tok::End => None,
    }
}

/// A number against its node's rules; a value is built only for rules that compare values
/// (`const`, `enum`, a union of constants).
fn number(schema: &CompiledSchema, node: NodeId, n: &Number) -> bool {
    let types = if is_integral(n) {
        Types::INTEGER.union(Types::NUMBER)
    } else {
        Types::NUMBER
    };
    let Some(rules) = rules(schema, node, types) else {
        return false;
    };
    let listed = rules.values.is_some() || rules.node.keywords & keywords::LISTED != 0;
    if listed {
        return rules.number(&Value::Number(n.clone()), types);
    }
    rules.allows(types)
        && rules.node.number_holds(n)
        && rules.node.format.as_ref().is_none_or(|f| f.check_number(n))
}

/// An array: its own rules, its items' (each against its schema), how many, and for a set that
/// no two are equal.
fn seq(
    schema: &CompiledSchema,
    tape: &[Tok<'_>],
    at: usize,
    end: usize,
    node: NodeId,
) -> Option<usize> {
    let rules = rules(schema, node, Types::ARRAY)?;
    if !rules.allows(Types::ARRAY) {
        return None;
    }
    let node = rules.node;
    // A set's items so far, in canonical form; only scalars are compared here.
    let mut seen = node.unique_items.then(Vec::new);
    let mut count = 0;
    let mut item = at + 1;
    while item < end {
        if let Some(seen) = &mut seen {
            seen.push(canonical(tape.get(item)?)?);
        }
        let child = node.item(count);
        item = match child {
            Some(child) if schema.needs_check(child) => check(schema, tape, item, child)?,
            _ => skip(tape, item),
        };
        count += 1;
    }
    if let Some(mut seen) = seen {
        seen.sort_unstable();
        if seen.windows(2).any(|pair| pair[0] == pair[1]) {
            return None;
        }
    }
    within(count, node.min_items, node.max_items).then_some(end + 1)
}

/// An object: the branch its tag names (a tagged union), each member against its schema, and
/// how many.
fn map(
    schema: &CompiledSchema,
    tape: &[Tok<'_>],
    at: usize,
    end: usize,
    node: NodeId,
) -> Option<usize> {
    let node = schema.select(node, Types::OBJECT)?;
    let node = if schema.passing(node) == Passing::Tagged {
        let tag = schema.discriminator(node)?;
        let (_, value) = members(tape, at, end).find(|(key, _)| *key == tag.name)?;
        let Some(Tok::Str(name)) = tape.get(value) else {
            return None;
        };
        let branch = schema.target(tag.branch_of_tag(&Value::from(*name))?);
        // The branch named must itself be checkable here.
        if schema.passing(branch) != Passing::Plain {
            return None;
        }
        branch
    } else {
        if !schema
            .node(node)
            .types
            .is_none_or(|t| t.accepts(Types::OBJECT))
        {
            return None;
        }
        node
    };
    let object = schema.node(node);
    let mut count = 0;
    for (key, value) in members(tape, at, end) {
        count += 1;
        let child = object.member(key);
        if let Some(child) = child
            && schema.needs_check(child)
        {
            check(schema, tape, value, child)?;
        }
    }
    within(count, object.min_properties, object.max_properties).then_some(end + 1)
}

/// The rules for a value of type `types`.
fn rules(schema: &CompiledSchema, node: NodeId, types: Types) -> Option<Scalar<'_>> {
    let node = schema.select(node, types)?;
    Some(Scalar {
        node: schema.node(node),
        values: schema.listed(node),
    })
}

/// An object's members on the tape: each key, and where its value starts.
fn members<'t>(
    tape: &'t [Tok<'_>],
    at: usize,
    end: usize,
) -> impl Iterator<Item = (&'t str, usize)> {
    let mut key = at + 1;
    std::iter::from_fn(move || {
        if key >= end {
            return None;
        }
        let name = match tape.get(key) {
            Some(Tok::Str(name)) => name,
            _ => "",
        };
        let value = key + 1;
        key = skip(tape, value);
        Some((name, value))
    })
}

/// A scalar token as a value (`None` for arrays and objects).
fn scalar(token: &Tok<'_>) -> Option<Value> {
    Some(match token {
        Tok::Null => Value::Null,
        Tok::Bool(b) => Value::Bool(*b),
        Tok::U64(u) => Value::from(*u),
        Tok::I64(i) => Value::from(*i),
        Tok::F64(f) => Value::from(*f),
        Tok::Str(s) => Value::from(*s),
        Tok::Seq { .. } | Tok::Map { .. } | Tok::End => return None,
    })
}

/// A set item as JSON text (numbers by value: `1` and `1.0` alike); `None` for arrays and
/// objects, which the long way compares.
fn canonical(token: &Tok<'_>) -> Option<String> {
    Some(match scalar(token)? {
        Value::Number(n) => number::canonical(&n),
        other => other.to_string(),
    })
}

/// The rules of one node, applied to scalars.
struct Scalar<'s> {
    node: &'s Node,
    /// The values a union of constants allows (`oneOf` of `const`s, as schemars writes enums
    /// with documented variants).
    values: Option<&'s [Value]>,
}

impl Scalar<'_> {
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

#[cfg(test)]
// The types are read, never looked at: only whether they are read in passing matters.
#[expect(
    dead_code,
    reason = "The types are read, never looked at: only whether they are read in passing matters."
)]
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

    /// Whether the text is read on the fast path (its tape holds and serde reads it), or sent
    /// the long way, the same from text and from a value.
    fn in_passing(text: &str) -> bool {
        let schema = schema();
        assert!(
            schema.checks_inline(),
            "the whole schema is checkable in passing"
        );
        let value: Value = serde_json::from_str(text).unwrap();
        let read = |tape: &[Tok<'_>]| {
            holds(&schema, tape) && toolwright_json::de::from_tape::<Args>(tape).is_ok()
        };
        let mut escaped = toolwright_json::tape::Escaped::new();
        let from_text =
            toolwright_json::tape::of_text(text, 128, &mut escaped).is_some_and(|tape| read(&tape));
        let from_value = read(&toolwright_json::tape::of_value(&value));
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
            // The tag after other members: on the tape it is found wherever it is.
            r#"{"shape": {"radius": 1.5, "kind": "circle"}}"#,
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
        ] {
            assert!(!in_passing(text), "{text}");
        }
    }
}
