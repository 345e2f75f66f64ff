//! The message a model gets for arguments that are wrong: everything at once, in one message it
//! can act on.
//!
//! ```text
//! 2 problems: `limit`: expected an integer from 1 to 50, found 0; missing required argument `query` (a string).
//! Your arguments, with each problem marked:
//! {
//!   "limit": 0,  // <- expected an integer from 1 to 50, found 0
//!   // "query": missing, required: a string
//! }
//! Required arguments: `query`. Accepted arguments: `query` (a string), `limit` (an integer from 1 to 50).
//! ```
//!
//! Deterministic (the arguments' own order), bounded in size however large the arguments are
//! (long strings, arrays and objects are cut around the problems), and free of Rust type names
//! and serde's line/column positions.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};

use serde_json::{Map, Value};
use toolwright_json::echo;

use toolwright_json::{ArgPath, PathSegment};
use toolwright_schema::{Problem, ProblemKind};

/// Problems listed in the summary line at most.
const SUMMARY_PROBLEMS: usize = 8;
/// Lines of the annotated arguments at most.
const MAX_LINES: usize = 120;
/// Characters of a string shown at most.
const MAX_STRING: usize = 80;
/// Items or members of a container shown at most besides those with problems.
const MAX_SIBLINGS: usize = 8;
/// Nesting rendered at most.
const MAX_DEPTH: usize = 12;

/// One argument a tool accepts, for the closing list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedArgument {
    /// Its name.
    pub name: String,
    /// What it takes, in words.
    pub expected: String,
}

/// Arguments that failed validation: every problem, with what the tool accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidArguments {
    /// Every problem, in document order.
    pub problems: Vec<Problem>,
    /// The tool's required arguments.
    pub required: Vec<String>,
    /// The tool's arguments, in declaration order.
    pub accepted: Vec<AcceptedArgument>,
    /// The arguments as the model sent them (repaired, where their text was not JSON), with
    /// every problem placed in them: a problem coercion led to (in `"5"` read as a number, or
    /// inside `"a"` read as `["a"]`) sits on the value sent and quotes it.
    pub arguments: Value,
}

impl InvalidArguments {
    /// Required arguments that are missing (top level).
    pub fn missing(&self) -> impl Iterator<Item = &str> {
        self.top_level(ProblemKind::Missing)
    }

    /// Arguments the tool does not accept (top level).
    pub fn unknown(&self) -> impl Iterator<Item = &str> {
        self.top_level(ProblemKind::Unknown)
    }

    fn top_level(&self, kind: ProblemKind) -> impl Iterator<Item = &str> {
        self.problems
            .iter()
            .filter(move |p| p.kind == kind && p.path.segments().len() == 1)
            .filter_map(|p| match p.path.segments().first() {
                Some(PathSegment::Key(name)) => Some(name.as_str()),
                _ => None,
            })
    }
}

impl fmt::Display for InvalidArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        if count == 1 {
            write!(f, "{}.", self.problems[0])?;
        } else {
            write!(f, "{count} problems: ")?;
            for (i, problem) in self.problems.iter().take(SUMMARY_PROBLEMS).enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                write!(f, "{problem}")?;
            }
            if count > SUMMARY_PROBLEMS {
                write!(f, "; and {} more (marked below)", count - SUMMARY_PROBLEMS)?;
            }
            f.write_str(".")?;
        }
        if self.arguments.is_object() && !self.problems.iter().all(|p| p.path.is_root()) {
            f.write_str("\nYour arguments, with each problem marked:\n")?;
            f.write_str(&annotate(&self.arguments, &self.problems))?;
        }
        f.write_str("\n")?;
        if self.required.is_empty() {
            f.write_str("This tool has no required arguments.")?;
        } else {
            write!(f, "Required arguments: {}.", quoted_list(&self.required))?;
        }
        if self.accepted.is_empty() {
            f.write_str(" It takes no arguments.")
        } else {
            f.write_str(" Accepted arguments: ")?;
            for (i, arg) in self.accepted.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "`{}` ({})", arg.name, arg.expected)?;
            }
            f.write_str(".")
        }
    }
}

fn quoted_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The arguments as indented JSON, each offending value followed by a `// <-` comment, missing
/// members shown in place as comments.
pub(crate) fn annotate(arguments: &Value, problems: &[Problem]) -> String {
    let mut notes: BTreeMap<&ArgPath, Vec<&Problem>> = BTreeMap::new();
    let mut marked: BTreeSet<Vec<PathSegment>> = BTreeSet::new();
    for problem in problems {
        notes.entry(&problem.path).or_default().push(problem);
        let segments = problem.path.segments();
        for len in 0..=segments.len() {
            marked.insert(segments[..len].to_vec());
        }
    }
    let mut out = Renderer {
        notes,
        marked,
        text: String::new(),
        lines: 0,
        cut: false,
    };
    out.value(arguments, &ArgPath::root(), 0, "", false);
    if out.cut {
        out.text
            .push_str("\n// ... (cut: the arguments are too long to show whole)");
    }
    out.text
}

struct Renderer<'a> {
    notes: BTreeMap<&'a ArgPath, Vec<&'a Problem>>,
    marked: BTreeSet<Vec<PathSegment>>,
    text: String,
    lines: usize,
    cut: bool,
}

impl Renderer<'_> {
    fn newline(&mut self, depth: usize) -> bool {
        if self.lines >= MAX_LINES {
            self.cut = true;
            return false;
        }
        self.lines += 1;
        self.text.push('\n');
        for _ in 0..depth {
            self.text.push_str("  ");
        }
        true
    }

    fn is_marked(&self, path: &ArgPath) -> bool {
        self.marked.contains(path.segments())
    }

    /// Renders `value` after `prefix` (`"key": `), with a trailing comma when `comma`.
    fn value(&mut self, value: &Value, path: &ArgPath, depth: usize, prefix: &str, comma: bool) {
        let comma = if comma { "," } else { "" };
        match value {
            Value::Object(map) if !map.is_empty() && depth < MAX_DEPTH => {
                let _ = write!(self.text, "{prefix}{{");
                self.note(path);
                self.members(map, path, depth);
                if self.newline(depth) {
                    let _ = write!(self.text, "}}{comma}");
                }
            }
            Value::Array(items) if !items.is_empty() && depth < MAX_DEPTH => {
                let _ = write!(self.text, "{prefix}[");
                self.note(path);
                self.items(items, path, depth);
                if self.newline(depth) {
                    let _ = write!(self.text, "]{comma}");
                }
            }
            Value::Object(map) => {
                let shown = if map.is_empty() { "{}" } else { "{...}" };
                let _ = write!(self.text, "{prefix}{shown}{comma}");
                self.note(path);
            }
            Value::Array(items) => {
                let shown = if items.is_empty() { "[]" } else { "[...]" };
                let _ = write!(self.text, "{prefix}{shown}{comma}");
                self.note(path);
            }
            Value::String(s) if s.chars().count() > MAX_STRING => {
                let cut: String = s.chars().take(MAX_STRING).collect();
                let _ = write!(self.text, "{prefix}{}{comma}", Value::from(cut));
                let _ = write!(self.text, "  // (cut: {} characters)", s.chars().count());
                self.note(path);
            }
            scalar => {
                let _ = write!(self.text, "{prefix}{scalar}{comma}");
                self.note(path);
            }
        }
    }

    /// An object's members, then its missing required members as comments.
    fn members(&mut self, map: &Map<String, Value>, path: &ArgPath, depth: usize) {
        let missing: Vec<&Problem> = self
            .notes
            .values()
            .flat_map(|problems| problems.iter().copied())
            .filter(|p| {
                p.kind == ProblemKind::Missing
                    && p.path.segments().len() == path.segments().len() + 1
                    && p.path.segments().starts_with(path.segments())
            })
            .collect();
        let shown = self.pick(&map.keys().map(|k| path.key(k)).collect::<Vec<_>>());
        let mut skipped = 0;
        for (i, (key, member)) in map.iter().enumerate() {
            if !shown.contains(&i) {
                skipped += 1;
                continue;
            }
            if !self.newline(depth + 1) {
                return;
            }
            let prefix = format!("{}: ", echo::quoted(key));
            self.value(
                member,
                &path.key(key),
                depth + 1,
                &prefix,
                i + 1 < map.len(),
            );
        }
        if skipped > 0 && self.newline(depth + 1) {
            let _ = write!(self.text, "// ... {skipped} more members without problems");
        }
        for problem in missing {
            if !self.newline(depth + 1) {
                return;
            }
            let name = match problem.path.segments().last() {
                Some(PathSegment::Key(key)) => Value::from(key.as_str()).to_string(),
                Some(PathSegment::Index(index)) => index.to_string(),
                None => String::new(),
            };
            let _ = write!(
                self.text,
                "// {name}: missing, required: {}",
                problem.expected
            );
        }
    }

    /// An array's items: those with problems, and the first few others.
    fn items(&mut self, items: &[Value], path: &ArgPath, depth: usize) {
        let shown = self.pick(&(0..items.len()).map(|i| path.index(i)).collect::<Vec<_>>());
        let mut skipped = 0;
        for (i, item) in items.iter().enumerate() {
            if !shown.contains(&i) {
                skipped += 1;
                continue;
            }
            if !self.newline(depth + 1) {
                return;
            }
            self.value(item, &path.index(i), depth + 1, "", i + 1 < items.len());
        }
        if skipped > 0 && self.newline(depth + 1) {
            let _ = write!(self.text, "// ... {skipped} more items without problems");
        }
    }

    /// The indices of a container's children to show: those with problems, and the first few
    /// others.
    fn pick(&self, children: &[ArgPath]) -> BTreeSet<usize> {
        let mut shown = BTreeSet::new();
        let mut others = 0;
        for (i, child) in children.iter().enumerate() {
            if self.is_marked(child) {
                shown.insert(i);
            } else if others < MAX_SIBLINGS {
                others += 1;
                shown.insert(i);
            }
        }
        shown
    }

    /// The comment for the problems at `path` (not missing members: those get their own line).
    fn note(&mut self, path: &ArgPath) {
        let Some(problems) = self.notes.get(path) else {
            return;
        };
        let texts: Vec<String> = problems
            .iter()
            .filter(|p| p.kind != ProblemKind::Missing)
            .map(|p| match p.kind {
                ProblemKind::Unknown if p.suggestions.is_empty() => {
                    "unknown argument: this tool does not take it".to_owned()
                }
                ProblemKind::Unknown => {
                    let names: Vec<String> =
                        p.suggestions.iter().map(|s| format!("`{s}`")).collect();
                    format!("unknown argument: did you mean {}?", names.join(" or "))
                }
                _ => format!("expected {}, found {}", p.expected, p.found),
            })
            .collect();
        if !texts.is_empty() {
            let _ = write!(self.text, "  // <- {}", texts.join("; "));
        }
    }
}
