//! Validation of a value against a compiled schema: every violation, each with its path.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::compiled::{
    Additional, CompiledSchema, Discriminator, Dynamic, Node, NodeId, ROOT, Types, keywords,
    one_of_values,
};
use super::number::{self, same};
use super::problem::{Problem, ProblemKind, show};
use crate::json;
use crate::json::{ArgPath, PathSegment};
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
    /// use toolwright::args::CompiledSchema;
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
        if problems.len() > 1 {
            // The same rule met twice on one value (`allOf` parts, a chain of `$ref`s that each
            // say it) is one problem.
            let mut seen = HashSet::new();
            problems.retain(|problem| seen.insert(problem.to_string()));
        }
        if !complete {
            problems.push(Problem::too_complex());
        }
        problems
    }
}

impl CompiledSchema {
    /// Whether a value is valid against one node of the schema (no message is built).
    pub(crate) fn valid_at(&self, id: NodeId, value: &Value) -> bool {
        let mut checker = Checker::new(self, value, false);
        checker.check(id, value, &Frame::Root, &mut Vec::new());
        !checker.failed && !checker.exhausted
    }

    /// Whether a value keeps every rule of the schema that serde's derived `Deserialize` does
    /// not enforce by itself ([`needs_check`](Self::needs_check)): members and items whose
    /// schema says no more than serde are not visited, except inside union branches tried
    /// (which branch holds may turn on them). For arguments that are then deserialized into
    /// the generated type: the two together are the full check.
    pub(crate) fn valid_beyond_serde(&self, value: &Value) -> bool {
        let mut checker = Checker::new(self, value, false);
        checker.beyond_serde = true;
        checker.check(ROOT, value, &Frame::Root, &mut Vec::new());
        !checker.failed && !checker.exhausted
    }

    /// The problems of a value against one node, and whether the check ran to the end (within
    /// its budget and depth).
    fn check_at(&self, id: NodeId, value: &Value) -> (Vec<Problem>, bool) {
        let mut checker = Checker::new(self, value, true);
        let mut problems = Vec::new();
        checker.check(id, value, &Frame::Root, &mut problems);
        (problems, !checker.exhausted)
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

/// Walks a value beside the schema. Collecting, it builds every problem; otherwise (a branch
/// tried, a condition, `not`, `contains`) it stops at the first and builds no text.
#[allow(clippy::struct_excessive_bools)] // The state of one walk, each flag read apart.
struct Checker<'s> {
    schema: &'s CompiledSchema,
    /// Schema visits left: [`BUDGET`] to start with, topped up once to [`BUDGET_PER_VALUE`]
    /// per value of the arguments if that is more (counting them only then).
    budget: usize,
    topped_up: bool,
    /// Whether the check stopped before its end (budget or depth).
    exhausted: bool,
    /// The whole value checked, for the top-up.
    value: &'s Value,
    /// Nesting of `check` calls in all.
    depth: usize,
    /// Nesting of `check` calls on the same value (`$ref`s, `allOf`, ...): a reference that
    /// loops back without moving into the value stops here.
    in_place: usize,
    /// The schema resources entered, outermost first (only for `$dynamicRef` by scope).
    scope: Vec<u32>,
    collect: bool,
    /// Whether a problem was found while not collecting.
    failed: bool,
    /// Whether members and items serde checks by itself are left to it
    /// ([`CompiledSchema::valid_beyond_serde`]).
    beyond_serde: bool,
}

/// Deepest nesting of checks in all: a bound on the stack the check takes, far above what a
/// value within the depth limit needs (a few checks per level).
const MAX_DEPTH: usize = 1024;
/// Deepest nesting of checks on one value.
const MAX_IN_PLACE: usize = 48;

fn problem(path: &Frame<'_>, kind: ProblemKind, expected: String, found: String) -> Problem {
    Problem {
        path: path.path(),
        kind,
        expected,
        found,
        suggestions: Vec::new(),
    }
}

/// The problem of a tagged union's object whose tag is missing or names no branch: the tag's
/// values, and what was sent.
#[cold]
fn tag_problem(path: &Frame<'_>, tag: &Discriminator, found: Option<&Value>) -> Problem {
    let values: Vec<Value> = tag
        .branches
        .iter()
        .map(|(value, _)| value.clone())
        .collect();
    let expected = one_of_values(&values);
    let at = Frame::Key(path, &tag.name);
    match found {
        None => problem(&at, ProblemKind::Missing, expected, "nothing".into()),
        Some(found) => problem(&at, ProblemKind::NotAllowed, expected, show(found)),
    }
}

/// Builds and keeps a problem: out of line, so that the checks, which rarely report, stay
/// small.
#[cold]
#[inline(never)]
fn push(out: &mut Vec<Problem>, make: impl FnOnce() -> Problem) {
    out.push(make());
}

/// What the in-place subschemas of a node evaluated (for `unevaluated*`): member names, item
/// indices.
struct Evaluated<'v> {
    keys: HashSet<&'v str>,
    items: Vec<bool>,
}

impl<'s> Checker<'s> {
    fn new(schema: &'s CompiledSchema, value: &'s Value, collect: bool) -> Self {
        Checker {
            schema,
            budget: BUDGET,
            topped_up: false,
            exhausted: false,
            value,
            depth: 0,
            in_place: 0,
            scope: Vec::new(),
            collect,
            failed: false,
            beyond_serde: false,
        }
    }

    /// Whether checking on is pointless: a problem found while not collecting (the answer is
    /// known), or the budget spent.
    fn stopped(&self) -> bool {
        (self.failed && !self.collect) || self.exhausted
    }

    /// Notes a problem: built (by `make`) only when collecting.
    fn report(&mut self, out: &mut Vec<Problem>, make: impl FnOnce() -> Problem) {
        if self.collect {
            push(out, make);
        } else {
            self.failed = true;
        }
    }

    /// Whether a value is valid against a node, building nothing.
    fn valid(&mut self, id: NodeId, value: &Value) -> bool {
        // Which of several branches holds may turn on what serde alone would check.
        let beyond_serde = std::mem::replace(&mut self.beyond_serde, false);
        let valid = self.valid_as_is(id, value);
        self.beyond_serde = beyond_serde;
        valid
    }

    /// Whether a value is valid against a node, building nothing, visiting what the check as a
    /// whole visits (a branch picked by its tag, which serde picks by the same tag).
    fn valid_as_is(&mut self, id: NodeId, value: &Value) -> bool {
        let (collect, failed) = (self.collect, self.failed);
        self.collect = false;
        self.failed = false;
        self.check(id, value, &Frame::Root, &mut Vec::new());
        let valid = !self.failed && !self.exhausted;
        self.collect = collect;
        self.failed = failed;
        valid
    }

    /// The problems of a value against a node (collecting, whatever the mode).
    fn problems(&mut self, id: NodeId, value: &Value, path: &Frame<'_>) -> Vec<Problem> {
        let (collect, failed) = (self.collect, self.failed);
        self.collect = true;
        let mut found = Vec::new();
        self.check(id, value, path, &mut found);
        self.collect = collect;
        self.failed = failed;
        found
    }

    /// Checks a member or an item: a step into the value.
    fn check_child(&mut self, id: NodeId, value: &Value, path: &Frame<'_>, out: &mut Vec<Problem>) {
        if self.beyond_serde && !self.schema.needs_check(id) {
            return;
        }
        let in_place = std::mem::replace(&mut self.in_place, 0);
        self.check(id, value, path, out);
        self.in_place = in_place;
    }

    /// Spends one schema visit; `false` once the budget is spent.
    fn spend(&mut self) -> bool {
        if self.budget == 0 && !self.topped_up {
            self.topped_up = true;
            self.budget = json::work_budget(self.value, BUDGET, BUDGET_PER_VALUE) - BUDGET;
        }
        if self.budget == 0 {
            self.exhausted = true;
            return false;
        }
        self.budget -= 1;
        true
    }

    /// Stops the whole check: it is reported as too large or deep to check.
    fn give_up(&mut self) {
        self.exhausted = true;
        self.budget = 0;
        self.topped_up = true;
    }

    fn check(&mut self, id: NodeId, value: &Value, path: &Frame<'_>, out: &mut Vec<Problem>) {
        if self.failed && !self.collect || !self.spend() {
            return;
        }
        // A `$ref` with nothing beside it is its target (unless scope matters, for
        // `$dynamicRef`: a reference may enter another resource).
        let id = if self.schema.dynamic {
            id
        } else {
            self.schema.target(id)
        };
        if self.depth >= MAX_DEPTH || self.in_place >= MAX_IN_PLACE {
            // The validation as a whole is reported as too deep to check.
            self.give_up();
            return;
        }
        self.depth += 1;
        self.in_place += 1;
        let entered = self.schema.dynamic && self.enter(id);
        self.check_node(id, value, path, out);
        if entered {
            self.scope.pop();
        }
        self.in_place -= 1;
        self.depth -= 1;
    }

    /// Enters a node's schema resource into the dynamic scope, when it is not the current one.
    fn enter(&mut self, id: NodeId) -> bool {
        let resource = self.schema.node(id).resource;
        if self.scope.last() == Some(&resource) {
            return false;
        }
        self.scope.push(resource);
        true
    }

    /// Where a `$dynamicRef` leads now: the outermost resource in scope with its anchor.
    fn dynamic_target(&self, dynamic: &Dynamic) -> NodeId {
        let Some(anchor) = &dynamic.anchor else {
            return dynamic.fallback;
        };
        self.scope
            .iter()
            .find_map(|resource| {
                self.schema.dynamic_anchors[*resource as usize]
                    .iter()
                    .find(|(name, _)| name == anchor)
                    .map(|(_, id)| *id)
            })
            .unwrap_or(dynamic.fallback)
    }

    fn check_node(&mut self, id: NodeId, value: &Value, path: &Frame<'_>, out: &mut Vec<Problem>) {
        let schema = self.schema;
        let node = schema.node(id);
        if node.keywords == 0 {
            return;
        }
        if node.has(keywords::NEVER) {
            self.report(out, || {
                problem(
                    path,
                    ProblemKind::Never,
                    "nothing (no value is allowed here)".into(),
                    show(value),
                )
            });
            return;
        }
        if node.has(keywords::REFERENCE) {
            if let Some(target) = node.reference {
                self.check(target, value, path, out);
            }
            if let Some(dynamic) = &node.dynamic_reference {
                let target = self.dynamic_target(dynamic);
                self.check(target, value, path, out);
            }
        }
        if let Some(types) = node.types
            && !types.accepts(Types::of(value))
        {
            self.report(out, || {
                problem(path, ProblemKind::Type, schema.describe(id), show(value))
            });
            return;
        }
        if node.has(keywords::LISTED) {
            self.listed(node, value, path, out);
        }
        // One problem per value and rule family: a number out of `minimum`/`maximum` is not
        // reported again for its integer format's bounds.
        let mut range_reported = false;
        match value {
            Value::Number(n) if node.has(keywords::NUMBER) && !node.number_holds(n) => {
                range_reported = true;
                self.report(out, || {
                    problem(path, ProblemKind::Range, schema.describe(id), show(value))
                });
            }
            Value::String(s) if node.has(keywords::STRING) => {
                self.string(id, node, s, value, path, out);
            }
            Value::Array(items) if node.has(keywords::ARRAY) => {
                self.array(id, node, items, path, out);
            }
            Value::Object(map) if node.has(keywords::OBJECT) => {
                self.object(node, map, path, out);
            }
            _ => {}
        }
        if node.has(keywords::FORMAT)
            && let Some(format) = &node.format
            && !range_reported
            && !format.check(value)
        {
            let kind = if matches!(value, Value::Number(_)) {
                ProblemKind::Range
            } else {
                ProblemKind::Format
            };
            self.report(out, || {
                problem(path, kind, schema.describe(id), show(value))
            });
        }
        if node.has(keywords::COMBINATORS) {
            self.combinators(id, node, value, path, out);
        }
        if node.has(keywords::UNEVALUATED) {
            self.unevaluated(id, node, value, path, out);
        }
    }

    /// `const` and `enum`.
    #[inline(never)]
    fn listed(&mut self, node: &Node, value: &Value, path: &Frame<'_>, out: &mut Vec<Problem>) {
        if let Some(constant) = &node.constant
            && !same(constant, value)
        {
            self.report(out, || {
                let expected = format!("exactly {constant}");
                problem(path, ProblemKind::NotAllowed, expected, show(value))
            });
        }
        if let Some(values) = &node.enumeration
            && !values.iter().any(|v| same(v, value))
        {
            self.report(out, || {
                problem(
                    path,
                    ProblemKind::NotAllowed,
                    one_of_values(values),
                    show(value),
                )
            });
        }
    }

    #[inline(never)]
    fn string(
        &mut self,
        id: NodeId,
        node: &Node,
        s: &str,
        value: &Value,
        path: &Frame<'_>,
        out: &mut Vec<Problem>,
    ) {
        let schema = self.schema;
        if node.min_length.is_some() || node.max_length.is_some() {
            let len = s.chars().count();
            if node.min_length.is_some_and(|min| len < min)
                || node.max_length.is_some_and(|max| len > max)
            {
                self.report(out, || {
                    let shown = show(value);
                    let found = if shown.ends_with("characters)") {
                        shown
                    } else if len == 1 {
                        format!("{shown} (1 character)")
                    } else {
                        format!("{shown} ({len} characters)")
                    };
                    problem(path, ProblemKind::Length, schema.describe(id), found)
                });
            }
        }
        if let Some((_, regex)) = &node.pattern
            && !regex.is_match(s)
        {
            self.report(out, || {
                problem(path, ProblemKind::Pattern, schema.describe(id), show(value))
            });
        }
    }

    #[inline(never)]
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
            if self.stopped() {
                return;
            }
            if let Some(item_schema) = node.prefix_items.get(i).copied().or(node.items) {
                self.check_child(item_schema, item, &Frame::Index(path, i), out);
            }
        }
        let len = items.len();
        let count_off = node.min_items.is_some_and(|min| len < min)
            || node.max_items.is_some_and(|max| len > max);
        if count_off {
            self.report(out, || {
                let found = match len {
                    0 => "an empty array".to_owned(),
                    1 => "an array of 1 item".to_owned(),
                    n => format!("an array of {n} items"),
                };
                problem(path, ProblemKind::Items, schema.describe(id), found)
            });
        }
        if node.unique_items
            && let Some(i) = repeated(items)
        {
            self.report(out, || {
                let found = format!("a repeated item at [{i}]: {}", show(&items[i]));
                problem(path, ProblemKind::Items, schema.describe(id), found)
            });
        }
        if let Some(contains) = node.contains {
            let in_place = std::mem::replace(&mut self.in_place, 0);
            let matching = items
                .iter()
                .filter(|item| self.valid(contains, item))
                .count();
            self.in_place = in_place;
            let min = node.min_contains.unwrap_or(1);
            let max = node.max_contains;
            if matching < min || max.is_some_and(|max| matching > max) {
                self.report(out, || {
                    let what = schema.describe(contains);
                    let expected = match max {
                        Some(max) if max == min => {
                            format!(
                                "an array with exactly {min} {} that {}",
                                items_word(min),
                                is_are(min, &what)
                            )
                        }
                        Some(max) => format!("an array with {min} to {max} items that are {what}"),
                        None => format!(
                            "an array with at least {min} {} that {}",
                            items_word(min),
                            is_are(min, &what)
                        ),
                    };
                    let found = format!("{matching} such {}", items_word(matching));
                    problem(path, ProblemKind::Items, expected, found)
                });
            }
        }
    }

    #[inline(never)]
    fn object(
        &mut self,
        node: &Node,
        map: &Map<String, Value>,
        path: &Frame<'_>,
        out: &mut Vec<Problem>,
    ) {
        let schema = self.schema;
        // Required members met, counted on the way: the names are only looked up when some
        // are missing.
        let mut required_met = 0;
        for (key, member) in map {
            if self.stopped() {
                return;
            }
            let mut known = false;
            if let Some(index) = node.property_index(key) {
                known = true;
                required_met += usize::from(node.property_required[index]);
                let member_schema = node.properties[index].1;
                self.check_child(member_schema, member, &Frame::Key(path, key), out);
            }
            for (regex, member_schema) in &node.pattern_properties {
                if regex.is_match(key) {
                    known = true;
                    self.check_child(*member_schema, member, &Frame::Key(path, key), out);
                }
            }
            if !known {
                match node.additional {
                    Additional::Any => {}
                    Additional::Schema(member_schema) => {
                        self.check_child(member_schema, member, &Frame::Key(path, key), out);
                    }
                    Additional::Deny => self.report(out, || unknown(node, map, key, member, path)),
                }
            }
            if let Some(names) = node.property_names {
                let in_place = std::mem::replace(&mut self.in_place, 0);
                let valid = self.valid(names, &Value::String(key.clone()));
                self.in_place = in_place;
                if !valid {
                    self.report(out, || {
                        let expected = format!("member names that are {}", schema.describe(names));
                        problem(
                            &Frame::Key(path, key),
                            ProblemKind::Members,
                            expected,
                            format!("{key:?}"),
                        )
                    });
                }
            }
        }
        if !self.stopped() {
            self.members(node, map, required_met, path, out);
        }
    }

    /// `required`, `dependentRequired` and the member counts of an object, once its members
    /// are checked (`required_met`: how many required properties were among them).
    fn members(
        &mut self,
        node: &Node,
        map: &Map<String, Value>,
        required_met: usize,
        path: &Frame<'_>,
        out: &mut Vec<Problem>,
    ) {
        let schema = self.schema;
        let all_met = required_met == node.required_properties
            && node.required.len() == node.required_properties;
        for name in node.required.iter().filter(|_| !all_met) {
            if !map.contains_key(name) {
                self.report(out, || {
                    let expected = node
                        .property(name)
                        .map_or_else(|| "a value".to_owned(), |id| schema.describe(id));
                    problem(
                        &Frame::Key(path, name),
                        ProblemKind::Missing,
                        expected,
                        "nothing".into(),
                    )
                });
            }
        }
        for (name, needed) in &node.dependent_required {
            if map.contains_key(name) {
                for other in needed.iter().filter(|other| !map.contains_key(*other)) {
                    self.report(out, || {
                        let expected = format!("`{other}` as well, since `{name}` is given");
                        problem(
                            &Frame::Key(path, other),
                            ProblemKind::Missing,
                            expected,
                            "nothing".into(),
                        )
                    });
                }
            }
        }
        let len = map.len();
        if node.min_properties.is_some_and(|min| len < min)
            || node.max_properties.is_some_and(|max| len > max)
        {
            self.report(out, || {
                let members = |n: usize| if n == 1 { "member" } else { "members" };
                let expected = match (node.min_properties, node.max_properties) {
                    (Some(min), Some(max)) => format!("an object with {min} to {max} members"),
                    (Some(min), None) => {
                        format!("an object with at least {min} {}", members(min))
                    }
                    (_, max) => {
                        let max = max.unwrap_or(0);
                        format!("an object with at most {max} {}", members(max))
                    }
                };
                problem(
                    path,
                    ProblemKind::Members,
                    expected,
                    format!("{len} {}", members(len)),
                )
            });
        }
    }

    #[inline(never)]
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
        if self.stopped() {
            return;
        }
        if let Value::Object(map) = value {
            for (name, dependent) in &node.dependent_schemas {
                if map.contains_key(name) {
                    self.check(*dependent, value, path, out);
                }
            }
        }
        for (branches, exactly_one) in [(&node.any_of, false), (&node.one_of, true)] {
            if branches.is_empty() {
                continue;
            }
            // (`branches` is not empty: this is the one list the node's tag, if any, is of.)
            let matched = match schema.discriminator(id) {
                // Branches told apart by a tag: only the one the value names can hold.
                Some(tag) => tag
                    .branch_of(value)
                    .map_or(0, |branch| usize::from(self.valid_as_is(branch, value))),
                None => self.matching(branches, value, exactly_one),
            };
            if matched == 1 || (matched > 1 && !exactly_one) {
                continue;
            }
            if !self.collect {
                self.failed = true;
                return;
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
            // A tag that names no branch (or is missing) is the one problem: the branches
            // that hold for other tags have nothing to say about this object.
            if let Some(tag) = schema.discriminator(id)
                && let Value::Object(map) = value
                && tag.branch_of(value).is_none()
            {
                out.push(tag_problem(path, tag, map.get(&tag.name)));
                continue;
            }
            // None matched: when the value's type (or its tag) picks one branch, report that
            // branch's own problems, which say more than "none of the alternatives".
            let results: Vec<(NodeId, Vec<Problem>)> = branches
                .iter()
                .map(|branch| (*branch, self.problems(*branch, value, path)))
                .collect();
            let value_type = Types::of(value);
            let typed: Vec<&(NodeId, Vec<Problem>)> = results
                .iter()
                .filter(|(branch, _)| schema.types_of(*branch).accepts(value_type))
                .collect();
            let chosen = match typed.as_slice() {
                [one] => Some(*one),
                _ => results
                    .iter()
                    .filter(|(_, found)| !found.is_empty())
                    .min_by_key(|(_, found)| found.len())
                    .filter(|(_, found)| {
                        found.iter().all(|p| p.path.segments().len() > path.depth())
                    }),
            };
            match chosen {
                Some((_, found)) if !found.is_empty() => out.extend(found.iter().cloned()),
                _ => {
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
        }
        if let Some(not) = node.not
            && self.valid(not, value)
        {
            self.report(out, || {
                let expected = format!("anything but {}", schema.describe(not));
                problem(path, ProblemKind::Alternatives, expected, show(value))
            });
        }
        if let Some((condition, then, otherwise)) = node.if_then_else {
            let next = if self.valid(condition, value) {
                then
            } else {
                otherwise
            };
            if let Some(next) = next {
                self.check(next, value, path, out);
            }
        }
    }

    /// How many branches hold (counting stops at 1 for `anyOf`, at 2 for `oneOf`).
    fn matching(&mut self, branches: &[NodeId], value: &Value, exactly_one: bool) -> usize {
        let value_type = Types::of(value);
        let mut matched = 0;
        for branch in branches {
            // A branch that takes no value of this type cannot hold: not tried.
            if self.schema.types_of(*branch).accepts(value_type) && self.valid(*branch, value) {
                matched += 1;
                if !exactly_one || matched > 1 {
                    break;
                }
            }
        }
        matched
    }

    /// `unevaluatedProperties` and `unevaluatedItems`: what no other keyword of the node (or
    /// of the subschemas that apply in place and hold) evaluated.
    #[inline(never)]
    fn unevaluated(
        &mut self,
        id: NodeId,
        node: &Node,
        value: &Value,
        path: &Frame<'_>,
        out: &mut Vec<Problem>,
    ) {
        let mut evaluated = Evaluated {
            keys: HashSet::new(),
            items: vec![false; value.as_array().map_or(0, Vec::len)],
        };
        self.mark(id, value, &mut evaluated, true);
        match (value, node.unevaluated_properties, node.unevaluated_items) {
            (Value::Object(map), Some(rest), _) => {
                let deny = self.schema.node(rest).never;
                for (key, member) in map {
                    if evaluated.keys.contains(key.as_str()) {
                        continue;
                    }
                    if deny {
                        self.report(out, || unknown(node, map, key, member, path));
                    } else {
                        self.check_child(rest, member, &Frame::Key(path, key), out);
                    }
                }
            }
            (Value::Array(items), _, Some(rest)) => {
                for (i, item) in items.iter().enumerate() {
                    if !evaluated.items[i] {
                        self.check_child(rest, item, &Frame::Index(path, i), out);
                    }
                }
            }
            _ => {}
        }
    }

    /// Marks what a node evaluates in place (with `top`, leaving out its own `unevaluated*`),
    /// following only the subschemas that hold.
    fn mark<'v>(&mut self, id: NodeId, value: &'v Value, evaluated: &mut Evaluated<'v>, top: bool) {
        // Marking is schema visits too: from the same budget.
        if !self.spend() || self.depth >= MAX_DEPTH || self.in_place >= MAX_IN_PLACE {
            self.give_up();
            return;
        }
        let schema = self.schema;
        let node = schema.node(id);
        self.depth += 1;
        self.in_place += 1;
        let entered = schema.dynamic && self.enter(id);
        if let Some(target) = node.reference {
            self.mark(target, value, evaluated, false);
        }
        if let Some(dynamic) = &node.dynamic_reference {
            let target = self.dynamic_target(dynamic);
            self.mark(target, value, evaluated, false);
        }
        match value {
            Value::Object(map) => {
                for key in map.keys() {
                    let taken = node.property(key).is_some()
                        || node.pattern_properties.iter().any(|(r, _)| r.is_match(key));
                    let rest = !matches!(node.additional, Additional::Any)
                        || (!top && node.unevaluated_properties.is_some());
                    if taken || rest {
                        evaluated.keys.insert(key);
                    }
                }
                for (name, dependent) in &node.dependent_schemas {
                    if map.contains_key(name) {
                        self.mark(*dependent, value, evaluated, false);
                    }
                }
            }
            Value::Array(items) => {
                let all = node.items.is_some() || (!top && node.unevaluated_items.is_some());
                for (i, item) in items.iter().enumerate() {
                    if all
                        || i < node.prefix_items.len()
                        || node.contains.is_some_and(|c| self.valid(c, item))
                    {
                        evaluated.items[i] = true;
                    }
                }
            }
            _ => {}
        }
        for part in &node.all_of {
            self.mark(*part, value, evaluated, false);
        }
        for branch in node.any_of.iter().chain(&node.one_of) {
            if self.valid(*branch, value) {
                self.mark(*branch, value, evaluated, false);
            }
        }
        if let Some((condition, then, otherwise)) = node.if_then_else {
            if self.valid(condition, value) {
                self.mark(condition, value, evaluated, false);
                if let Some(then) = then {
                    self.mark(then, value, evaluated, false);
                }
            } else if let Some(otherwise) = otherwise {
                self.mark(otherwise, value, evaluated, false);
            }
        }
        if entered {
            self.scope.pop();
        }
        self.in_place -= 1;
        self.depth -= 1;
    }
}

fn unknown(
    node: &Node,
    map: &Map<String, Value>,
    key: &str,
    member: &Value,
    path: &Frame<'_>,
) -> Problem {
    Problem {
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
    }
}

fn items_word(n: usize) -> &'static str {
    if n == 1 { "item" } else { "items" }
}

/// `is a string` / `are strings`.
fn is_are(n: usize, what: &str) -> String {
    if n == 1 {
        format!("is {what}")
    } else {
        format!("are {what}")
    }
}

fn alternatives(schema: &CompiledSchema, branches: &[NodeId]) -> String {
    let parts: Vec<String> = branches.iter().map(|b| schema.describe(*b)).collect();
    super::compiled::join_or(&parts)
}

/// The index of the first item equal to an earlier one: few items compared pairwise, many
/// by a canonical key.
fn repeated(items: &[Value]) -> Option<usize> {
    if items.len() <= 16 {
        return (1..items.len())
            .find(|&i| items[..i].iter().any(|earlier| same(earlier, &items[i])));
    }
    let mut seen = HashSet::new();
    items.iter().position(|item| !seen.insert(canonical(item)))
}

/// A key for duplicate detection: numbers by value, objects with sorted keys. Written once as
/// JSON text, so its size is linear in the value's (quoting nested keys level by level would
/// grow exponentially with depth).
fn canonical(value: &Value) -> String {
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Number(n) => out.push_str(&number::canonical(n)),
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
