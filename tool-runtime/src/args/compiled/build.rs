//! Compiling a schema: one node per subschema, `$ref`s resolved to node indices (recursion
//! included), patterns compiled, and a note of whether anything goes beyond what serde enforces.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{Additional, Node, NodeId, Types};
use crate::args::format::Format;

/// Compiles a schema: its nodes (the root first), what is not enforced, and whether anything
/// goes beyond what serde enforces.
pub(super) fn compile(schema: &Value) -> (Vec<Node>, Vec<String>, bool) {
    let mut compiler = Compiler {
        root: schema,
        nodes: Vec::new(),
        refs: HashMap::new(),
        unsupported: Vec::new(),
        beyond_serde: false,
        own: false,
    };
    compiler.node(schema, "#");
    (compiler.nodes, compiler.unsupported, compiler.beyond_serde)
}

struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    refs: HashMap<String, NodeId>,
    unsupported: Vec<String>,
    beyond_serde: bool,
    /// Whether the node being built has a keyword of its own beyond serde.
    own: bool,
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
        let node = self.build_own(schema, at);
        self.nodes[id] = node;
        id
    }

    /// Builds a node, noting whether its own keywords (not its children's) go beyond serde.
    fn build_own(&mut self, schema: &Value, at: &str) -> Node {
        let outer = std::mem::replace(&mut self.own, false);
        let mut node = self.build(schema, at);
        node.beyond_serde = self.own;
        self.own = outer;
        node
    }

    fn unsupported(&mut self, at: &str, what: impl std::fmt::Display) {
        self.own = true;
        self.unsupported.push(format!("{what} at {at}"));
        self.beyond_serde = true;
    }

    fn constrains(&mut self) {
        self.own = true;
        self.beyond_serde = true;
    }

    #[allow(clippy::too_many_lines)]
    fn build(&mut self, schema: &Value, at: &str) -> Node {
        // Only the root's own node exists while the root is being built.
        let is_root = self.nodes.len() == 1;
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
        node.has_default = map.get("default").is_some_and(|d| !d.is_null());
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
                    // A derived struct below the root also deserializes from an array of its
                    // fields, which the schema refuses: serde alone is not enough there.
                    if !is_root {
                        self.constrains();
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
                "required" => node.required = strings(value),
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
                        node.dependent_required.push((name.clone(), strings(names)));
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
        let node = self.build_own(target, reference);
        self.nodes[id] = node;
        id
    }
}

/// The strings of a JSON array of strings (others skipped).
fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
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
