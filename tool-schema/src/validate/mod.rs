//! Validation of a value against a compiled schema: every violation, each with its path.

mod apply;
mod shapes;

use std::collections::HashSet;

use serde_json::Value;

use crate::compiled::{
    CompiledSchema, Discriminator, Dynamic, Node, NodeId, ROOT, Types, keywords, one_of_values,
};
use crate::number::same;
use crate::problem::{Problem, ProblemKind, show};
use toolwright_json::value as json;
use toolwright_json::{ArgPath, PathSegment};

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
    /// use toolwright_schema::CompiledSchema;
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
    pub fn valid_at(&self, id: NodeId, value: &Value) -> bool {
        let mut checker = Checker::new(self, value, false);
        checker.check(id, value, &Frame::Root, &mut Vec::new());
        !checker.failed && !checker.exhausted
    }

    /// Whether a value keeps every rule of the schema that serde's derived `Deserialize` does
    /// not enforce by itself ([`needs_check`](Self::needs_check)): members and items whose
    /// schema says no more than serde are not visited, except inside union branches tried
    /// (which branch holds may turn on them). For arguments that are then deserialized into
    /// the generated type: the two together are the full check.
    pub fn valid_beyond_serde(&self, value: &Value) -> bool {
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
#[expect(
    clippy::struct_excessive_bools,
    reason = "The state of one walk, each flag read apart."
)]
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
}
