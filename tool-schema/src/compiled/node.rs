//! One compiled subschema: its keywords, read once into fields a check reads at a glance.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::{CompiledSchema, NodeId, Types};
use crate::format::Format;
use crate::number;

/// Which groups of keywords a node has, so that a check skips the rest at a glance.
pub mod keywords {
    pub const NEVER: u16 = 1;
    pub const REFERENCE: u16 = 1 << 1;
    pub const TYPES: u16 = 1 << 2;
    pub const LISTED: u16 = 1 << 3;
    pub const NUMBER: u16 = 1 << 4;
    pub const STRING: u16 = 1 << 5;
    pub const ARRAY: u16 = 1 << 6;
    pub const OBJECT: u16 = 1 << 7;
    pub const FORMAT: u16 = 1 << 8;
    pub const COMBINATORS: u16 = 1 << 9;
    pub const UNEVALUATED: u16 = 1 << 10;
}

/// What `additionalProperties` says.
#[derive(Debug, Clone, Default)]
pub enum Additional {
    #[default]
    Any,
    Deny,
    Schema(NodeId),
}

/// A `$dynamicRef`: the node it points to statically, and the `$dynamicAnchor` name it resolves
/// by dynamic scope (the outermost schema resource entered that has the anchor), when its
/// static target is such an anchor itself.
#[derive(Debug, Clone)]
pub struct Dynamic {
    pub fallback: NodeId,
    pub anchor: Option<String>,
}

/// How a node's rules are checked on the fast path's tokens (see `inline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passing {
    /// Not on the tokens: the value takes the checked path with the whole value.
    No,
    /// Its own rules, on each value (a set's scalar items compared with each other).
    Plain,
    /// A union of branches of disjoint types: the type read picks the branch.
    Union,
    /// A union of tagged objects: the tag, wherever it is in the object, picks the branch.
    Tagged,
    /// A union of constants: the value must be one of them.
    Listed,
}

/// Branches of a union told apart by a tag: each requires the member `name` with its own
/// constant (as serde's tagged enums are written), so a value's tag picks the one branch that
/// can hold.
#[derive(Debug, Clone)]
pub struct Discriminator {
    pub name: String,
    pub branches: Vec<(Value, NodeId)>,
}

impl Discriminator {
    /// The branch a value's tag names; `None` when the tag is missing or names none (then no
    /// branch holds).
    pub fn branch_of(&self, value: &Value) -> Option<NodeId> {
        self.branch_of_tag(value.get(&self.name)?)
    }

    /// The branch a tag's value names.
    pub fn branch_of_tag(&self, tag: &Value) -> Option<NodeId> {
        self.branches
            .iter()
            .find(|(constant, _)| number::same(constant, tag))
            .map(|(_, id)| *id)
    }

    /// Finds the tag of a union's branches, when there is one.
    pub(super) fn of(schema: &CompiledSchema, branches: &[NodeId]) -> Option<Discriminator> {
        let tag_of = |branch: NodeId, name: &str| -> Option<Value> {
            let node = &schema.nodes[schema.resolve(branch)];
            if !node.required.iter().any(|r| r == name) {
                return None;
            }
            let member = &schema.nodes[schema.resolve(node.property(name)?)];
            match (&member.constant, &member.enumeration) {
                (Some(constant), _) => Some(constant.clone()),
                (None, Some(values)) if values.len() == 1 => Some(values[0].clone()),
                _ => None,
            }
        };
        let first = &schema.nodes[schema.resolve(*branches.first()?)];
        first.required.iter().find_map(|name| {
            let tags: Vec<Value> = branches
                .iter()
                .map(|branch| tag_of(*branch, name))
                .collect::<Option<_>>()?;
            let distinct = tags
                .iter()
                .enumerate()
                .all(|(i, tag)| tags[..i].iter().all(|other| !number::same(other, tag)));
            distinct.then(|| Discriminator {
                name: name.clone(),
                branches: tags.into_iter().zip(branches.iter().copied()).collect(),
            })
        })
    }
}

/// One compiled schema.
#[derive(Debug, Clone, Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "Flags read off the schema, one per keyword."
)]
pub struct Node {
    /// The groups of keywords present ([`keywords`]), set once the node is built.
    pub keywords: u16,
    /// How many names of `required` are also in `properties` (counted as members are met).
    pub required_properties: usize,
    /// Per entry of `properties`: whether it is required.
    pub property_required: Vec<bool>,
    /// The numeric rules as one inclusive integer range, when they are integer bounds only
    /// (no `multipleOf`): the common case, checked on integers with two comparisons.
    pub integer_range: Option<(i64, i64)>,
    /// `false`: nothing is valid.
    pub never: bool,
    pub types: Option<Types>,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub multiple_of: Option<Number>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub pattern: Option<(String, crate::pattern::Regex)>,
    pub format: Option<Format>,
    pub items: Option<NodeId>,
    pub prefix_items: Vec<NodeId>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    pub unique_items: bool,
    pub contains: Option<NodeId>,
    pub min_contains: Option<usize>,
    pub max_contains: Option<usize>,
    pub properties: Vec<(String, NodeId)>,
    pub pattern_properties: Vec<(crate::pattern::Regex, NodeId)>,
    pub required: Vec<String>,
    pub additional: Additional,
    pub property_names: Option<NodeId>,
    pub min_properties: Option<usize>,
    pub max_properties: Option<usize>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    pub dependent_schemas: Vec<(String, NodeId)>,
    pub unevaluated_properties: Option<NodeId>,
    pub unevaluated_items: Option<NodeId>,
    pub any_of: Vec<NodeId>,
    pub one_of: Vec<NodeId>,
    pub all_of: Vec<NodeId>,
    pub not: Option<NodeId>,
    pub if_then_else: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,
    pub reference: Option<NodeId>,
    pub dynamic_reference: Option<Dynamic>,
    /// Whether the schema is a `$ref` and annotations only: the target says everything.
    pub only_reference: bool,
    /// The schema resource (`$id`) the node belongs to, for `$dynamicRef`'s scope.
    pub resource: u32,
    /// Whether this node's own keywords say more than serde enforces.
    pub beyond_serde: bool,
    /// A `default` other than `null`.
    pub has_default: bool,
}

impl Node {
    /// Whether this node's rules can be checked on each value's tokens: no unions, no `not`, no
    /// rules over several items or members, and only scalar `enum`/`const` values.
    pub(super) fn checkable_in_passing(&self) -> bool {
        let scalar = |v: &Value| !v.is_array() && !v.is_object();
        !self.never
            && self.reference.is_none()
            && self.dynamic_reference.is_none()
            && self.dependent_schemas.is_empty()
            && self.unevaluated_properties.is_none()
            && self.unevaluated_items.is_none()
            && self.any_of.is_empty()
            && self.one_of.is_empty()
            && self.all_of.is_empty()
            && self.not.is_none()
            && self.if_then_else.is_none()
            && self.contains.is_none()
            && self.dependent_required.is_empty()
            && self.pattern_properties.is_empty()
            && self.property_names.is_none()
            && self.constant.as_ref().is_none_or(scalar)
            && self.enumeration.iter().flatten().all(scalar)
    }

    /// Sets [`keywords`](Self::keywords) and the count of required properties.
    pub fn summarize(&mut self) {
        use self::keywords as k;
        let mut bits = 0;
        let mut set = |on: bool, bit: u16| {
            if on {
                bits |= bit;
            }
        };
        set(self.never, k::NEVER);
        set(
            self.reference.is_some() || self.dynamic_reference.is_some(),
            k::REFERENCE,
        );
        set(self.types.is_some(), k::TYPES);
        set(
            self.constant.is_some() || self.enumeration.is_some(),
            k::LISTED,
        );
        set(
            self.minimum.is_some()
                || self.maximum.is_some()
                || self.exclusive_minimum.is_some()
                || self.exclusive_maximum.is_some()
                || self.multiple_of.is_some(),
            k::NUMBER,
        );
        set(
            self.min_length.is_some() || self.max_length.is_some() || self.pattern.is_some(),
            k::STRING,
        );
        set(
            self.items.is_some()
                || !self.prefix_items.is_empty()
                || self.min_items.is_some()
                || self.max_items.is_some()
                || self.unique_items
                || self.contains.is_some(),
            k::ARRAY,
        );
        set(
            !self.properties.is_empty()
                || !self.pattern_properties.is_empty()
                || !matches!(self.additional, Additional::Any)
                || self.property_names.is_some()
                || !self.required.is_empty()
                || !self.dependent_required.is_empty()
                || self.min_properties.is_some()
                || self.max_properties.is_some(),
            k::OBJECT,
        );
        set(
            self.format.as_ref().is_some_and(Format::is_checked),
            k::FORMAT,
        );
        set(
            !self.all_of.is_empty()
                || !self.any_of.is_empty()
                || !self.one_of.is_empty()
                || self.not.is_some()
                || self.if_then_else.is_some()
                || !self.dependent_schemas.is_empty(),
            k::COMBINATORS,
        );
        set(
            self.unevaluated_properties.is_some() || self.unevaluated_items.is_some(),
            k::UNEVALUATED,
        );
        self.keywords = bits;
        let mut names: Vec<&String> = self.required.iter().collect();
        names.sort();
        names.dedup();
        self.required_properties = names
            .iter()
            .filter(|name| self.property(name).is_some())
            .count();
        self.property_required = self
            .properties
            .iter()
            .map(|(name, _)| self.required.contains(name))
            .collect();
        self.integer_range = self.integer_range();
    }

    fn integer_range(&self) -> Option<(i64, i64)> {
        if self.multiple_of.is_some() {
            return None;
        }
        let bound = |b: &Option<Number>| b.as_ref().map(Number::as_i64);
        let mut low = i64::MIN;
        let mut high = i64::MAX;
        match bound(&self.minimum) {
            Some(Some(min)) => low = low.max(min),
            Some(None) => return None,
            None => {}
        }
        match bound(&self.exclusive_minimum) {
            Some(Some(min)) => low = low.max(min.checked_add(1)?),
            Some(None) => return None,
            None => {}
        }
        match bound(&self.maximum) {
            Some(Some(max)) => high = high.min(max),
            Some(None) => return None,
            None => {}
        }
        match bound(&self.exclusive_maximum) {
            Some(Some(max)) => high = high.min(max.checked_sub(1)?),
            Some(None) => return None,
            None => {}
        }
        Some((low, high))
    }

    /// Every subschema node this node refers to (members, items, branches, references, ...).
    pub fn children(&self, out: &mut Vec<NodeId>) {
        out.extend(self.properties.iter().map(|(_, id)| *id));
        out.extend(self.pattern_properties.iter().map(|(_, id)| *id));
        out.extend(&self.prefix_items);
        out.extend(&self.any_of);
        out.extend(&self.one_of);
        out.extend(&self.all_of);
        out.extend(self.dependent_schemas.iter().map(|(_, id)| *id));
        if let Additional::Schema(id) = self.additional {
            out.push(id);
        }
        if let Some((condition, then, otherwise)) = self.if_then_else {
            out.push(condition);
            out.extend(then);
            out.extend(otherwise);
        }
        out.extend(
            [
                self.items,
                self.property_names,
                self.contains,
                self.not,
                self.reference,
                self.unevaluated_properties,
                self.unevaluated_items,
                self.dynamic_reference.as_ref().map(|d| d.fallback),
            ]
            .into_iter()
            .flatten(),
        );
    }

    /// The index in `properties` of a member name.
    #[inline]
    pub fn property_index(&self, name: &str) -> Option<usize> {
        // Length and first byte before the bytes: most names differ there, without a call.
        let (len, first) = (name.len(), name.as_bytes().first());
        self.properties
            .iter()
            .position(|(key, _)| key.len() == len && key.as_bytes().first() == first && key == name)
    }

    /// Whether one number keeps a node's numeric rules (bounds and step), exactly.
    pub fn number_holds(&self, n: &Number) -> bool {
        let node = self;
        // Integers against integer bounds, the common case, without the exact machinery.
        let int = n.as_i64();
        if let (Some(i), Some((low, high))) = (int, node.integer_range) {
            return low <= i && i <= high;
        }
        let cmp = |bound: &Number| match (int, bound.as_i64()) {
            (Some(i), Some(b)) => i.cmp(&b),
            _ => number::compare(n, bound),
        };
        node.minimum
            .as_ref()
            .is_none_or(|min| cmp(min) != Ordering::Less)
            && node
                .maximum
                .as_ref()
                .is_none_or(|max| cmp(max) != Ordering::Greater)
            && node
                .exclusive_minimum
                .as_ref()
                .is_none_or(|min| cmp(min) == Ordering::Greater)
            && node
                .exclusive_maximum
                .as_ref()
                .is_none_or(|max| cmp(max) == Ordering::Less)
            && node
                .multiple_of
                .as_ref()
                .is_none_or(|step| number::is_multiple(n, step))
    }

    pub fn has(&self, keywords: u16) -> bool {
        self.keywords & keywords != 0
    }

    #[inline]
    pub fn property(&self, name: &str) -> Option<NodeId> {
        self.property_index(name)
            .map(|index| self.properties[index].1)
    }

    /// The subschema an array's item at `index` is read with: its `prefixItems` entry, else
    /// `items`. The one lookup of an item's subschema for every walker.
    #[inline]
    pub fn item(&self, index: usize) -> Option<NodeId> {
        self.prefix_items.get(index).copied().or(self.items)
    }

    /// The subschema a member named `name` is read with: its `properties` entry, else the first
    /// `patternProperties` whose pattern matches, else `additionalProperties` when that is a
    /// schema. The one lookup of a member's subschema for coercion and the fast path
    /// (validation applies every matching pattern besides).
    #[inline]
    pub fn member(&self, name: &str) -> Option<NodeId> {
        self.property(name).or_else(|| {
            self.pattern_properties
                .iter()
                .find(|(regex, _)| regex.is_match(name))
                .map(|(_, id)| *id)
                .or(match self.additional {
                    Additional::Schema(id) => Some(id),
                    _ => None,
                })
        })
    }
}
