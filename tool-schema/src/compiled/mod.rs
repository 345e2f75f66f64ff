//! A parameters schema compiled once per tool: `$ref`s resolved to node indices, patterns
//! compiled, types as bit sets. Coercion and validation both walk it beside a value.

use serde_json::Value;

use super::number;

pub type NodeId = usize;

/// A tool's parameters schema, compiled for coercion and validation.
///
/// Built once per tool (a `ToolDefinition` caches it). Keywords it
/// does not enforce are listed by [`unsupported`](Self::unsupported).
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "Facts about the schema, computed once, each read apart."
)]
pub struct CompiledSchema {
    pub nodes: Vec<Node>,
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
    /// Whether every rule beyond serde is about one value at a time: then the text source checks
    /// them as it reads (`inline`'s `Rules`), with no tape.
    in_passing: bool,
    /// Per node: the integers it takes, when that range is all it says of an integer (the
    /// commonest rule checked in passing, then two comparisons).
    integers: Vec<Option<(i64, i64)>>,
    /// Per object node whose members' subschemas come from `properties` alone: the members some
    /// rule is about (`None`: look each member up in full).
    checked_members: Vec<Option<CheckedMembers>>,
    /// Per node: what an object, then an array, entering it gives in passing (`inline`'s
    /// `Rules::enter`): the node its contents answer to, or `None` when the node refuses that
    /// type. Decided by the node alone, so once, when the schema is compiled.
    containers: Vec<[Option<usize>; 2]>,
    unsupported: Vec<String>,
    beyond_serde: bool,
    beyond_shapes: bool,
    /// Per schema resource: its `$dynamicAnchor` names and nodes.
    pub dynamic_anchors: Vec<Vec<(String, NodeId)>>,
    /// Whether some `$dynamicRef` resolves by dynamic scope (validation then tracks it).
    pub dynamic: bool,
    /// Some optional property takes `null` and has a default other than `null`.
    null_is_not_default: bool,
}

pub const ROOT: NodeId = 0;

/// An object node's members some rule is about: each name and its subschema.
type CheckedMembers = Box<[(Box<str>, NodeId)]>;

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
    /// use toolwright_schema::CompiledSchema;
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
            beyond_shapes,
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
            in_passing: false,
            integers: Vec::new(),
            checked_members: Vec::new(),
            containers: Vec::new(),
            unsupported,
            beyond_serde,
            beyond_shapes,
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
        compiled.integers = (0..compiled.nodes.len())
            .map(|id| compiled.integers_only(id))
            .collect();
        compiled.checked_members = compiled
            .nodes
            .iter()
            .map(|node| {
                let plain = node.pattern_properties.is_empty()
                    && !matches!(node.additional, Additional::Schema(_));
                plain.then(|| {
                    node.properties
                        .iter()
                        .filter(|(_, child)| compiled.checked[*child])
                        .map(|(name, child)| (name.as_str().into(), *child))
                        .collect()
                })
            })
            .collect();
        compiled.containers = (0..compiled.nodes.len())
            .map(|id| compiled.containers_of(id))
            .collect();
        compiled.in_passing = compiled.inline
            && (0..compiled.nodes.len()).all(|id| {
                !compiled.checked[id]
                    || compiled.nodes[id].only_reference
                    || match compiled.passing[id] {
                        // A set compares its items with each other: on the tape.
                        Passing::Plain => !compiled.nodes[id].unique_items,
                        Passing::Listed | Passing::Union => true,
                        Passing::Tagged | Passing::No => false,
                    }
            });
        compiled
    }

    /// The integers a node takes when a range is all it says of an integer: no union, list,
    /// step or format but an integer width (which narrows the range).
    fn integers_only(&self, id: NodeId) -> Option<(i64, i64)> {
        let node = &self.nodes[id];
        let own = keywords::TYPES | keywords::NUMBER | keywords::FORMAT;
        if self.passing[id] != Passing::Plain
            || node.keywords & !own != 0
            || !node.types.is_none_or(|t| t.accepts(Types::INTEGER))
        {
            return None;
        }
        let (mut low, mut high) = node.integer_range?;
        match &node.format {
            None => {}
            Some(format) => {
                let (min, max) = format.integer_range()?;
                low = low.max(i64::try_from(min).unwrap_or(i64::MIN));
                high = high.min(i64::try_from(max).unwrap_or(i64::MAX));
            }
        }
        Some((low, high))
    }

    /// The integers a node takes when a range is all it says of an integer (no union, list,
    /// step or format but an integer width), computed once per node.
    pub fn integers(&self, id: NodeId) -> Option<(i64, i64)> {
        self.integers[id]
    }

    /// The members of an object node some rule is about, when its members' subschemas come
    /// from `properties` alone (`None`: [`Node::member`] finds them).
    pub fn checked_members(&self, id: NodeId) -> Option<&[(Box<str>, NodeId)]> {
        self.checked_members[id].as_deref()
    }

    /// What an object (`[0]`) or an array (`[1]`) entering node `id` gives in passing,
    /// computed once per node.
    pub(crate) fn containers(&self, id: NodeId) -> [Option<usize>; 2] {
        self.containers[id]
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
    pub fn listed(&self, id: NodeId) -> Option<&[Value]> {
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

    /// [`constrains_beyond_types`](Self::constrains_beyond_types), but for nested structs'
    /// being objects: what toolwright's own deserializer enforces when it reads every struct
    /// itself (it takes a struct from an object only). Serde reads a struct from a value it kept
    /// aside instead (untagged or internally tagged enums, `#[serde(flatten)]`), and takes an
    /// array there too, only after asking for a value of any type, which a read notes
    /// (`toolwright_json::de::Trail::buffered`): a read that did not, of a schema that says no
    /// more than this, is valid.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_schema::CompiledSchema;
    ///
    /// let nested = json!({
    ///     "type": "object",
    ///     "properties": {"at": {"type": "object", "properties": {"x": {"type": "number"}}}}
    /// });
    /// let schema = CompiledSchema::compile(&nested);
    /// assert!(schema.constrains_beyond_types());
    /// assert!(!schema.constrains_beyond_shapes());
    /// ```
    pub fn constrains_beyond_shapes(&self) -> bool {
        self.beyond_shapes
    }

    /// Whether some optional property takes `null` as a value of its own and also has a default
    /// other than `null`: there, a model's `null` (meaning "not given") and serde's reading of it
    /// (`None`) differ, so arguments take the long way, where `null` becomes "absent".
    pub fn null_is_not_default(&self) -> bool {
        self.null_is_not_default
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The tag of a node's union, whichever of `anyOf` and `oneOf` it has (only a node with one
    /// of the two has a tag).
    pub fn discriminator(&self, id: NodeId) -> Option<&Discriminator> {
        self.discriminators[id].as_ref()
    }

    /// [`resolve`](Self::resolve), computed once per node.
    pub fn target(&self, id: NodeId) -> NodeId {
        self.targets[id]
    }

    /// Follows `$ref`-only nodes to the node that holds keywords.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
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
    pub fn types_of(&self, id: NodeId) -> Types {
        self.types[id]
    }

    /// Whether a node, or anything below it, says more than serde enforces: values there must
    /// be checked against the schema, not only deserialized.
    pub fn needs_check(&self, id: NodeId) -> bool {
        self.checked[id]
    }

    /// Whether every rule beyond serde can be checked on the arguments' tokens.
    pub fn checks_inline(&self) -> bool {
        self.inline
    }

    /// Whether every rule beyond serde is about one value at a time (ranges, lengths, patterns,
    /// formats, enums of scalars, counts, unions the type read picks): then a text source checks
    /// them as it reads each value (the schema is its `Rules`), and no tape is needed.
    pub fn checks_in_passing(&self) -> bool {
        self.in_passing
    }

    /// Whether a node's own rules can be checked on a value's tokens.
    pub fn passing(&self, id: NodeId) -> Passing {
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
mod node;
mod passing;
mod types;

pub use self::describe::{join_or, one_of_values};
pub use self::node::{Additional, Discriminator, Dynamic, Node, Passing, keywords};
pub use self::types::Types;
pub use crate::number::{is_integral, is_integral_float};
