//! The keywords that apply subschemas to the same value: `allOf`, `anyOf`, `oneOf`, `not`,
//! `if`/`then`/`else`, and what the evaluated members and items leave to
//! `unevaluatedProperties`/`unevaluatedItems`.

use std::collections::HashSet;

use serde_json::Value;

use super::shapes::unknown;
use super::{Checker, Evaluated, Frame, MAX_DEPTH, MAX_IN_PLACE, problem, tag_problem};
use crate::compiled::{Additional, CompiledSchema, Node, NodeId, Types};
use crate::problem::{Problem, ProblemKind, show};

fn alternatives(schema: &CompiledSchema, branches: &[NodeId]) -> String {
    let parts: Vec<String> = branches.iter().map(|b| schema.describe(*b)).collect();
    crate::compiled::join_or(&parts)
}

impl Checker<'_> {
    #[inline(never)]
    pub(super) fn combinators(
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
    pub(super) fn unevaluated(
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
