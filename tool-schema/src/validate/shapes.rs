//! The keywords of one kind of value: strings (lengths, patterns, formats), arrays (items, bounds,
//! uniqueness, `contains`), objects (members, required, unknown, names, dependencies).

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{Checker, Frame, problem};
use crate::compiled::{Additional, Node, NodeId};
use crate::names::close_matches;
use crate::number::{self, same};
use crate::problem::{Problem, ProblemKind, show};

pub(super) fn unknown(
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

impl Checker<'_> {
    #[inline(never)]
    pub(super) fn string(
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
    pub(super) fn array(
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
            if let Some(item_schema) = node.item(i) {
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
    pub(super) fn object(
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
}
