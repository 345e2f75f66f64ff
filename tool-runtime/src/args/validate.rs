//! Validation of a value against a compiled schema: every violation, each with its path.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::compiled::{Additional, CompiledSchema, Node, NodeId, ROOT, Types, num, one_of_values};
use super::problem::{ArgPath, PathSegment, Problem, ProblemKind, show};
use crate::json;
use crate::names::close_matches;

/// Schema nodes checked per validation at most: bounds the work `anyOf` over recursive schemas
/// could otherwise multiply.
const BUDGET: usize = 200_000;
/// Schema nodes checked per value of the arguments at most, above [`BUDGET`]: the work stays
/// linear in the arguments, and valid arguments within the size limit are checked to the end.
const BUDGET_PER_VALUE: usize = 16;

impl CompiledSchema {
    /// Checks a value against the schema and returns every violation, in document order
    /// (missing members of an object after its present ones). Empty when the value is valid.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_runtime::args::CompiledSchema;
    ///
    /// let schema = CompiledSchema::compile(&json!({
    ///     "type": "object",
    ///     "properties": {
    ///         "query": {"type": "string"},
    ///         "limit": {"type": "integer", "minimum": 1, "maximum": 50},
    ///     },
    ///     "required": ["query"],
    ///     "additionalProperties": false,
    /// }));
    /// let problems = schema.validate(&json!({"limit": 0, "querry": "rust"}));
    /// let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    /// assert_eq!(lines, [
    ///     "`limit`: expected an integer from 1 to 50, found 0",
    ///     "unknown argument `querry` (did you mean `query`?)",
    ///     "missing required argument `query` (a string)",
    /// ]);
    /// ```
    pub fn validate(&self, value: &Value) -> Vec<Problem> {
        let (mut problems, complete) = self.check_at(ROOT, value);
        if !complete {
            problems.push(Problem::too_complex());
        }
        problems
    }
}

impl CompiledSchema {
    /// Whether a value is valid against one node of the schema.
    pub(crate) fn valid_at(&self, id: NodeId, value: &Value) -> bool {
        let (problems, complete) = self.check_at(id, value);
        problems.is_empty() && complete
    }

    /// The problems of a value against one node, and whether the check ran to the end (within
    /// its budget and depth).
    fn check_at(&self, id: NodeId, value: &Value) -> (Vec<Problem>, bool) {
        let mut checker = Checker {
            schema: self,
            budget: json::work_budget(value, BUDGET, BUDGET_PER_VALUE),
            depth: 0,
        };
        let mut problems = Vec::new();
        checker.check(id, value, &Frame::Root, &mut problems);
        (problems, checker.budget > 0)
    }
}

/// Where the checker is, as a chain of frames on the stack: a path is only built (allocated)
/// for a problem, not for every value visited.
#[derive(Clone, Copy)]
enum Frame<'a> {
    Root,
    Key(&'a Frame<'a>, &'a str),
    Index(&'a Frame<'a>, usize),
}

impl Frame<'_> {
    fn path(&self) -> ArgPath {
        let mut segments = Vec::with_capacity(self.depth());
        self.push_to(&mut segments);
        ArgPath(segments)
    }

    fn push_to(&self, segments: &mut Vec<PathSegment>) {
        match self {
            Frame::Root => {}
            Frame::Key(parent, key) => {
                parent.push_to(segments);
                segments.push(PathSegment::Key((*key).to_owned()));
            }
            Frame::Index(parent, index) => {
                parent.push_to(segments);
                segments.push(PathSegment::Index(*index));
            }
        }
    }

    fn depth(&self) -> usize {
        match self {
            Frame::Root => 0,
            Frame::Key(parent, _) | Frame::Index(parent, _) => parent.depth() + 1,
        }
    }
}

struct Checker<'s> {
    schema: &'s CompiledSchema,
    budget: usize,
    /// Nesting of `check` calls: schema references can loop (`a` refers to `a`), values nest.
    depth: usize,
}

/// Deepest nesting of checks: beyond it the value or the schema's references are too deep to
/// check, which is reported rather than overflowing the stack.
const MAX_DEPTH: usize = 256;

fn problem(path: &Frame<'_>, kind: ProblemKind, expected: String, found: String) -> Problem {
    Problem {
        path: path.path(),
        kind,
        expected,
        found,
        suggestions: Vec::new(),
    }
}

/// JSON equality with numbers compared by value (`1` equals `1.0`).
pub(crate) fn same(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => left == right,
    }
}

impl Checker<'_> {
    fn check(&mut self, id: NodeId, value: &Value, path: &Frame<'_>, out: &mut Vec<Problem>) {
        if self.budget == 0 {
            return;
        }
        if self.depth >= MAX_DEPTH {
            // Spend the budget: the validation as a whole is reported as too deep to check.
            self.budget = 0;
            return;
        }
        self.budget -= 1;
        self.depth += 1;
        self.check_node(id, value, path, out);
        self.depth -= 1;
    }

    fn check_node(&mut self, id: NodeId, value: &Value, path: &Frame<'_>, out: &mut Vec<Problem>) {
        let schema = self.schema;
        let node = schema.node(id);
        if node.never {
            out.push(problem(
                path,
                ProblemKind::Never,
                "nothing (no value is allowed here)".into(),
                show(value),
            ));
            return;
        }
        if let Some(target) = node.reference {
            self.check(target, value, path, out);
        }
        if let Some(types) = node.types
            && !types.accepts(Types::of(value))
        {
            out.push(problem(
                path,
                ProblemKind::Type,
                schema.describe(id),
                show(value),
            ));
            return;
        }
        if let Some(constant) = &node.constant
            && !same(constant, value)
        {
            let expected = format!("exactly {constant}");
            out.push(problem(
                path,
                ProblemKind::NotAllowed,
                expected,
                show(value),
            ));
        }
        if let Some(values) = &node.enumeration
            && !values.iter().any(|v| same(v, value))
        {
            let expected = one_of_values(values);
            out.push(problem(
                path,
                ProblemKind::NotAllowed,
                expected,
                show(value),
            ));
        }
        let before = out.len();
        match value {
            Value::Number(n) => Self::number(
                id,
                node,
                n.as_f64().unwrap_or(0.0),
                value,
                path,
                schema,
                out,
            ),
            Value::String(s) => Self::string(id, node, s, value, path, schema, out),
            Value::Array(items) => self.array(id, node, items, path, out),
            Value::Object(map) => self.object(node, map, path, out),
            Value::Null | Value::Bool(_) => {}
        }
        // One problem per value and rule family: a number out of `minimum`/`maximum` is not
        // reported again for its integer format's bounds.
        let range_reported = out[before..]
            .iter()
            .any(|problem| problem.kind == ProblemKind::Range);
        if let Some(format) = &node.format
            && !range_reported
            && !format.check(value)
        {
            let kind = if matches!(value, Value::Number(_)) {
                ProblemKind::Range
            } else {
                ProblemKind::Format
            };
            out.push(problem(path, kind, schema.describe(id), show(value)));
        }
        self.combinators(id, node, value, path, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn number(
        id: NodeId,
        node: &Node,
        n: f64,
        value: &Value,
        path: &Frame<'_>,
        schema: &CompiledSchema,
        out: &mut Vec<Problem>,
    ) {
        let below = node.minimum.is_some_and(|min| n < min)
            || node.exclusive_minimum.is_some_and(|min| n <= min);
        let above = node.maximum.is_some_and(|max| n > max)
            || node.exclusive_maximum.is_some_and(|max| n >= max);
        let off_step = node.multiple_of.is_some_and(|step| {
            let q = n / step;
            (q - q.round()).abs() > 1e-9
        });
        if below || above || off_step {
            out.push(problem(
                path,
                ProblemKind::Range,
                schema.describe(id),
                show(value),
            ));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn string(
        id: NodeId,
        node: &Node,
        s: &str,
        value: &Value,
        path: &Frame<'_>,
        schema: &CompiledSchema,
        out: &mut Vec<Problem>,
    ) {
        if node.min_length.is_some() || node.max_length.is_some() {
            let len = s.chars().count();
            if node.min_length.is_some_and(|min| len < min)
                || node.max_length.is_some_and(|max| len > max)
            {
                let shown = show(value);
                let found = if shown.ends_with("characters)") {
                    shown
                } else {
                    format!("{shown} ({len} characters)")
                };
                out.push(problem(
                    path,
                    ProblemKind::Length,
                    schema.describe(id),
                    found,
                ));
            }
        }
        if let Some((_, regex)) = &node.pattern
            && !regex.is_match(s)
        {
            out.push(problem(
                path,
                ProblemKind::Pattern,
                schema.describe(id),
                show(value),
            ));
        }
    }

    fn array(
        &mut self,
        id: NodeId,
        node: &Node,
        items: &[Value],
        path: &Frame<'_>,
        out: &mut Vec<Problem>,
    ) {
        let schema = self.schema;
        for (i, item) in items.iter().enumerate() {
            let item_schema = node.prefix_items.get(i).copied().or(node.items);
            if let Some(item_schema) = item_schema {
                self.check(item_schema, item, &Frame::Index(path, i), out);
            } else if !node.prefix_items.is_empty() && node.items.is_none() {
                // A tuple takes no items past its own (unless the schema allows them).
            }
        }
        let len = items.len();
        let count_off = node.min_items.is_some_and(|min| len < min)
            || node.max_items.is_some_and(|max| len > max);
        if count_off {
            let found = match len {
                0 => "an empty array".to_owned(),
                1 => "an array of 1 item".to_owned(),
                n => format!("an array of {n} items"),
            };
            out.push(problem(
                path,
                ProblemKind::Items,
                schema.describe(id),
                found,
            ));
        }
        if node.unique_items {
            let mut seen = HashSet::new();
            if let Some(i) = items.iter().position(|item| !seen.insert(canonical(item))) {
                let found = format!("a repeated item at [{i}]: {}", show(&items[i]));
                out.push(problem(
                    path,
                    ProblemKind::Items,
                    schema.describe(id),
                    found,
                ));
            }
        }
        if let Some(contains) = node.contains {
            let matching = items
                .iter()
                .filter(|item| {
                    let mut scratch = Vec::new();
                    self.check(contains, item, path, &mut scratch);
                    scratch.is_empty()
                })
                .count();
            let min = node.min_contains.unwrap_or(1);
            if matching < min || node.max_contains.is_some_and(|max| matching > max) {
                let expected = format!(
                    "an array with {min} or more items that are {}",
                    schema.describe(contains)
                );
                let found = format!("{matching} such items");
                out.push(problem(path, ProblemKind::Items, expected, found));
            }
        }
    }

    fn object(
        &mut self,
        node: &Node,
        map: &Map<String, Value>,
        path: &Frame<'_>,
        out: &mut Vec<Problem>,
    ) {
        let schema = self.schema;
        for (key, member) in map {
            let mut known = false;
            if let Some(member_schema) = node.property(key) {
                known = true;
                self.check(member_schema, member, &Frame::Key(path, key), out);
            }
            for (regex, member_schema) in &node.pattern_properties {
                if regex.is_match(key) {
                    known = true;
                    self.check(*member_schema, member, &Frame::Key(path, key), out);
                }
            }
            if !known {
                match node.additional {
                    Additional::Any => {}
                    Additional::Schema(member_schema) => {
                        self.check(member_schema, member, &Frame::Key(path, key), out);
                    }
                    Additional::Deny => out.push(Problem {
                        path: Frame::Key(path, key).path(),
                        kind: ProblemKind::Unknown,
                        expected: "no such argument".into(),
                        found: show(member),
                        suggestions: close_matches(
                            key,
                            node.properties
                                .iter()
                                .map(|(name, _)| name.as_str())
                                .filter(|name| !map.contains_key(*name)),
                        ),
                    }),
                }
            }
            if let Some(names) = node.property_names {
                let mut scratch = Vec::new();
                self.check(names, &Value::String(key.clone()), path, &mut scratch);
                if !scratch.is_empty() {
                    let expected = format!("member names that are {}", schema.describe(names));
                    out.push(problem(
                        &Frame::Key(path, key),
                        ProblemKind::Members,
                        expected,
                        format!("{key:?}"),
                    ));
                }
            }
        }
        for name in &node.required {
            if !map.contains_key(name) {
                let expected = node
                    .property(name)
                    .map_or_else(|| "a value".to_owned(), |id| schema.describe(id));
                out.push(problem(
                    &Frame::Key(path, name),
                    ProblemKind::Missing,
                    expected,
                    "nothing".into(),
                ));
            }
        }
        for (name, needed) in &node.dependent_required {
            if map.contains_key(name) {
                for other in needed.iter().filter(|other| !map.contains_key(*other)) {
                    let expected = format!("`{other}` as well, since `{name}` is given");
                    out.push(problem(
                        &Frame::Key(path, other),
                        ProblemKind::Missing,
                        expected,
                        "nothing".into(),
                    ));
                }
            }
        }
        let len = map.len();
        if node.min_properties.is_some_and(|min| len < min)
            || node.max_properties.is_some_and(|max| len > max)
        {
            let expected = match (node.min_properties, node.max_properties) {
                (Some(min), Some(max)) => format!("an object with {min} to {max} members"),
                (Some(min), None) => format!("an object with at least {min} members"),
                (_, max) => format!("an object with at most {} members", max.unwrap_or(0)),
            };
            out.push(problem(
                path,
                ProblemKind::Members,
                expected,
                format!("{len} members"),
            ));
        }
    }

    fn combinators(
        &mut self,
        id: NodeId,
        node: &Node,
        value: &Value,
        path: &Frame<'_>,
        out: &mut Vec<Problem>,
    ) {
        let schema = self.schema;
        for part in &node.all_of {
            self.check(*part, value, path, out);
        }
        for (branches, exactly_one) in [(&node.any_of, false), (&node.one_of, true)] {
            if branches.is_empty() {
                continue;
            }
            let mut results = Vec::with_capacity(branches.len());
            for branch in branches {
                let mut found = Vec::new();
                self.check(*branch, value, path, &mut found);
                let matched = found.is_empty();
                results.push((*branch, found));
                if matched && !exactly_one {
                    break;
                }
            }
            let matched = results.iter().filter(|(_, found)| found.is_empty()).count();
            if matched == 1 || (matched > 1 && !exactly_one) {
                continue;
            }
            if matched > 1 {
                let expected = format!("exactly one of {}", schema.describe(id));
                out.push(problem(
                    path,
                    ProblemKind::Alternatives,
                    expected,
                    show(value),
                ));
                continue;
            }
            // None matched: when the value's type (or its tag) picks one branch, report that
            // branch's own problems, which say more than "none of the alternatives".
            let value_type = Types::of(value);
            let typed: Vec<&(NodeId, Vec<Problem>)> = results
                .iter()
                .filter(|(branch, _)| schema.types_of(*branch).accepts(value_type))
                .collect();
            let chosen = match typed.as_slice() {
                [one] => Some(*one),
                _ => results
                    .iter()
                    .min_by_key(|(_, found)| found.len())
                    .filter(|(_, found)| {
                        found.iter().all(|p| p.path.segments().len() > path.depth())
                    }),
            };
            if let Some((_, found)) = chosen {
                out.extend(found.iter().cloned());
            } else {
                let expected = node
                    .types
                    .map_or_else(|| schema.describe(id), |_| alternatives(schema, branches));
                out.push(problem(
                    path,
                    ProblemKind::Alternatives,
                    expected,
                    show(value),
                ));
            }
        }
        if let Some(not) = node.not {
            let mut found = Vec::new();
            self.check(not, value, path, &mut found);
            if found.is_empty() {
                let expected = format!("anything but {}", schema.describe(not));
                out.push(problem(
                    path,
                    ProblemKind::Alternatives,
                    expected,
                    show(value),
                ));
            }
        }
        if let Some((condition, then, otherwise)) = node.if_then_else {
            let mut found = Vec::new();
            self.check(condition, value, path, &mut found);
            let next = if found.is_empty() { then } else { otherwise };
            if let Some(next) = next {
                self.check(next, value, path, out);
            }
        }
    }
}

fn alternatives(schema: &CompiledSchema, branches: &[NodeId]) -> String {
    let parts: Vec<String> = branches.iter().map(|b| schema.describe(*b)).collect();
    super::compiled::join_or(&parts)
}

/// A key for duplicate detection: numbers by value, objects with sorted keys. Written once as
/// JSON text, so its size is linear in the value's (quoting nested keys level by level would
/// grow exponentially with depth).
fn canonical(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Number(n) => out.push_str(&n.as_f64().map_or_else(|| n.to_string(), num)),
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for key in keys {
                    out.push_str(&Value::from(key.as_str()).to_string());
                    out.push(':');
                    write(&map[key.as_str()], out);
                    out.push(',');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for item in items {
                    write(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}
