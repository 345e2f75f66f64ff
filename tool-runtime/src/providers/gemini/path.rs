//! Streamed function-call arguments as Gemini sends them: fragments of the arguments object, each
//! set at a JSON path (`a.b[2]`, `['odd key']`), appended or replaced.

use serde_json::{Map, Value};

use crate::wire::WireError;
use crate::wire::assembly::{Buf, State};
use crate::wire::read::{At, flag, kind, object, req_str};
use toolwright_json::echo;
use toolwright_json::value as json;

/// One `partialArgs` entry: a value set at a JSON path, a string continued while the previous
/// piece at the same path said `willContinue`.
pub(super) fn apply_fragment(
    state: &mut State,
    at: usize,
    fragment: &Value,
    path: &At,
) -> Result<(), WireError> {
    let fragment = object(fragment, path)?;
    let json_path = req_str(fragment, "jsonPath", path)?;
    let continues = flag(fragment, "willContinue", path)?;
    let (value, is_string) = if let Some(text) = fragment.get("stringValue") {
        let Value::String(text) = text else {
            return Err(WireError::new(path.key("stringValue"), "expected a string"));
        };
        (Value::String(text.clone()), true)
    } else if let Some(value) = ["numberValue", "boolValue", "structValue", "listValue"]
        .iter()
        .find_map(|key| fragment.get(*key))
    {
        (json::clone_value(value), false)
    } else if fragment.contains_key("nullValue") {
        (Value::Null, false)
    } else {
        return Err(WireError::new(
            path,
            "no value (`stringValue`, `numberValue`, `boolValue`, `nullValue`, `structValue` or `listValue`)",
        ));
    };
    let append = is_string && state.open_string.as_deref() == Some(json_path);
    state.open_string = (is_string && continues).then(|| json_path.to_owned());
    let Buf::Json(root) = &mut state.slots[at].buf else {
        return Err(WireError::new(path, "the call's arguments are not JSON"));
    };
    set_path(root, json_path, value, append)
        .map_err(|message| WireError::new(path.key("jsonPath"), message))
}

/// One step of a JSON path.
#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The most steps a path may take: the arguments' depth limit
/// ([`JsonLimits::max_depth`](crate::args::JsonLimits::max_depth)'s default), so that
/// fragments cannot build arguments deeper than any value read from one line could be.
const MAX_STEPS: usize = 128;

/// A normalized path of RFC 9535 (JSONPath): `$`, then `.name` (shorthand), `['name']` or
/// `["name"]` (quoted, with the RFC's escapes) and `[index]` steps, blanks allowed inside
/// brackets.
fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let shown = echo::Name(path);
    let mut rest = path
        .strip_prefix('$')
        .ok_or_else(|| format!("{shown} is not a JSON path: it does not start with `$`"))?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if steps.len() == MAX_STEPS {
            return Err(format!(
                "{shown} takes more than {MAX_STEPS} steps, deeper than arguments may nest"
            ));
        }
        if let Some(after) = rest.strip_prefix('.') {
            // member-name-shorthand: a letter, `_` or non-ASCII first; digits after.
            let end = after
                .char_indices()
                .find(|&(at, c)| {
                    !(c.is_ascii_alphabetic()
                        || c == '_'
                        || !c.is_ascii()
                        || (at > 0 && c.is_ascii_digit()))
                })
                .map_or(after.len(), |(at, _)| at);
            if end == 0 {
                return Err(format!("{shown} has a `.` without a name after it"));
            }
            steps.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let inner = after.trim_start_matches(BLANK);
            let (step, after) = if let Some(quote @ ('\'' | '"')) = inner.chars().next() {
                let (name, after) = quoted_name(&inner[1..], quote)
                    .ok_or_else(|| format!("{shown} has a badly quoted name"))?;
                (Step::Key(name), after)
            } else {
                let end = inner
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(inner.len());
                let digits = &inner[..end];
                // RFC 9535: no leading zeros; a negative index counts from the end, which a
                // path that builds arguments cannot mean.
                if digits.is_empty() || digits.len() > 1 && digits.starts_with('0') {
                    return Err(format!("{shown} has a bad index"));
                }
                let index = digits
                    .parse()
                    .map_err(|_| format!("{shown} has an index too large"))?;
                (Step::Index(index), &inner[end..])
            };
            rest = after
                .trim_start_matches(BLANK)
                .strip_prefix(']')
                .ok_or_else(|| format!("{shown} has a `[` without its `]`"))?;
            steps.push(step);
        } else {
            return Err(format!("{shown} is not a JSON path"));
        }
    }
    Ok(steps)
}

/// The four hex digits of a `\u` escape.
fn hex_unit(chars: &mut std::str::CharIndices<'_>) -> Option<u32> {
    let hex: String = chars.take(4).map(|(_, c)| c).collect();
    if hex.len() == 4 {
        u32::from_str_radix(&hex, 16).ok()
    } else {
        None
    }
}

/// Blank space RFC 9535 allows inside brackets.
const BLANK: [char; 4] = [' ', '\t', '\n', '\r'];

/// A quoted name after its opening `quote`, with the RFC 9535 escapes read (`\b`, `\f`, `\n`,
/// `\r`, `\t`, `\/`, `\\`, the quote itself, `\uXXXX` with surrogate pairs), and the text
/// after its closing quote.
fn quoted_name(text: &str, quote: char) -> Option<(String, &str)> {
    let mut name = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c == quote => return Some((name, &text[at + 1..])),
            '\\' => {
                let escaped = match chars.next()?.1 {
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    c @ ('/' | '\\') => c,
                    c if c == quote => c,
                    'u' => {
                        let high = hex_unit(&mut chars)?;
                        let code = if (0xD800..0xDC00).contains(&high) {
                            let (Some((_, '\\')), Some((_, 'u'))) = (chars.next(), chars.next())
                            else {
                                return None;
                            };
                            let low = hex_unit(&mut chars)?;
                            if !(0xDC00..0xE000).contains(&low) {
                                return None;
                            }
                            0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            high
                        };
                        char::from_u32(code)?
                    }
                    _ => return None,
                };
                name.push(escaped);
            }
            // Control characters must be escaped.
            c if u32::from(c) < 0x20 => return None,
            c => name.push(c),
        }
    }
    None
}

/// Sets `value` at `path` in `root`, making the objects and arrays on the way; appends to the
/// string there when `append`. An index may add one element to an array, not skip any.
fn set_path(root: &mut Value, path: &str, value: Value, append: bool) -> Result<(), String> {
    let steps = parse_path(path)?;
    let Some((last, on_the_way)) = steps.split_last() else {
        return match value {
            Value::Object(_) => {
                *root = value;
                Ok(())
            }
            _ => Err("the arguments at `$` must be an object".to_owned()),
        };
    };
    let mut current = root;
    for (at, step) in on_the_way.iter().enumerate() {
        let next = slot(current, step, path)?;
        if next.is_null() {
            *next = match steps[at + 1] {
                Step::Key(_) => Value::Object(Map::new()),
                Step::Index(_) => Value::Array(Vec::new()),
            };
        }
        current = next;
    }
    let target = slot(current, last, path)?;
    match (target, value) {
        (Value::String(text), Value::String(more)) if append => text.push_str(&more),
        (target, value) => *target = value,
    }
    Ok(())
}

/// The value one step below `current`, made `null` when new.
fn slot<'a>(current: &'a mut Value, step: &Step, path: &str) -> Result<&'a mut Value, String> {
    match (current, step) {
        (Value::Object(map), Step::Key(key)) => Ok(map.entry(key.clone()).or_insert(Value::Null)),
        (Value::Array(items), Step::Index(index)) => {
            if *index == items.len() {
                items.push(Value::Null);
            }
            let len = items.len();
            items.get_mut(*index).ok_or_else(|| {
                format!("`{path}` sets element {index} of an array of {len}, skipping elements")
            })
        }
        (current, Step::Key(key)) => Err(format!("`{path}` sets key `{key}` in {}", kind(current))),
        (current, Step::Index(index)) => Err(format!(
            "`{path}` sets element {index} in {}",
            kind(current)
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_are_read_step_by_step() {
        assert_eq!(
            parse_path("$.recipe.ingredients[3]['a.b'][\"c\"]").unwrap(),
            [
                Step::Key("recipe".into()),
                Step::Key("ingredients".into()),
                Step::Index(3),
                Step::Key("a.b".into()),
                Step::Key("c".into()),
            ]
        );
        assert_eq!(parse_path("$").unwrap(), []);
        for bad in [
            "a.b", "$.", "$[1", "$['a]", "$[x]", "$x", "$['a'", "$[01]", "$[-1]", "$.1a",
        ] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn quoted_names_take_rfc_9535_escapes() {
        let key = |path: &str| match parse_path(path).unwrap().as_slice() {
            [Step::Key(key)] => key.clone(),
            other => panic!("{path}: {other:?}"),
        };
        assert_eq!(key(r"$['it\'s']"), "it's");
        assert_eq!(key(r"$['back\\slash']"), r"back\slash");
        assert_eq!(key(r#"$["say \"hi\""]"#), r#"say "hi""#);
        assert_eq!(key(r"$['a\u00e9\ud83d\ude00\n']"), "a\u{e9}\u{1f600}\n");
        assert_eq!(key("$[ 'spaced' ]"), "spaced");
        assert_eq!(key("$['a.b[0]']"), "a.b[0]");
        for bad in [
            r"$['\q']",
            r"$['\ud83d']",
            r"$['\u12']",
            "$['a\nb']",
            r#"$['a\"']"#,
        ] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
        let deep = format!("${}", ".a".repeat(MAX_STEPS + 1));
        assert!(
            parse_path(&deep)
                .unwrap_err()
                .contains("more than 128 steps")
        );
        assert_eq!(
            parse_path(&format!("${}", ".a".repeat(MAX_STEPS)))
                .unwrap()
                .len(),
            MAX_STEPS
        );
    }

    #[test]
    fn values_are_set_and_strings_continued() {
        let mut root = json!({});
        set_path(&mut root, "$.a[0].b", json!("x"), false).unwrap();
        set_path(&mut root, "$.a[0].b", json!("y"), true).unwrap();
        set_path(&mut root, "$.a[1]", json!(2), false).unwrap();
        set_path(&mut root, "$.c", json!(true), true).unwrap();
        assert_eq!(root, json!({"a": [{"b": "xy"}, 2], "c": true}));
        // Skipping elements would let one fragment allocate without bound.
        assert!(set_path(&mut root, "$.a[1000000000]", json!(1), false).is_err());
        assert!(set_path(&mut root, "$.c.d", json!(1), false).is_err());
        assert!(set_path(&mut root, "$", json!(1), false).is_err());
    }
}
