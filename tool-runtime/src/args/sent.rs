//! Problems told where the model sent what they are about: coercion reads a value as another
//! (`"5"` as `5`, `"a"` as `["a"]`, a string holding JSON as that JSON), so the schema's checks
//! find problems in values the model never wrote. Each such problem is moved to the value the
//! model sent, and quotes it.

use serde_json::Value;
use toolwright_json::{ArgPath, PathSegment};
use toolwright_schema::{Coercion, CoercionKind, Problem, ProblemKind, problem};

/// `problems`, found in the coerced arguments, placed in `sent` (the arguments before the
/// `coercions` that were made on them): a problem inside a value coercion made (an array's item
/// where one value was sent, a member of the JSON a string held) sits on the value sent, and
/// says where inside it the problem is; every problem on a coerced value quotes what was sent.
pub(crate) fn as_sent(
    problems: Vec<Problem>,
    coercions: &[Coercion],
    sent: &Value,
) -> Vec<Problem> {
    if coercions.is_empty() {
        return problems;
    }
    problems
        .into_iter()
        .map(|problem| place(problem, coercions, sent))
        .collect()
}

fn place(mut problem: Problem, coercions: &[Coercion], sent: &Value) -> Problem {
    // The outermost value coercion changed on the problem's way: above it, the coerced
    // arguments and the sent ones are the same.
    let Some(at) = coercions
        .iter()
        .filter(|c| {
            !matches!(
                c.kind,
                CoercionKind::DroppedUnknown | CoercionKind::NullToAbsent
            )
        })
        .map(|c| &c.path)
        .filter(|path| problem.path.segments().starts_with(path.segments()))
        .min_by_key(|path| path.segments().len())
    else {
        return problem;
    };
    let Some(written) = value_at(sent, at) else {
        return problem;
    };
    let inside = ArgPath(problem.path.segments()[at.segments().len()..].to_vec());
    let inside = match (inside.segments(), single_wrapped(coercions, at)) {
        // The one item of an array made from the one value sent: that value.
        ([PathSegment::Index(0), rest @ ..], true) => ArgPath(rest.to_vec()),
        _ => inside,
    };
    if !inside.is_root() {
        problem.expected = match problem.kind {
            ProblemKind::Missing => {
                format!(
                    "a value with the required member `{inside}` ({})",
                    problem.expected
                )
            }
            ProblemKind::Unknown => format!("a value without the member `{inside}`"),
            _ => format!("{} at `{inside}` within it", problem.expected),
        };
        if matches!(problem.kind, ProblemKind::Missing | ProblemKind::Unknown) {
            problem.kind = ProblemKind::Members;
            problem.suggestions.clear();
        }
    }
    problem.found = problem::show(written);
    problem.path = at.clone();
    problem
}

fn single_wrapped(coercions: &[Coercion], at: &ArgPath) -> bool {
    coercions
        .iter()
        .any(|c| c.kind == CoercionKind::WrappedInArray && &c.path == at)
}

/// The value at `path`, if there is one.
pub(crate) fn value_at<'v>(value: &'v Value, path: &ArgPath) -> Option<&'v Value> {
    path.segments()
        .iter()
        .try_fold(value, |value, segment| match segment {
            PathSegment::Key(key) => value.get(key),
            PathSegment::Index(index) => value.get(index),
        })
}
