//! A parameters schema compiled once per tool: `$ref`s resolved to node indices, patterns
//! compiled, types as bit sets. Coercion and validation both walk it beside a value.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::format::Format;

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
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.is_finite())
}

/// What `additionalProperties` says.
#[derive(Debug, Clone, Default)]
pub(crate) enum Additional {
    #[default]
    Any,
    Deny,
    Schema(NodeId),
}

/// One compiled schema.
#[derive(Debug, Clone, Default)]
pub(crate) struct Node {
    /// `false`: nothing is valid.
    pub(crate) never: bool,
    pub(crate) types: Option<Types>,
    pub(crate) enumeration: Option<Vec<Value>>,
    pub(crate) constant: Option<Value>,
    pub(crate) minimum: Option<f64>,
    pub(crate) maximum: Option<f64>,
    pub(crate) exclusive_minimum: Option<f64>,
    pub(crate) exclusive_maximum: Option<f64>,
    pub(crate) multiple_of: Option<f64>,
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
    pub(crate) any_of: Vec<NodeId>,
    pub(crate) one_of: Vec<NodeId>,
    pub(crate) all_of: Vec<NodeId>,
    pub(crate) not: Option<NodeId>,
    pub(crate) if_then_else: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,
    pub(crate) reference: Option<NodeId>,
    pub(crate) description: Option<String>,
}

impl Node {
    pub(crate) fn property(&self, name: &str) -> Option<NodeId> {
        self.properties
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, id)| *id)
    }
}

/// A tool's parameters schema, compiled for coercion and validation.
///
/// Built once per tool (a [`ToolDefinition`](crate::ToolDefinition) caches it). Keywords it
/// does not enforce are listed by [`unsupported`](Self::unsupported).
#[derive(Debug, Clone)]
pub struct CompiledSchema {
    pub(crate) nodes: Vec<Node>,
    types: Vec<Types>,
    unsupported: Vec<String>,
    beyond_serde: bool,
}

pub(crate) const ROOT: NodeId = 0;

impl CompiledSchema {
    /// Compiles a schema. `$ref`s point into the same document (`#/$defs/..`, `#/definitions/..`,
    /// `#`); a reference that resolves to nothing accepts anything and is reported in
    /// [`unsupported`](Self::unsupported).
    pub fn compile(schema: &Value) -> Self {
        let mut compiler = Compiler {
            root: schema,
            nodes: Vec::new(),
            refs: HashMap::new(),
            unsupported: Vec::new(),
            beyond_serde: false,
        };
        compiler.node(schema, "#");
        CompiledSchema {
            types: CompiledSchema::compute_types(&compiler.nodes),
            nodes: compiler.nodes,
            unsupported: compiler.unsupported,
            beyond_serde: compiler.beyond_serde,
        }
    }

    /// Keywords of the schema that are not enforced (with their location), and unresolvable
    /// references or invalid patterns. Empty for every schema schemars generates.
    pub fn unsupported(&self) -> &[String] {
        &self.unsupported
    }

    /// Whether the schema says more than serde's derived `Deserialize` enforces by itself
    /// (types, required and unknown fields, integer widths, tuples): ranges, lengths, patterns,
    /// formats, enums, unique items and the like. When it does not, a value that deserializes
    /// into a generated arguments struct is valid, and validation can be skipped.
    pub fn constrains_beyond_types(&self) -> bool {
        self.beyond_serde
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// Follows `$ref`-only nodes to the node that holds keywords.
    pub(crate) fn resolve(&self, mut id: NodeId) -> NodeId {
        for _ in 0..32 {
            let node = &self.nodes[id];
            match node.reference {
                Some(target) if is_only_reference(node) => id = target,
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

    /// Every node's accepted types, each computed once (memoized, so linear in the schema); a
    /// reference cycle counts as accepting anything at the point where it loops.
    fn compute_types(nodes: &[Node]) -> Vec<Types> {
        fn visit(
            nodes: &[Node],
            id: NodeId,
            memo: &mut [Option<Types>],
            busy: &mut [bool],
        ) -> Types {
            if let Some(types) = memo[id] {
                return types;
            }
            if busy[id] {
                return Types::ANY;
            }
            busy[id] = true;
            let node = &nodes[id];
            let types = if node.never {
                Types::default()
            } else {
                let mut types = node.types.unwrap_or(Types::ANY);
                if node.types.is_none() && (node.constant.is_some() || node.enumeration.is_some()) {
                    types = node
                        .constant
                        .iter()
                        .chain(node.enumeration.iter().flatten())
                        .fold(Types::default(), |acc, v| acc.union(Types::of(v)));
                }
                if let Some(target) = node.reference {
                    types = intersect(types, visit(nodes, target, memo, busy));
                }
                let branches = if node.any_of.is_empty() {
                    &node.one_of
                } else {
                    &node.any_of
                };
                if !branches.is_empty() {
                    let union = branches.iter().fold(Types::default(), |acc, b| {
                        acc.union(visit(nodes, *b, memo, busy))
                    });
                    types = intersect(types, union);
                }
                for part in &node.all_of {
                    types = intersect(types, visit(nodes, *part, memo, busy));
                }
                types
            };
            busy[id] = false;
            memo[id] = Some(types);
            types
        }
        let mut memo = vec![None; nodes.len()];
        let mut busy = vec![false; nodes.len()];
        (0..nodes.len())
            .map(|id| visit(nodes, id, &mut memo, &mut busy))
            .collect()
    }

    /// A short description of what a node accepts, for messages: `an integer from 1 to 50`,
    /// `one of "celsius" or "fahrenheit"`, `an array of strings`.
    pub(crate) fn describe(&self, id: NodeId) -> String {
        self.describe_within(id, 0)
    }

    /// When every branch is a `const`, an `enum` or `null` (as schemars writes unit enums and
    /// `Option`s of them), the values they allow, in order.
    fn listed_values(&self, branches: &[NodeId]) -> Option<Vec<Value>> {
        self.listed_values_within(branches, 0)
    }

    fn listed_values_within(&self, branches: &[NodeId], depth: usize) -> Option<Vec<Value>> {
        if depth > 8 {
            return None;
        }
        let mut values = Vec::new();
        for branch in branches {
            let node = &self.nodes[self.resolve(*branch)];
            if let Some(constant) = &node.constant {
                values.push(constant.clone());
            } else if let Some(listed) = &node.enumeration {
                values.extend(listed.iter().cloned());
            } else if node.types == Some(Types::NULL) {
                values.push(Value::Null);
            } else if !node.one_of.is_empty() || !node.any_of.is_empty() {
                let inner = if node.any_of.is_empty() {
                    &node.one_of
                } else {
                    &node.any_of
                };
                if inner.contains(branch) {
                    return None;
                }
                values.extend(self.listed_values_within(inner, depth + 1)?);
            } else {
                return None;
            }
        }
        Some(values)
    }

    fn describe_within(&self, id: NodeId, depth: usize) -> String {
        let id = self.resolve(id);
        let node = &self.nodes[id];
        if depth > 3 {
            return self.types_of(id).describe();
        }
        if let Some(value) = &node.constant {
            return format!("exactly {value}");
        }
        if let Some(values) = &node.enumeration {
            return one_of_values(values);
        }
        let branches = if node.any_of.is_empty() {
            &node.one_of
        } else {
            &node.any_of
        };
        if !branches.is_empty() && node.types.is_none() {
            if let Some(values) = self.listed_values(branches) {
                return one_of_values(&values);
            }
            let mut parts: Vec<String> = Vec::new();
            for branch in branches {
                let text = self.describe_within(*branch, depth + 1);
                if !parts.contains(&text) {
                    parts.push(text);
                }
            }
            return join_or(&parts);
        }
        let types = self.types_of(id);
        // `an integer at least 0, or null`: bounds belong to the non-null part.
        let nullable = types.has(Types::NULL) && types != Types::NULL;
        let base = if nullable {
            Types(types.0 & !Types::NULL.0)
        } else {
            types
        };
        let mut text = base.describe();
        if base == Types::ARRAY
            && let Some(items) = node.items
        {
            let inner = self.describe_within(items, depth + 1);
            text = format!("an array of {}", plural(&inner));
        }
        let mut bounds = Vec::new();
        match (node.minimum, node.maximum) {
            (Some(min), Some(max)) => bounds.push(format!("from {} to {}", num(min), num(max))),
            (Some(min), None) => bounds.push(format!("at least {}", num(min))),
            (None, Some(max)) => bounds.push(format!("at most {}", num(max))),
            (None, None) => {}
        }
        if let Some(min) = node.exclusive_minimum {
            bounds.push(format!("greater than {}", num(min)));
        }
        if let Some(max) = node.exclusive_maximum {
            bounds.push(format!("less than {}", num(max)));
        }
        if let Some(step) = node.multiple_of {
            bounds.push(format!("a multiple of {}", num(step)));
        }
        if let Some(format) = &node.format
            && let Some(name) = format.describe()
        {
            bounds.push(name);
        }
        match (node.min_length, node.max_length) {
            (Some(min), Some(max)) if min == max => {
                bounds.push(format!("of exactly {min} characters"));
            }
            (Some(min), Some(max)) => bounds.push(format!("of {min} to {max} characters")),
            (Some(min), None) => bounds.push(format!("of at least {min} characters")),
            (None, Some(max)) => bounds.push(format!("of at most {max} characters")),
            (None, None) => {}
        }
        if let Some((pattern, _)) = &node.pattern {
            bounds.push(format!("matching /{pattern}/"));
        }
        match (node.min_items, node.max_items) {
            (Some(min), Some(max)) => bounds.push(format!("with {min} to {max} items")),
            (Some(min), None) => bounds.push(format!("with at least {min} items")),
            (None, Some(max)) => bounds.push(format!("with at most {max} items")),
            (None, None) => {}
        }
        if node.unique_items {
            bounds.push("without duplicates".into());
        }
        for bound in bounds {
            let _ = write!(text, " {bound}");
        }
        if nullable {
            text.push_str(", or null");
        }
        text
    }
}

fn is_only_reference(node: &Node) -> bool {
    node.types.is_none()
        && node.any_of.is_empty()
        && node.one_of.is_empty()
        && node.all_of.is_empty()
        && node.properties.is_empty()
        && node.enumeration.is_none()
        && node.constant.is_none()
}

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

pub(crate) fn one_of_values(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().take(12).map(Value::to_string).collect();
    let mut text = match shown.as_slice() {
        [one] => format!("exactly {one}"),
        [init @ .., last] => format!("one of {} or {last}", init.join(", ")),
        [] => "nothing".to_owned(),
    };
    if values.len() > shown.len() {
        let _ = write!(text, " (and {} more)", values.len() - shown.len());
    }
    text
}

pub(crate) fn join_or(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn plural(description: &str) -> String {
    for (one, many) in [
        ("a string", "strings"),
        ("an integer", "integers"),
        ("a number", "numbers"),
        ("a boolean", "booleans"),
        ("an object", "objects"),
        ("an array", "arrays"),
    ] {
        if let Some(rest) = description.strip_prefix(one) {
            return format!("{many}{rest}");
        }
    }
    description.to_owned()
}

pub(crate) fn num(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        value.to_string()
    }
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    refs: HashMap<String, NodeId>,
    unsupported: Vec<String>,
    beyond_serde: bool,
}

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "$defs",
    "definitions",
    "contentEncoding",
    "contentMediaType",
    "nullable",
    "discriminator",
];

impl Compiler<'_> {
    fn node(&mut self, schema: &Value, at: &str) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        let node = self.build(schema, at);
        self.nodes[id] = node;
        id
    }

    fn unsupported(&mut self, at: &str, what: impl std::fmt::Display) {
        self.unsupported.push(format!("{what} at {at}"));
        self.beyond_serde = true;
    }

    fn constrains(&mut self) {
        self.beyond_serde = true;
    }

    #[allow(clippy::too_many_lines)]
    fn build(&mut self, schema: &Value, at: &str) -> Node {
        let mut node = Node::default();
        let map = match schema {
            Value::Bool(true) => return node,
            Value::Bool(false) => {
                node.never = true;
                return node;
            }
            Value::Object(map) => map,
            other => {
                self.unsupported(at, format_args!("a schema that is {other}"));
                return node;
            }
        };
        let usize_of = |key: &str| {
            map.get(key)
                .and_then(Value::as_u64)
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        for (key, value) in map {
            match key.as_str() {
                "type" => {
                    let names: Vec<&str> = match value {
                        Value::String(name) => vec![name.as_str()],
                        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                        _ => Vec::new(),
                    };
                    let mut types = Types::default();
                    for name in names {
                        match Types::named(name) {
                            Some(t) => types = types.union(t),
                            None => self.unsupported(at, format_args!("the type {name:?}")),
                        }
                    }
                    node.types = Some(types);
                }
                "enum" => {
                    node.enumeration = value.as_array().cloned();
                    self.constrains();
                }
                "const" => {
                    node.constant = Some(value.clone());
                    self.constrains();
                }
                "exclusiveMinimum" => {
                    node.exclusive_minimum = value.as_f64();
                    self.constrains();
                }
                "exclusiveMaximum" => {
                    node.exclusive_maximum = value.as_f64();
                    self.constrains();
                }
                "multipleOf" => {
                    node.multiple_of = value.as_f64().filter(|m| *m > 0.0);
                    self.constrains();
                }
                // Read after the loop, together: `minimum`/`maximum` with the format, both
                // lengths (a `char` has both at 1), the item counts with the tuple; `then` and
                // `else` with `if`.
                "minimum" | "maximum" | "format" | "minLength" | "maxLength" | "minItems"
                | "maxItems" | "then" | "else" => {}
                "pattern" => {
                    let Some(pattern) = value.as_str() else {
                        continue;
                    };
                    match regex_lite::Regex::new(pattern) {
                        Ok(regex) => node.pattern = Some((pattern.to_owned(), regex)),
                        Err(_) => self.unsupported(at, format_args!("the pattern /{pattern}/")),
                    }
                    self.constrains();
                }
                "items" => {
                    if let Value::Array(tuple) = value {
                        // Draft 2019-09 tuples.
                        node.prefix_items = tuple
                            .iter()
                            .enumerate()
                            .map(|(i, s)| self.node(s, &format!("{at}/items/{i}")))
                            .collect();
                    } else {
                        node.items = Some(self.node(value, &format!("{at}/items")));
                    }
                }
                "prefixItems" => {
                    node.prefix_items = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, s)| self.node(s, &format!("{at}/prefixItems/{i}")))
                        .collect();
                }
                "additionalItems" if map.get("items").is_some_and(Value::is_array) => {
                    node.items = Some(self.node(value, &format!("{at}/additionalItems")));
                }
                "uniqueItems" => {
                    node.unique_items = value.as_bool() == Some(true);
                    if node.unique_items {
                        self.constrains();
                    }
                }
                "contains" => {
                    node.contains = Some(self.node(value, &format!("{at}/contains")));
                    self.constrains();
                }
                "minContains" | "maxContains" => {
                    self.constrains();
                }
                "properties" => {
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        let id = self.node(schema, &format!("{at}/properties/{name}"));
                        node.properties.push((name.clone(), id));
                    }
                }
                "patternProperties" => {
                    for (pattern, schema) in value.as_object().into_iter().flatten() {
                        let id = self.node(schema, &format!("{at}/patternProperties"));
                        match regex_lite::Regex::new(pattern) {
                            Ok(regex) => node.pattern_properties.push((regex, id)),
                            Err(_) => self.unsupported(at, format_args!("the pattern /{pattern}/")),
                        }
                    }
                    self.constrains();
                }
                "required" => {
                    node.required = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect();
                }
                "additionalProperties" => {
                    node.additional = match value {
                        Value::Bool(false) => Additional::Deny,
                        Value::Bool(true) => Additional::Any,
                        schema => Additional::Schema(
                            self.node(schema, &format!("{at}/additionalProperties")),
                        ),
                    };
                }
                "propertyNames" => {
                    node.property_names = Some(self.node(value, &format!("{at}/propertyNames")));
                    self.constrains();
                }
                "minProperties" => {
                    node.min_properties = usize_of(key);
                    self.constrains();
                }
                "maxProperties" => {
                    node.max_properties = usize_of(key);
                    self.constrains();
                }
                "dependentRequired" => {
                    for (name, names) in value.as_object().into_iter().flatten() {
                        let names = names
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect();
                        node.dependent_required.push((name.clone(), names));
                    }
                    self.constrains();
                }
                "anyOf" | "oneOf" | "allOf" => {
                    let ids: Vec<NodeId> = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, s)| self.node(s, &format!("{at}/{key}/{i}")))
                        .collect();
                    match key.as_str() {
                        "anyOf" => node.any_of = ids,
                        "oneOf" => node.one_of = ids,
                        _ => node.all_of = ids,
                    }
                }
                "not" => {
                    node.not = Some(self.node(value, &format!("{at}/not")));
                    self.constrains();
                }
                "if" => {
                    let condition = self.node(value, &format!("{at}/if"));
                    let then = map.get("then").map(|s| self.node(s, &format!("{at}/then")));
                    let otherwise = map.get("else").map(|s| self.node(s, &format!("{at}/else")));
                    node.if_then_else = Some((condition, then, otherwise));
                    self.constrains();
                }
                "$ref" => match value.as_str() {
                    Some(reference) => node.reference = Some(self.reference(reference, at)),
                    None => self.unsupported(at, "a `$ref` that is not a string"),
                },
                _ if ANNOTATIONS.contains(&key.as_str()) || key.starts_with("x-") => {}
                other => self.unsupported(at, format_args!("the keyword `{other}`")),
            }
        }
        node.description = map
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.numbers_and_format(map, &mut node);
        // A `char`'s schema has both lengths at 1, which serde enforces; any other length is a
        // constraint of its own.
        node.min_length = usize_of("minLength");
        node.max_length = usize_of("maxLength");
        if (node.min_length.is_some() || node.max_length.is_some())
            && !(node.min_length == Some(1) && node.max_length == Some(1))
        {
            self.constrains();
        }
        node.min_items = usize_of("minItems");
        node.max_items = usize_of("maxItems");
        let tuple = Some(node.prefix_items.len()).filter(|n| *n > 0);
        let tuple_bounds = node.min_items.is_none_or(|n| Some(n) == tuple)
            && node.max_items.is_none_or(|n| Some(n) == tuple);
        if (node.min_items.is_some() || node.max_items.is_some()) && !tuple_bounds {
            self.constrains();
        }
        node.min_contains = usize_of("minContains");
        node.max_contains = usize_of("maxContains");
        node
    }

    /// `minimum`/`maximum` and `format`: the bounds an integer format implies (`uint8`:
    /// 0..=255) are what serde enforces; any other bound is a constraint of its own.
    fn numbers_and_format(&mut self, map: &Map<String, Value>, node: &mut Node) {
        node.minimum = map.get("minimum").and_then(Value::as_f64);
        node.maximum = map.get("maximum").and_then(Value::as_f64);
        node.format = map.get("format").and_then(Value::as_str).map(Format::named);
        let implied = node.format.as_ref().and_then(Format::integer_bounds);
        let within = |bound: Option<f64>, implied: Option<f64>| {
            bound.is_none_or(|b| implied.is_some_and(|i| (b - i).abs() < f64::EPSILON))
        };
        let (low, high) = implied.map_or((None, None), |(lo, hi)| (Some(lo), Some(hi)));
        if !within(node.minimum, low) || !within(node.maximum, high) {
            self.constrains();
        }
        if node
            .format
            .as_ref()
            .is_some_and(|f| f.is_checked() && f.integer_bounds().is_none())
        {
            self.constrains();
        }
    }

    fn reference(&mut self, reference: &str, at: &str) -> NodeId {
        if let Some(id) = self.refs.get(reference) {
            return *id;
        }
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| self.root.pointer(&percent_decode(pointer)));
        let Some(target) = target else {
            self.unsupported(
                at,
                format_args!("the reference {reference:?}, which points nowhere"),
            );
            let id = self.nodes.len();
            self.nodes.push(Node::default());
            self.refs.insert(reference.to_owned(), id);
            return id;
        };
        // Reserve the id first: recursive schemas refer back to it.
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.refs.insert(reference.to_owned(), id);
        let node = self.build(target, reference);
        self.nodes[id] = node;
        id
    }
}

fn percent_decode(pointer: &str) -> String {
    if !pointer.contains('%') {
        return pointer.to_owned();
    }
    let bytes = pointer.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = pointer
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
