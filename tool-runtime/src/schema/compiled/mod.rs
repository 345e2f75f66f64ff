//! A parameters schema compiled once per tool: `$ref`s resolved to node indices, patterns
//! compiled, types as bit sets. Coercion and validation both walk it beside a value.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::format::Format;
use super::number;

pub(crate) type NodeId = usize;

/// JSON types as a bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Types(u8);

impl Types {
    pub(crate) const NULL: Types = Types(1);
    pub(crate) const BOOLEAN: Types = Types(2);
    pub(crate) const INTEGER: Types = Types(4);
    pub(crate) const NUMBER: Types = Types(8);
    pub(crate) const STRING: Types = Types(16);
    pub(crate) const ARRAY: Types = Types(32);
    pub(crate) const OBJECT: Types = Types(64);
    pub(crate) const ANY: Types = Types(127);

    fn named(name: &str) -> Option<Types> {
        Some(match name {
            "null" => Types::NULL,
            "boolean" => Types::BOOLEAN,
            "integer" => Types::INTEGER,
            "number" => Types::NUMBER,
            "string" => Types::STRING,
            "array" => Types::ARRAY,
            "object" => Types::OBJECT,
            _ => return None,
        })
    }

    pub(crate) fn has(self, other: Types) -> bool {
        self.0 & other.0 != 0
    }

    pub(crate) fn union(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    /// The type of a value; an integral number is an integer (and so also a number).
    pub(crate) fn of(value: &Value) -> Types {
        match value {
            Value::Null => Types::NULL,
            Value::Bool(_) => Types::BOOLEAN,
            Value::Number(n) if is_integral(n) => Types(Types::INTEGER.0 | Types::NUMBER.0),
            Value::Number(_) => Types::NUMBER,
            Value::String(_) => Types::STRING,
            Value::Array(_) => Types::ARRAY,
            Value::Object(_) => Types::OBJECT,
        }
    }

    /// Whether a value of type `value` is accepted (`number` accepts integers).
    pub(crate) fn accepts(self, value: Types) -> bool {
        self.has(value)
    }

    /// `a string`, `an integer or null`, ...
    pub(crate) fn describe(self) -> String {
        if self == Types::ANY {
            return "any JSON value".into();
        }
        let mut names: Vec<&str> = [
            (Types::STRING, "a string"),
            (Types::INTEGER, "an integer"),
            (Types::NUMBER, "a number"),
            (Types::BOOLEAN, "a boolean"),
            (Types::ARRAY, "an array"),
            (Types::OBJECT, "an object"),
            (Types::NULL, "null"),
        ]
        .into_iter()
        .filter(|(t, _)| self.has(*t))
        .map(|(_, name)| name)
        .collect();
        if self.has(Types::NUMBER) {
            names.retain(|n| *n != "an integer");
        }
        match names.as_slice() {
            [] => "nothing".into(),
            [one] => (*one).into(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        }
    }
}

pub(crate) fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(is_integral_float)
}

/// Whether a float is a whole number, without `fract` (a call into libm on the hot path).
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::float_cmp // Exactly: a whole float survives the trip through i64 unchanged.
)]
pub(crate) fn is_integral_float(f: f64) -> bool {
    // From 2^52 on, every float is whole.
    f.is_finite() && (f.abs() >= 4_503_599_627_370_496.0 || (f as i64) as f64 == f)
}

/// Which groups of keywords a node has, so that a check skips the rest at a glance.
pub(crate) mod keywords {
    pub(crate) const NEVER: u16 = 1;
    pub(crate) const REFERENCE: u16 = 1 << 1;
    pub(crate) const TYPES: u16 = 1 << 2;
    pub(crate) const LISTED: u16 = 1 << 3;
    pub(crate) const NUMBER: u16 = 1 << 4;
    pub(crate) const STRING: u16 = 1 << 5;
    pub(crate) const ARRAY: u16 = 1 << 6;
    pub(crate) const OBJECT: u16 = 1 << 7;
    pub(crate) const FORMAT: u16 = 1 << 8;
    pub(crate) const COMBINATORS: u16 = 1 << 9;
    pub(crate) const UNEVALUATED: u16 = 1 << 10;
}

/// What `additionalProperties` says.
#[derive(Debug, Clone, Default)]
pub(crate) enum Additional {
    #[default]
    Any,
    Deny,
    Schema(NodeId),
}

/// A `$dynamicRef`: the node it points to statically, and the `$dynamicAnchor` name it resolves
/// by dynamic scope (the outermost schema resource entered that has the anchor), when its
/// static target is such an anchor itself.
#[derive(Debug, Clone)]
pub(crate) struct Dynamic {
    pub(crate) fallback: NodeId,
    pub(crate) anchor: Option<String>,
}

/// How a node's rules are checked on the fast path's tokens (see `inline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Passing {
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
pub(crate) struct Discriminator {
    pub(crate) name: String,
    pub(crate) branches: Vec<(Value, NodeId)>,
}

impl Discriminator {
    /// The branch a value's tag names; `None` when the tag is missing or names none (then no
    /// branch holds).
    pub(crate) fn branch_of(&self, value: &Value) -> Option<NodeId> {
        self.branch_of_tag(value.get(&self.name)?)
    }

    /// The branch a tag's value names.
    pub(crate) fn branch_of_tag(&self, tag: &Value) -> Option<NodeId> {
        self.branches
            .iter()
            .find(|(constant, _)| number::same(constant, tag))
            .map(|(_, id)| *id)
    }

    /// Finds the tag of a union's branches, when there is one.
    fn of(schema: &CompiledSchema, branches: &[NodeId]) -> Option<Discriminator> {
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
#[allow(clippy::struct_excessive_bools)] // Flags read off the schema, one per keyword.
pub(crate) struct Node {
    /// The groups of keywords present ([`keywords`]), set once the node is built.
    pub(crate) keywords: u16,
    /// How many names of `required` are also in `properties` (counted as members are met).
    pub(crate) required_properties: usize,
    /// Per entry of `properties`: whether it is required.
    pub(crate) property_required: Vec<bool>,
    /// The numeric rules as one inclusive integer range, when they are integer bounds only
    /// (no `multipleOf`): the common case, checked on integers with two comparisons.
    pub(crate) integer_range: Option<(i64, i64)>,
    /// `false`: nothing is valid.
    pub(crate) never: bool,
    pub(crate) types: Option<Types>,
    pub(crate) enumeration: Option<Vec<Value>>,
    pub(crate) constant: Option<Value>,
    pub(crate) minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) exclusive_minimum: Option<Number>,
    pub(crate) exclusive_maximum: Option<Number>,
    pub(crate) multiple_of: Option<Number>,
    pub(crate) min_length: Option<usize>,
    pub(crate) max_length: Option<usize>,
    pub(crate) pattern: Option<(String, regex_lite::Regex)>,
    pub(crate) format: Option<Format>,
    pub(crate) items: Option<NodeId>,
    pub(crate) prefix_items: Vec<NodeId>,
    pub(crate) min_items: Option<usize>,
    pub(crate) max_items: Option<usize>,
    pub(crate) unique_items: bool,
    pub(crate) contains: Option<NodeId>,
    pub(crate) min_contains: Option<usize>,
    pub(crate) max_contains: Option<usize>,
    pub(crate) properties: Vec<(String, NodeId)>,
    pub(crate) pattern_properties: Vec<(regex_lite::Regex, NodeId)>,
    pub(crate) required: Vec<String>,
    pub(crate) additional: Additional,
    pub(crate) property_names: Option<NodeId>,
    pub(crate) min_properties: Option<usize>,
    pub(crate) max_properties: Option<usize>,
    pub(crate) dependent_required: Vec<(String, Vec<String>)>,
    pub(crate) dependent_schemas: Vec<(String, NodeId)>,
    pub(crate) unevaluated_properties: Option<NodeId>,
    pub(crate) unevaluated_items: Option<NodeId>,
    pub(crate) any_of: Vec<NodeId>,
    pub(crate) one_of: Vec<NodeId>,
    pub(crate) all_of: Vec<NodeId>,
    pub(crate) not: Option<NodeId>,
    pub(crate) if_then_else: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,
    pub(crate) reference: Option<NodeId>,
    pub(crate) dynamic_reference: Option<Dynamic>,
    /// Whether the schema is a `$ref` and annotations only: the target says everything.
    pub(crate) only_reference: bool,
    /// The schema resource (`$id`) the node belongs to, for `$dynamicRef`'s scope.
    pub(crate) resource: u32,
    /// Whether this node's own keywords say more than serde enforces.
    pub(crate) beyond_serde: bool,
    /// A `default` other than `null`.
    pub(crate) has_default: bool,
}

impl Node {
    /// Whether this node's rules can be checked on each value's tokens: no unions, no `not`, no
    /// rules over several items or members, and only scalar `enum`/`const` values.
    fn checkable_in_passing(&self) -> bool {
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
    pub(crate) fn summarize(&mut self) {
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
    pub(crate) fn children(&self, out: &mut Vec<NodeId>) {
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
    pub(crate) fn property_index(&self, name: &str) -> Option<usize> {
        // Length and first byte before the bytes: most names differ there, without a call.
        let (len, first) = (name.len(), name.as_bytes().first());
        self.properties
            .iter()
            .position(|(key, _)| key.len() == len && key.as_bytes().first() == first && key == name)
    }

    /// Whether one number keeps a node's numeric rules (bounds and step), exactly.
    pub(crate) fn number_holds(&self, n: &Number) -> bool {
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

    pub(crate) fn has(&self, keywords: u16) -> bool {
        self.keywords & keywords != 0
    }

    #[inline]
    pub(crate) fn property(&self, name: &str) -> Option<NodeId> {
        self.property_index(name)
            .map(|index| self.properties[index].1)
    }
}

/// A tool's parameters schema, compiled for coercion and validation.
///
/// Built once per tool (a [`ToolDefinition`](crate::ToolDefinition) caches it). Keywords it
/// does not enforce are listed by [`unsupported`](Self::unsupported).
#[derive(Debug, Clone)]
#[allow(clippy::struct_excessive_bools)] // Facts about the schema, computed once, each read apart.
pub struct CompiledSchema {
    pub(crate) nodes: Vec<Node>,
    types: Vec<Types>,
    /// Per node: whether it or anything below it says more than serde enforces.
    checked: Vec<bool>,
    /// Per node: how its own rules are checked on the fast path's tokens (`inline`).
    passing: Vec<Passing>,
    /// Per node: the node its `$ref`-only chain leads to (itself for any other node).
    targets: Vec<NodeId>,
    /// Per node with `anyOf` or `oneOf` (not both) whose branches carry a tag: the tag.
    discriminators: Vec<Option<Discriminator>>,
    /// Per node that is a union of constants only: the values it allows.
    listed: Vec<Option<Vec<Value>>>,
    /// Whether every rule beyond serde can be checked on the tokens (no union, set, `not`, ...
    /// that needs the whole value): then the fast path checks them on the arguments' tape.
    inline: bool,
    unsupported: Vec<String>,
    beyond_serde: bool,
    /// Per schema resource: its `$dynamicAnchor` names and nodes.
    pub(crate) dynamic_anchors: Vec<Vec<(String, NodeId)>>,
    /// Whether some `$dynamicRef` resolves by dynamic scope (validation then tracks it).
    pub(crate) dynamic: bool,
    /// Some optional property takes `null` and has a default other than `null`.
    null_is_not_default: bool,
}

pub(crate) const ROOT: NodeId = 0;

impl CompiledSchema {
    /// Compiles a schema (JSON Schema draft 2020-12). References resolve within the document
    /// (`#/$defs/..`, `#/definitions/..`, `#`, `$id`s, `$anchor`s, `$dynamicRef`); a reference
    /// that resolves to nothing accepts anything and is reported in
    /// [`unsupported`](Self::unsupported). For references to other documents, see
    /// [`compile_with`](Self::compile_with).
    pub fn compile(schema: &Value) -> Self {
        Self::compile_with(schema, &|_| None)
    }

    /// Compiles a schema whose references may point into other documents: `retrieve` is asked
    /// for each document by its absolute URI (without fragment), once, while compiling, and
    /// gives `None` for one it does not have. Nothing is fetched from the network by
    /// toolwright itself.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::args::CompiledSchema;
    ///
    /// let units = json!({"$defs": {"unit": {"enum": ["celsius", "fahrenheit"]}}});
    /// let schema = CompiledSchema::compile_with(
    ///     &json!({"properties": {"unit": {"$ref": "https://example.org/units#/$defs/unit"}}}),
    ///     &|uri| (uri == "https://example.org/units").then(|| units.clone()),
    /// );
    /// assert!(schema.unsupported().is_empty());
    /// assert!(schema.validate(&json!({"unit": "kelvin"}))[0].to_string().contains("celsius"));
    /// ```
    pub fn compile_with(schema: &Value, retrieve: &dyn Fn(&str) -> Option<Value>) -> Self {
        let build::Compiled {
            nodes,
            unsupported,
            beyond_serde,
            dynamic_anchors,
            dynamic,
        } = build::compile(schema, retrieve);
        let mut nodes = nodes;
        nodes.iter_mut().for_each(Node::summarize);
        let types = CompiledSchema::compute_types(&nodes);
        let null_is_not_default = nodes.iter().any(|node| {
            node.properties.iter().any(|(name, id)| {
                nodes[*id].has_default
                    && types[*id].has(Types::NULL)
                    && !node.required.iter().any(|r| r == name)
            })
        });
        let checked = CompiledSchema::compute_checked(&nodes);
        let mut compiled = CompiledSchema {
            nodes,
            types,
            checked,
            passing: Vec::new(),
            targets: Vec::new(),
            discriminators: Vec::new(),
            listed: Vec::new(),
            inline: false,
            unsupported,
            beyond_serde,
            dynamic_anchors,
            dynamic,
            null_is_not_default,
        };
        compiled.targets = (0..compiled.nodes.len())
            .map(|id| compiled.resolve(id))
            .collect();
        compiled.discriminators = compiled
            .nodes
            .iter()
            .map(
                |node| match (node.any_of.is_empty(), node.one_of.is_empty()) {
                    (false, true) => Discriminator::of(&compiled, &node.any_of),
                    (true, false) => Discriminator::of(&compiled, &node.one_of),
                    _ => None,
                },
            )
            .collect();
        compiled.listed = (0..compiled.nodes.len())
            .map(|id| compiled.union_of_constants(id))
            .collect();
        compiled.passing = (0..compiled.nodes.len())
            .map(|id| compiled.passing_kind(id))
            .collect();
        compiled.inline = (0..compiled.nodes.len()).all(|id| {
            !compiled.checked[id]
                || compiled.nodes[id].only_reference
                || compiled.passing[id] != Passing::No
        });
        compiled
    }

    /// The values a union of constants allows: each branch a `const` or `enum` of scalars and
    /// nothing else, no value in two branches (which `oneOf` would refuse).
    fn union_of_constants(&self, id: NodeId) -> Option<Vec<Value>> {
        let node = &self.nodes[id];
        if node.keywords != keywords::COMBINATORS
            || !node.all_of.is_empty()
            || node.not.is_some()
            || node.if_then_else.is_some()
            || !node.dependent_schemas.is_empty()
            || node.any_of.is_empty() == node.one_of.is_empty()
        {
            return None;
        }
        let branches = if node.any_of.is_empty() {
            &node.one_of
        } else {
            &node.any_of
        };
        let mut values: Vec<Value> = Vec::new();
        for branch in branches {
            let branch = &self.nodes[self.resolve(*branch)];
            if branch.keywords & !(keywords::LISTED | keywords::TYPES) != 0
                || (branch.constant.is_none() && branch.enumeration.is_none())
            {
                return None;
            }
            for value in branch
                .constant
                .iter()
                .chain(branch.enumeration.iter().flatten())
            {
                let fits = branch.types.is_none_or(|t| t.accepts(Types::of(value)));
                if value.is_array() || value.is_object() || !fits {
                    return None;
                }
                if values.iter().any(|v| number::same(v, value)) {
                    return None;
                }
                values.push(value.clone());
            }
        }
        Some(values)
    }

    /// The values of a union of constants.
    pub(crate) fn listed(&self, id: NodeId) -> Option<&[Value]> {
        self.listed[id].as_deref()
    }

    /// How a node's rules are checked on the fast path's tokens (see `inline`).
    fn passing_kind(&self, id: NodeId) -> Passing {
        let node = &self.nodes[id];
        if node.checkable_in_passing() {
            // A set: its items are compared as they pass, when they are scalars.
            let scalars = Types::NULL
                .union(Types::BOOLEAN)
                .union(Types::INTEGER)
                .union(Types::NUMBER)
                .union(Types::STRING);
            let items_scalar = node.items.is_some_and(|items| {
                let types = self.types_of(items);
                types.0 & !scalars.0 == 0
            });
            return if !node.unique_items || (items_scalar && node.prefix_items.is_empty()) {
                Passing::Plain
            } else {
                Passing::No
            };
        }
        // A union and nothing else (annotations aside).
        let only_union = node.keywords == keywords::COMBINATORS
            && node.all_of.is_empty()
            && node.not.is_none()
            && node.if_then_else.is_none()
            && node.dependent_schemas.is_empty()
            && (node.any_of.is_empty() != node.one_of.is_empty());
        if !only_union {
            return Passing::No;
        }
        if self.discriminators[id].is_some() {
            return Passing::Tagged;
        }
        if self.listed[id].is_some() {
            return Passing::Listed;
        }
        // Branches of disjoint types (`integer` and `number` count as one): the type of the
        // value read picks the branch.
        let branches = if node.any_of.is_empty() {
            &node.one_of
        } else {
            &node.any_of
        };
        let family = |types: Types| {
            if types.has(Types::INTEGER) || types.has(Types::NUMBER) {
                types.union(Types::INTEGER).union(Types::NUMBER)
            } else {
                types
            }
        };
        let disjoint = branches.iter().enumerate().all(|(i, a)| {
            branches[..i]
                .iter()
                .all(|b| family(self.types_of(*a)).0 & family(self.types_of(*b)).0 == 0)
        });
        if disjoint {
            Passing::Union
        } else {
            Passing::No
        }
    }

    /// Keywords of the schema that are not enforced (with their location), and unresolvable
    /// references or invalid patterns. Empty for every schema schemars generates.
    pub fn unsupported(&self) -> &[String] {
        &self.unsupported
    }

    /// Whether the schema says more than serde's derived `Deserialize` enforces by itself
    /// (types, required and unknown fields, integer widths, tuples): ranges, lengths, patterns,
    /// formats, enums, unique items and the like, and nested structs (which serde also takes
    /// from an array of their fields). When it does not, a value that deserializes into a
    /// generated arguments struct is valid, and validation can be skipped.
    pub fn constrains_beyond_types(&self) -> bool {
        self.beyond_serde
    }

    /// Whether some optional property takes `null` as a value of its own and also has a default
    /// other than `null`: there, a model's `null` (meaning "not given") and serde's reading of it
    /// (`None`) differ, so arguments take the long way, where `null` becomes "absent".
    pub(crate) fn null_is_not_default(&self) -> bool {
        self.null_is_not_default
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The tag of a node's union, whichever of `anyOf` and `oneOf` it has (only a node with one
    /// of the two has a tag).
    pub(crate) fn discriminator(&self, id: NodeId) -> Option<&Discriminator> {
        self.discriminators[id].as_ref()
    }

    /// [`resolve`](Self::resolve), computed once per node.
    pub(crate) fn target(&self, id: NodeId) -> NodeId {
        self.targets[id]
    }

    /// Follows `$ref`-only nodes to the node that holds keywords.
    pub(crate) fn resolve(&self, mut id: NodeId) -> NodeId {
        for _ in 0..32 {
            let node = &self.nodes[id];
            match node.reference {
                Some(target) if node.only_reference => id = target,
                _ => break,
            }
        }
        id
    }

    /// The types a node accepts, looking through `$ref`, `anyOf`, `oneOf` and `allOf`
    /// (computed once per node when the schema is compiled).
    pub(crate) fn types_of(&self, id: NodeId) -> Types {
        self.types[id]
    }

    /// Whether a node, or anything below it, says more than serde enforces: values there must
    /// be checked against the schema, not only deserialized.
    pub(crate) fn needs_check(&self, id: NodeId) -> bool {
        self.checked[id]
    }

    /// Whether every rule beyond serde can be checked on the arguments' tokens.
    pub(crate) fn checks_inline(&self) -> bool {
        self.inline
    }

    /// Whether a node's own rules can be checked on a value's tokens.
    pub(crate) fn passing(&self, id: NodeId) -> Passing {
        self.passing[id]
    }

    /// Every node's `needs_check`; a reference cycle counts as needing it.
    fn compute_checked(nodes: &[Node]) -> Vec<bool> {
        let mut children = Vec::new();
        per_node(nodes, true, &mut |node, value| {
            if node.beyond_serde {
                return true;
            }
            children.clear();
            node.children(&mut children);
            children.iter().any(|child| value(*child))
        })
    }

    /// Every node's accepted types; a reference cycle counts as accepting anything where it
    /// loops.
    fn compute_types(nodes: &[Node]) -> Vec<Types> {
        per_node(nodes, Types::ANY, &mut |node, visit| {
            if node.never {
                return Types::default();
            }
            let mut types = node.types.unwrap_or(Types::ANY);
            if node.types.is_none() && (node.constant.is_some() || node.enumeration.is_some()) {
                types = node
                    .constant
                    .iter()
                    .chain(node.enumeration.iter().flatten())
                    .fold(Types::default(), |acc, v| acc.union(Types::of(v)));
            }
            if let Some(target) = node.reference {
                types = intersect(types, visit(target));
            }
            let branches = if node.any_of.is_empty() {
                &node.one_of
            } else {
                &node.any_of
            };
            if !branches.is_empty() {
                let union = branches
                    .iter()
                    .fold(Types::default(), |acc, b| acc.union(visit(*b)));
                types = intersect(types, union);
            }
            for part in &node.all_of {
                types = intersect(types, visit(*part));
            }
            types
        })
    }
}

/// A value per node, computed from the node and its children's values, each node once (memoized,
/// so linear in the schema); `on_cycle` where a reference loops back to a node being computed.
/// Without recursion (children first, on a stack of its own): a schema's nesting takes no
/// thread stack.
fn per_node<T: Copy>(nodes: &[Node], on_cycle: T, rule: &mut Rule<'_, T>) -> Vec<T> {
    let mut memo: Vec<Option<T>> = vec![None; nodes.len()];
    // Expanded and not finished: the nodes on the path from the start to the current one.
    let mut busy = vec![false; nodes.len()];
    let mut stack: Vec<(NodeId, bool)> = Vec::new();
    let mut children = Vec::new();
    for start in 0..nodes.len() {
        stack.push((start, false));
        while let Some((id, expanded)) = stack.pop() {
            if memo[id].is_some() {
                continue;
            }
            if expanded {
                // Every child is finished, or on the path (a cycle).
                let value = rule(&nodes[id], &|child| memo[child].unwrap_or(on_cycle));
                busy[id] = false;
                memo[id] = Some(value);
            } else if !busy[id] {
                busy[id] = true;
                stack.push((id, true));
                children.clear();
                nodes[id].children(&mut children);
                for child in &children {
                    if memo[*child].is_none() && !busy[*child] {
                        stack.push((*child, false));
                    }
                }
            }
        }
    }
    memo.into_iter()
        .map(|value| value.unwrap_or(on_cycle))
        .collect()
}

/// How a node's value follows from the node and (through the callback) its children's.
type Rule<'a, T> = dyn FnMut(&Node, &dyn Fn(NodeId) -> T) -> T + 'a;

fn intersect(a: Types, b: Types) -> Types {
    // `integer` within `number` stays integer.
    let mut bits = a.0 & b.0;
    if a.has(Types::NUMBER) && b.has(Types::INTEGER) {
        bits |= Types::INTEGER.0;
    }
    if b.has(Types::NUMBER) && a.has(Types::INTEGER) {
        bits |= Types::INTEGER.0;
    }
    Types(bits)
}

mod build;
mod describe;
mod uri;

pub(crate) use self::describe::{join_or, one_of_values};
