//! One subschema's keywords read into a node: types, enums, numbers, strings, arrays, objects,
//! combinators, formats and patterns.

use serde_json::{Number, Value};

use super::{ANNOTATIONS, Children, Compiler, VALIDATION_KEYWORDS};
use crate::compiled::{Additional, Node, NodeId, Types};
use crate::format::Format;
use crate::pattern;

/// A numeric keyword's value.
fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Number(n) => Some(n.clone()),
        _ => None,
    }
}

/// A count (`maxItems`, `minLength`, ...): a non-negative integer, written `2` or `2.0`.
fn count(value: &Value) -> Option<usize> {
    let n = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| {
                // Saturating: a count past u64 is as good as infinite.
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "Saturating: a count past u64 is as good as infinite."
                )]
                let n = f.min(1.8e19) as u64;
                n
            })
    })?;
    Some(usize::try_from(n).unwrap_or(usize::MAX))
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

impl Compiler<'_, '_> {
    #[expect(
        clippy::too_many_lines,
        reason = "one arm per keyword, read best as one list"
    )]
    pub(super) fn build<'v>(
        &mut self,
        schema: &'v Value,
        doc: usize,
        pointer: &str,
        children: &mut Children<'v>,
    ) -> Node {
        let is_root = doc == 0 && pointer.is_empty();
        let at = pointer;
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
        // Keywords besides `$ref` and annotations: none makes the node a `$ref` and nothing else.
        let mut own_keywords = false;
        for (key, value) in map {
            if key != "$ref" && !ANNOTATIONS.contains(&key.as_str()) {
                own_keywords = true;
            }
            if !self.validation && VALIDATION_KEYWORDS.contains(&key.as_str()) {
                continue;
            }
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
                    node.exclusive_minimum = number(value);
                    self.constrains();
                }
                "exclusiveMaximum" => {
                    node.exclusive_maximum = number(value);
                    self.constrains();
                }
                "multipleOf" => {
                    node.multiple_of =
                        number(value).filter(|m| m.as_f64().is_some_and(|m| m > 0.0));
                    self.constrains();
                }
                // Weighed after the loop, together: `minimum`/`maximum` with the format, both
                // lengths (a `char` has both at 1), the item counts with the tuple.
                "minimum" => node.minimum = number(value),
                "maximum" => node.maximum = number(value),
                "format" => node.format = value.as_str().map(Format::named),
                "minLength" => node.min_length = count(value),
                "maxLength" => node.max_length = count(value),
                "minItems" => node.min_items = count(value),
                "maxItems" => node.max_items = count(value),
                "minContains" => node.min_contains = count(value),
                "maxContains" => node.max_contains = count(value),
                // Read with `if`.
                "then" | "else" => {}
                "default" => node.has_default = !value.is_null(),
                "pattern" => {
                    let Some(source) = value.as_str() else {
                        continue;
                    };
                    match pattern::compile(source) {
                        Some(regex) => node.pattern = Some((source.to_owned(), regex)),
                        None => self.unsupported(at, format_args!("the pattern /{source}/")),
                    }
                    self.constrains();
                }
                "items" => {
                    if let Value::Array(tuple) = value {
                        // Draft 2019-09 tuples.
                        node.prefix_items = tuple
                            .iter()
                            .enumerate()
                            .map(|(i, s)| {
                                self.child(children, doc, pointer, &["items", &i.to_string()], s)
                            })
                            .collect();
                    } else {
                        node.items = Some(self.child(children, doc, pointer, &["items"], value));
                    }
                }
                "prefixItems" => {
                    node.prefix_items = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, s)| self.child(children, doc, pointer, &[key, &i.to_string()], s))
                        .collect();
                }
                // Draft 2019-09's, beside a tuple `items` only.
                "additionalItems" => {
                    if map.get("items").is_some_and(Value::is_array) {
                        node.items = Some(self.child(children, doc, pointer, &[key], value));
                    }
                }
                "uniqueItems" => {
                    node.unique_items = value.as_bool() == Some(true);
                    if node.unique_items {
                        self.constrains();
                    }
                }
                "contains" => {
                    node.contains = Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "properties" => {
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        let id = self.child(children, doc, pointer, &[key, name], schema);
                        node.properties.push((name.clone(), id));
                    }
                    // A derived struct below the root also deserializes from an array of its
                    // fields, which the schema refuses, when serde reads it from a value it
                    // kept aside: serde alone is not enough there.
                    if !is_root {
                        self.shaped();
                    }
                }
                "patternProperties" => {
                    for (source, schema) in value.as_object().into_iter().flatten() {
                        let id = self.child(children, doc, pointer, &[key, source], schema);
                        match pattern::compile(source) {
                            Some(regex) => node.pattern_properties.push((regex, id)),
                            None => self.unsupported(at, format_args!("the pattern /{source}/")),
                        }
                    }
                    self.constrains();
                }
                "required" => node.required = strings(value),
                "additionalProperties" => {
                    node.additional = match value {
                        Value::Bool(false) => Additional::Deny,
                        // `true` too is a schema: it marks the members it takes as evaluated.
                        _ => Additional::Schema(self.child(children, doc, pointer, &[key], value)),
                    };
                }
                "unevaluatedProperties" => {
                    node.unevaluated_properties =
                        Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "unevaluatedItems" => {
                    node.unevaluated_items =
                        Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "propertyNames" => {
                    node.property_names = Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "minProperties" => {
                    node.min_properties = count(value);
                    self.constrains();
                }
                "maxProperties" => {
                    node.max_properties = count(value);
                    self.constrains();
                }
                "dependentRequired" => {
                    for (name, names) in value.as_object().into_iter().flatten() {
                        node.dependent_required.push((name.clone(), strings(names)));
                    }
                    self.constrains();
                }
                "dependentSchemas" => {
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        let id = self.child(children, doc, pointer, &[key, name], schema);
                        node.dependent_schemas.push((name.clone(), id));
                    }
                    self.constrains();
                }
                // Draft 7's `dependencies`, both forms (names, or a schema).
                "dependencies" => {
                    for (name, dependent) in value.as_object().into_iter().flatten() {
                        if dependent.is_array() {
                            node.dependent_required
                                .push((name.clone(), strings(dependent)));
                        } else {
                            let id = self.child(children, doc, pointer, &[key, name], dependent);
                            node.dependent_schemas.push((name.clone(), id));
                        }
                    }
                    self.constrains();
                }
                "anyOf" | "oneOf" | "allOf" => {
                    let ids: Vec<NodeId> = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, s)| self.child(children, doc, pointer, &[key, &i.to_string()], s))
                        .collect();
                    match key.as_str() {
                        "anyOf" => node.any_of = ids,
                        "oneOf" => node.one_of = ids,
                        _ => node.all_of = ids,
                    }
                }
                "not" => {
                    node.not = Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "if" => {
                    let condition = self.child(children, doc, pointer, &[key], value);
                    let then = map
                        .get("then")
                        .map(|s| self.child(children, doc, pointer, &["then"], s));
                    let otherwise = map
                        .get("else")
                        .map(|s| self.child(children, doc, pointer, &["else"], s));
                    node.if_then_else = Some((condition, then, otherwise));
                    self.constrains();
                }
                "$ref" => match value.as_str() {
                    Some(reference) => {
                        node.reference = Some(self.reference(reference, doc, pointer));
                    }
                    None => self.unsupported(at, "a `$ref` that is not a string"),
                },
                "$dynamicRef" => match value.as_str() {
                    Some(reference) => {
                        node.dynamic_reference =
                            Some(self.dynamic_reference(reference, doc, pointer));
                        self.constrains();
                    }
                    None => self.unsupported(at, "a `$dynamicRef` that is not a string"),
                },
                _ if ANNOTATIONS.contains(&key.as_str()) || key.starts_with("x-") => {}
                other => self.unsupported(at, format_args!("the keyword `{other}`")),
            }
        }
        node.only_reference = node.reference.is_some() && !own_keywords;
        if self.validation {
            self.counts(&mut node);
        }
        node
    }

    /// Whether `minimum`/`maximum` with `format`, lengths, item and contains counts say more than
    /// serde enforces.
    fn counts(&mut self, node: &mut Node) {
        self.numbers_and_format(node);
        // A `char`'s schema has both lengths at 1, which serde enforces; any other length is a
        // constraint of its own.
        if (node.min_length.is_some() || node.max_length.is_some())
            && !(node.min_length == Some(1) && node.max_length == Some(1))
        {
            self.constrains();
        }
        let tuple = Some(node.prefix_items.len()).filter(|n| *n > 0);
        let tuple_bounds = node.min_items.is_none_or(|n| Some(n) == tuple)
            && node.max_items.is_none_or(|n| Some(n) == tuple);
        if (node.min_items.is_some() || node.max_items.is_some()) && !tuple_bounds {
            self.constrains();
        }
        if node.min_contains.is_some() || node.max_contains.is_some() {
            self.constrains();
        }
    }

    /// `minimum`/`maximum` and `format`: the bounds an integer format implies (`uint8`:
    /// 0..=255) are what serde enforces; any other bound is a constraint of its own.
    fn numbers_and_format(&mut self, node: &Node) {
        let implied = node.format.as_ref().and_then(Format::integer_range);
        let within = |bound: &Option<Number>, implied: Option<i128>| {
            bound.as_ref().is_none_or(|b| {
                implied.is_some_and(|i| crate::number::canonical(b) == i.to_string())
            })
        };
        let (low, high) = implied.map_or((None, None), |(lo, hi)| (Some(lo), Some(hi)));
        if !within(&node.minimum, low) || !within(&node.maximum, high) {
            self.constrains();
        }
        if node
            .format
            .as_ref()
            .is_some_and(|f| f.is_checked() && f.integer_range().is_none())
        {
            self.constrains();
        }
    }
}
