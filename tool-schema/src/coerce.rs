//! Coercion by schema: a value is changed only where the schema makes its meaning
//! unambiguous, and every change is recorded. Missing members are never invented.

use serde::Serialize;
use serde_json::{Number, Value};

use super::compiled::{CompiledSchema, Node, NodeId, ROOT, Types};
use toolwright_json::ArgPath;
use toolwright_json::value as json;

/// How coercion changed a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CoercionKind {
    /// `"42"` where a number or integer is expected.
    StringToNumber,
    /// `"true"`, `"yes"`, `"off"`... where a boolean is expected.
    StringToBoolean,
    /// `"null"` where null (and not a string) is expected.
    StringToNull,
    /// A string holding JSON (possibly stringified more than once) where that JSON's type is
    /// expected: `"{\"a\": 1}"` for an object, `"[1, 2]"` for an array.
    StringToJson,
    /// An integral float (`30.0`) where an integer is expected.
    FloatToInteger,
    /// A number where a string is expected.
    NumberToString,
    /// `1` or `0` where a boolean (and not a number) is expected.
    NumberToBoolean,
    /// A single value where an array is expected: it became a one-element array.
    WrappedInArray,
    /// An argument the tool does not declare was dropped (the policy ignores unknown arguments).
    DroppedUnknown,
    /// `null` for an optional member was taken as "not given": the member was removed, so its
    /// default applies. OpenAI's strict mode makes every member required and the optional ones
    /// nullable, so this is how a model says "absent" there.
    NullToAbsent,
}

/// One change coercion made, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coercion {
    /// Where the value sits in the arguments.
    pub path: ArgPath,
    /// What was done.
    pub kind: CoercionKind,
}

/// Deepest schema walk; deeper values are left as they are (validation reports them).
const MAX_DEPTH: usize = 128;
/// Schema nodes visited per coercion at most (trials of `anyOf` branches included): bounds the
/// work a recursive union could otherwise multiply. Past it, values are left as they are.
const STEPS: usize = 100_000;

/// Schema nodes visited per value of the arguments at most, above [`STEPS`].
const STEPS_PER_VALUE: usize = 16;

/// One coercion run: what it changed, and how many steps it has left.
struct Walk {
    out: Vec<Coercion>,
    steps: usize,
}
impl Walk {
    /// A run over `value`, with steps in proportion to its size.
    fn over(value: &Value) -> Self {
        Walk {
            out: Vec::new(),
            steps: json::work_budget(value, STEPS, STEPS_PER_VALUE),
        }
    }

    /// Takes one step at `depth`, if the depth and the step budget allow it.
    fn step(&mut self, depth: usize) -> bool {
        if depth > MAX_DEPTH || self.steps == 0 {
            return false;
        }
        self.steps -= 1;
        true
    }
}

/// Layers of stringification unwrapped at most (`"\"42\""` is two).
const MAX_LAYERS: usize = 4;

impl CompiledSchema {
    /// Coerces a value in place toward the schema, and returns what it changed.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_schema::{CoercionKind, CompiledSchema};
    ///
    /// let schema = CompiledSchema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {
    ///         "count": {"type": "integer"},
    ///         "tags": {"type": "array", "items": {"type": "string"}},
    ///         "filter": {"type": "object", "properties": {"open": {"type": "boolean"}}},
    ///     },
    /// }));
    /// let mut args = json!({"count": "3", "tags": "urgent", "filter": "{\"open\": \"true\"}"});
    /// let coercions = schema.coerce(&mut args);
    /// assert_eq!(args, json!({"count": 3, "tags": ["urgent"], "filter": {"open": true}}));
    /// assert_eq!(coercions.len(), 4);
    /// assert_eq!(coercions[0].kind, CoercionKind::StringToNumber);
    /// ```
    pub fn coerce(&self, value: &mut Value) -> Vec<Coercion> {
        self.coerce_all(value).0
    }

    /// [`coerce`](Self::coerce), and whether it went through the whole value (a union that
    /// multiplies the work past the step budget leaves the rest as it was).
    pub fn coerce_all(&self, value: &mut Value) -> (Vec<Coercion>, bool) {
        let mut walk = Walk::over(value);
        self.coerce_at(ROOT, value, &ArgPath::root(), &mut walk, 0);
        (walk.out, walk.steps > 0)
    }

    /// Removes optional members whose value is `null` where the member's schema does not take
    /// `null`, or takes it but has a default of its own: a model's `null` for an optional
    /// argument means "not given". Follows properties, items, `$ref`s, and the one branch of a
    /// union that takes the value's type (`Option<Struct>` is a union with null).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_schema::{CoercionKind, CompiledSchema};
    ///
    /// let schema = CompiledSchema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {
    ///         "query": {"type": "string"},
    ///         "limit": {"type": "integer", "default": 10},
    ///         "cursor": {"type": ["string", "null"]},
    ///     },
    ///     "required": ["query"],
    /// }));
    /// let mut args = json!({"query": "rust", "limit": null, "cursor": null});
    /// let removed = schema.absent_nulls(&mut args);
    /// // `cursor` takes null and has no default of its own: null and absent mean the same there.
    /// assert_eq!(args, json!({"query": "rust", "cursor": null}));
    /// assert_eq!(removed[0].kind, CoercionKind::NullToAbsent);
    /// ```
    pub fn absent_nulls(&self, value: &mut Value) -> Vec<Coercion> {
        let mut walk = Walk::over(value);
        self.absent_at(ROOT, value, &ArgPath::root(), &mut walk, 0);
        walk.out
    }

    fn absent_at(
        &self,
        id: NodeId,
        value: &mut Value,
        path: &ArgPath,
        walk: &mut Walk,
        depth: usize,
    ) {
        // A reference beside a union can walk one value twice at every level: the step budget
        // bounds what such a schema could otherwise multiply.
        if !walk.step(depth) {
            return;
        }
        let node = self.node(self.resolve(id));
        if let Some(target) = node.reference {
            self.absent_at(target, value, path, walk, depth + 1);
        }
        let have = Types::of(value);
        let mut takers = node
            .any_of
            .iter()
            .chain(&node.one_of)
            .filter(|b| self.types_of(**b).accepts(have));
        if let (Some(branch), None) = (takers.next(), takers.next())
            && (value.is_object() || value.is_array())
        {
            self.absent_at(*branch, value, path, walk, depth + 1);
        }
        match value {
            Value::Object(map) if !node.properties.is_empty() => {
                map.retain(|key, member| {
                    let Some(id) = node.property(key) else {
                        return true;
                    };
                    let absent = member.is_null()
                        && !node.required.iter().any(|r| r == key)
                        && (!self.types_of(id).has(Types::NULL) || self.node(id).has_default);
                    if absent {
                        walk.out.push(Coercion {
                            path: path.key(key),
                            kind: CoercionKind::NullToAbsent,
                        });
                    }
                    !absent
                });
                for (key, member) in map.iter_mut() {
                    if let Some(id) = node.property(key) {
                        self.absent_at(id, member, &path.key(key), walk, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    if let Some(id) = node.item(i) {
                        self.absent_at(id, item, &path.index(i), walk, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    fn coerce_at(
        &self,
        id: NodeId,
        value: &mut Value,
        path: &ArgPath,
        walk: &mut Walk,
        depth: usize,
    ) {
        if !walk.step(depth) {
            return;
        }
        let id = self.resolve(id);
        let node = self.node(id);
        if let Some(branch) = self.choose_branch(node, value, walk, depth) {
            self.coerce_at(branch, value, path, walk, depth + 1);
            return;
        }
        if let Some(target) = node.reference {
            self.coerce_at(target, value, path, walk, depth + 1);
        }
        let want = self.types_of(id);
        // An integral float is an integer to JSON Schema, but not to serde: `30.0` becomes 30.
        let float_for_integer = matches!(value, Value::Number(n) if n.is_f64())
            && want.has(Types::INTEGER)
            && !want.has(Types::NUMBER);
        if (!want.accepts(Types::of(value)) || float_for_integer)
            && let Some((converted, kind)) = converted(value, want)
        {
            *value = converted;
            walk.out.push(Coercion {
                path: path.clone(),
                kind,
            });
            // A string that held an object: now its tag or type can pick a branch.
            if (!node.any_of.is_empty() || !node.one_of.is_empty())
                && let Some(branch) = self.choose_branch(node, value, walk, depth)
            {
                self.coerce_at(branch, value, path, walk, depth + 1);
                return;
            }
        }
        self.descend(node, value, path, walk, depth);
    }

    /// Coerces the members or items of a container.
    fn descend(
        &self,
        node: &Node,
        value: &mut Value,
        path: &ArgPath,
        walk: &mut Walk,
        depth: usize,
    ) {
        match value {
            Value::Object(map) => {
                for (key, member) in map.iter_mut() {
                    if let Some(schema) = node.member(key) {
                        self.coerce_at(schema, member, &path.key(key), walk, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    if let Some(schema) = node.item(i) {
                        self.coerce_at(schema, item, &path.index(i), walk, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// For `anyOf`/`oneOf`: the branch a value belongs to, by its tag (a member that is a
    /// `const` in each branch), by its type when that picks one branch (the first one it is
    /// already valid against when several take its type), or, for a scalar no branch takes,
    /// the first branch into which it coerces validly.
    fn choose_branch(
        &self,
        node: &Node,
        value: &Value,
        walk: &mut Walk,
        depth: usize,
    ) -> Option<NodeId> {
        let branches = if node.any_of.is_empty() {
            &node.one_of
        } else {
            &node.any_of
        };
        if branches.is_empty() {
            return None;
        }
        if let Some(branch) = self.by_tag(branches, value) {
            return Some(branch);
        }
        let have = Types::of(value);
        let typed: Vec<NodeId> = branches
            .iter()
            .copied()
            .filter(|b| self.types_of(*b).accepts(have))
            .collect();
        match typed.as_slice() {
            [one] => return Some(*one),
            [first, ..] => {
                let valid = typed.iter().copied().find(|b| self.valid_at(*b, value));
                return Some(valid.unwrap_or(*first));
            }
            [] if value.is_array() || value.is_object() => return None,
            [] => {}
        }
        // A scalar of a type no branch takes ("42" for number-or-boolean): try each branch on a
        // copy, which is small.
        branches.iter().copied().find(|branch| {
            let mut trial = value.clone();
            let mut scratch = Walk {
                out: Vec::new(),
                steps: walk.steps,
            };
            // A scalar has no depth of its own: trials go at most 8 levels further, trials
            // within trials included (a union that refers back to itself).
            self.coerce_at(
                *branch,
                &mut trial,
                &ArgPath::root(),
                &mut scratch,
                (depth + 1).max(MAX_DEPTH - 8),
            );
            walk.steps = scratch.steps;
            self.valid_at(*branch, &trial)
        })
    }

    /// The branch whose tag member (`"type": {"const": "circle"}`) matches the value's.
    fn by_tag(&self, branches: &[NodeId], value: &Value) -> Option<NodeId> {
        let map = value.as_object()?;
        branches.iter().copied().find(|branch| {
            let node = self.node(self.resolve(*branch));
            node.properties.iter().any(|(name, id)| {
                let tag = self.node(self.resolve(*id));
                let single = tag.constant.as_ref().or(tag
                    .enumeration
                    .as_ref()
                    .filter(|v| v.len() == 1)
                    .and_then(|v| v.first()));
                single.is_some_and(|tag| map.get(name) == Some(tag))
            })
        })
    }
}

/// A value of the wrong type converted to one of `want`, where that is unambiguous.
fn converted(value: &Value, want: Types) -> Option<(Value, CoercionKind)> {
    let wrapped = || {
        (
            Value::Array(vec![value.clone()]),
            CoercionKind::WrappedInArray,
        )
    };
    match value {
        Value::String(text) => {
            let (inner, layers) = unwrap_layers(text);
            let inner = match &inner {
                Some(Value::String(inner)) => inner.as_str(),
                _ => text.as_str(),
            };
            if (want.has(Types::OBJECT) || want.has(Types::ARRAY))
                && let Ok(parsed) = serde_json::from_str::<Value>(inner.trim())
                && (parsed.is_object() || parsed.is_array())
                && want.accepts(Types::of(&parsed))
            {
                return Some((parsed, CoercionKind::StringToJson));
            }
            if (want.has(Types::INTEGER) || want.has(Types::NUMBER))
                && let Some(number) = number_in(inner, want)
            {
                return Some((Value::Number(number), CoercionKind::StringToNumber));
            }
            if want.has(Types::BOOLEAN)
                && let Some(flag) = boolean_in(inner)
            {
                return Some((Value::Bool(flag), CoercionKind::StringToBoolean));
            }
            if want.has(Types::NULL) && inner.trim().eq_ignore_ascii_case("null") {
                return Some((Value::Null, CoercionKind::StringToNull));
            }
            (want.has(Types::ARRAY) && layers == 0).then(wrapped)
        }
        Value::Number(n) => {
            if want.has(Types::INTEGER)
                && !want.has(Types::NUMBER)
                && let Some(integer) = n.as_f64().and_then(integral)
            {
                return Some((Value::Number(integer), CoercionKind::FloatToInteger));
            }
            if want.has(Types::STRING) {
                return Some((Value::String(n.to_string()), CoercionKind::NumberToString));
            }
            if want.has(Types::BOOLEAN) {
                let whole = n
                    .as_i64()
                    .or_else(|| n.as_f64().and_then(integral)?.as_i64());
                match whole {
                    Some(1) => return Some((Value::Bool(true), CoercionKind::NumberToBoolean)),
                    Some(0) => return Some((Value::Bool(false), CoercionKind::NumberToBoolean)),
                    _ => {}
                }
            }
            want.has(Types::ARRAY).then(wrapped)
        }
        Value::Null => None,
        _ => want.has(Types::ARRAY).then(wrapped),
    }
}

/// An integral float as an integer, when it is within `i64` or `u64`.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    reason = "the float is integral and within the integer's range, checked before each cast"
)]
fn integral(f: f64) -> Option<Number> {
    if !super::compiled::is_integral_float(f) {
        return None;
    }
    // Beyond 2^63 in magnitude a float cannot tell an integer in range from one out of it
    // (`-9223372036854775809` reads as -2^63): only integers sent as such reach the edges.
    if f > i64::MIN as f64 && f < i64::MAX as f64 {
        Some(Number::from(f as i64))
    } else if f >= 0.0 && f < u64::MAX as f64 {
        Some(Number::from(f as u64))
    } else {
        None
    }
}

/// A string that holds a JSON string (`"\"42\""`), unwrapped as far as it goes.
fn unwrap_layers(text: &str) -> (Option<Value>, usize) {
    let mut current: Option<Value> = None;
    let mut layers = 0;
    while layers < MAX_LAYERS {
        let source = current
            .as_ref()
            .and_then(Value::as_str)
            .unwrap_or(text)
            .trim();
        if !source.starts_with('"') {
            break;
        }
        match serde_json::from_str::<Value>(source) {
            Ok(inner @ Value::String(_)) => {
                current = Some(inner);
                layers += 1;
            }
            _ => break,
        }
    }
    (current, layers)
}

/// A number written as text: JSON number syntax (surrounding spaces allowed), finite; where
/// only an integer is wanted, an integral one.
fn number_in(text: &str, want: Types) -> Option<Number> {
    let text = text.trim();
    let number: Number = serde_json::from_str(text).ok()?;
    if want.has(Types::NUMBER) {
        return Some(number);
    }
    if number.is_i64() || number.is_u64() {
        return Some(number);
    }
    number.as_f64().and_then(integral)
}

fn boolean_in(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "y" | "on" => Some(true),
        "false" | "no" | "n" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn coerced(schema: &Value, mut value: Value) -> (Value, Vec<CoercionKind>) {
        let kinds = CompiledSchema::compile(schema)
            .coerce(&mut value)
            .into_iter()
            .map(|c| c.kind)
            .collect();
        (value, kinds)
    }

    #[test]
    fn absent_nulls_are_bounded_where_a_reference_sits_beside_a_union() {
        // Each level walks the value twice (through `$ref` and through the one branch): without
        // the step budget, 2^100 visits.
        let schema = CompiledSchema::compile(&json!({
            "$ref": "#/$defs/N",
            "anyOf": [{"$ref": "#/$defs/N"}],
            "$defs": {"N": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/N", "anyOf": [{"$ref": "#/$defs/N"}]}, "x": {"type": "integer", "default": 1}},
            }},
        }));
        let mut value = json!({"x": null});
        for _ in 0..100 {
            value = json!({"a": value, "x": null});
        }
        let removed = schema.absent_nulls(&mut value);
        assert!(!removed.is_empty());
        assert!(removed.len() <= STEPS);
    }

    #[test]
    fn strings_become_what_the_schema_expects() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "number"}, "i": {"type": "integer"}, "b": {"type": "boolean"},
            "z": {"type": ["integer", "null"]}, "s": {"type": "string"},
        }});
        let (value, _) = coerced(
            &schema,
            json!({"n": "2.5", "i": " 7 ", "b": "false", "z": "null", "s": 5}),
        );
        assert_eq!(
            value,
            json!({"n": 2.5, "i": 7, "b": false, "z": null, "s": "5"})
        );
        // Not numbers, not booleans: left for validation to report.
        let (value, kinds) = coerced(&schema, json!({"n": "five", "i": "7.5", "b": "maybe"}));
        assert_eq!(value, json!({"n": "five", "i": "7.5", "b": "maybe"}));
        assert!(kinds.is_empty());
    }

    #[test]
    fn integral_floats_become_integers_only_where_integers_are_expected() {
        let schema = json!({"type": "object", "properties": {
            "i": {"type": "integer"}, "n": {"type": "number"},
        }});
        let (value, kinds) = coerced(&schema, json!({"i": 30.0, "n": 30.0}));
        assert_eq!(value["i"], json!(30));
        assert!(value["i"].is_i64());
        assert!(value["n"].is_f64());
        assert_eq!(kinds, [CoercionKind::FloatToInteger]);
    }

    #[test]
    fn json_in_a_string_is_unwound_even_when_stringified_twice() {
        let schema = json!({"type": "object", "properties": {
            "data": {"$ref": "#/$defs/Data"},
            "nums": {"type": "array", "items": {"type": "number"}},
        }, "$defs": {"Data": {"type": "object", "properties": {"x": {"type": "integer"}}}}});
        let twice =
            serde_json::to_string(&serde_json::to_string(&json!({"x": "1"})).unwrap()).unwrap();
        let (value, kinds) = coerced(
            &schema,
            json!({"data": serde_json::from_str::<Value>(&twice).unwrap(), "nums": "[1, \"2\"]"}),
        );
        assert_eq!(value, json!({"data": {"x": 1}, "nums": [1, 2]}));
        assert!(kinds.contains(&CoercionKind::StringToJson));
    }

    #[test]
    fn single_values_become_one_element_arrays() {
        let schema = json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "ids": {"type": "array", "items": {"type": "integer"}},
        }});
        let (value, _) = coerced(&schema, json!({"tags": "a", "ids": "4"}));
        assert_eq!(value, json!({"tags": ["a"], "ids": [4]}));
    }

    #[test]
    fn branches_are_chosen_by_tag_then_by_type() {
        let schema = json!({"type": "object", "properties": {"shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}},
            {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}}},
        ]}, "v": {"anyOf": [{"type": "string"}, {"type": "number"}]},
            "w": {"anyOf": [{"type": "number"}, {"type": "boolean"}]}}});
        let (value, _) = coerced(
            &schema,
            json!({"shape": {"kind": "square", "side": "3"}, "v": "42", "w": "42"}),
        );
        assert_eq!(
            value,
            json!({"shape": {"kind": "square", "side": 3}, "v": "42", "w": 42})
        );
    }

    #[test]
    fn missing_members_are_never_invented() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer", "default": 1}},
            "required": ["a"]});
        let (value, kinds) = coerced(&schema, json!({}));
        assert_eq!(value, json!({}));
        assert!(kinds.is_empty());
    }
}
