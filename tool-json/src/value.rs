//! JSON values of any depth and size, handled without recursion.
//!
//! `serde_json`'s own `clone`, `drop`, `Display` and deserialization recurse once per level of
//! nesting: a value built in code (or read with the recursion limit off) a few thousand levels
//! deep overflows a 2 MiB stack on `clone`, and some ten thousand on `drop`. Values from outside
//! (call arguments, provider bodies, stream chunks, hook rewrites) are measured here first
//! ([`measure`]), and copied or dropped with [`clone_value`] and [`dispose`] where they may
//! be deeper than the limit. Plain data: this module imports nothing from the crate.

use serde_json::{Map, Value};

/// Which bound a value broke, found by [`measure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exceeded {
    /// It nests more containers than this limit.
    Depth(usize),
    /// Written as compact JSON it takes at least `size` bytes, more than `limit`.
    Size { size: usize, limit: usize },
}

/// Checks that `value` nests at most `max_depth` arrays and objects (a scalar nests none, `{}`
/// one) and takes at most `max_len` bytes written as compact JSON, without recursion. A value
/// too deep is refused as soon as that is seen; one too large is measured to its end, so the
/// size reported is the whole.
///
/// The size is the compact JSON text's, counting each string as its UTF-8 bytes plus quotes
/// (escapes not counted) and each float as up to 24 bytes: the same bound as for arguments sent
/// as text, to within escapes.
pub fn measure(value: &Value, max_depth: usize, max_len: usize) -> Result<(), Exceeded> {
    // Most arguments are one object of scalars: measured without the stack (and its allocation).
    if let Value::Object(map) = value
        && max_depth >= 1
        && map
            .values()
            .all(|member| !member.is_array() && !member.is_object())
    {
        let size = map
            .iter()
            .fold(2 + map.len().saturating_sub(1), |size, (key, member)| {
                size.saturating_add(key.len() + 3 + scalar_size(member))
            });
        return within(size, max_len);
    }
    let mut size = 0usize;
    // Containers being walked, as iterators over their remaining members (and whether one was
    // seen, for the commas); the stack's length is the depth.
    let mut stack: Vec<(Members<'_>, bool)> = Vec::new();
    let mut next = Some(value);
    loop {
        if let Some(value) = next.take() {
            size = size.saturating_add(scalar_size(value));
            match value {
                Value::Array(items) => stack.push((Members::Array(items.iter()), false)),
                Value::Object(map) => stack.push((Members::Object(map.iter()), false)),
                _ => {}
            }
            if stack.len() > max_depth {
                return Err(Exceeded::Depth(max_depth));
            }
        }
        let Some(top) = stack.last_mut() else {
            return within(size, max_len);
        };
        let (members, started) = top;
        let first = !std::mem::replace(started, true);
        match members.next() {
            // `"key":`, and a comma before every member but the first.
            Some((key, member)) => {
                let comma = usize::from(!first);
                size = size.saturating_add(key.map_or(0, |key| key.len() + 3) + comma);
                next = Some(member);
            }
            None => {
                stack.pop();
            }
        }
    }
}

fn within(size: usize, limit: usize) -> Result<(), Exceeded> {
    if size > limit {
        Err(Exceeded::Size { size, limit })
    } else {
        Ok(())
    }
}

/// Bytes a value takes as compact JSON, not counting what it contains: a container's brackets.
fn scalar_size(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => n.as_u64().map_or_else(
            || n.as_i64().map_or(24, |i| digits(i.unsigned_abs()) + 1),
            digits,
        ),
        Value::String(s) => s.len() + 2,
        Value::Array(_) | Value::Object(_) => 2,
    }
}

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

enum Members<'a> {
    Array(std::slice::Iter<'a, Value>),
    Object(serde_json::map::Iter<'a>),
}

impl<'a> Members<'a> {
    fn next(&mut self) -> Option<(Option<&'a str>, &'a Value)> {
        match self {
            Members::Array(items) => items.next().map(|item| (None, item)),
            Members::Object(members) => members
                .next()
                .map(|(key, value)| (Some(key.as_str()), value)),
        }
    }
}

/// How many values `value` holds, itself included, counted without recursion: the measure of
/// work that checking it against a schema may take.
pub fn count(value: &Value) -> usize {
    let mut total = 0;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        total += 1;
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.values()),
            _ => {}
        }
    }
    total
}

/// Work a check of `value` against a schema may take: `per_value` schema visits for each value
/// it holds, and at least `floor`. Linear in the value, so valid input within the size limit is
/// always checked to its end; a schema whose unions multiply the work past it is cut off.
pub fn work_budget(value: &Value, floor: usize, per_value: usize) -> usize {
    floor.max(count(value).saturating_mul(per_value))
}

/// Depth up to which `serde_json`'s own recursive `clone` is used: safe on any thread's stack,
/// and faster.
const SHALLOW: usize = 128;

/// A container being copied: the source's remaining members, the copy so far, and (for an
/// object) the key the member being copied goes under.
enum Copy<'a> {
    Array(std::slice::Iter<'a, Value>, Vec<Value>),
    Object(serde_json::map::Iter<'a>, Map<String, Value>, String),
}

/// A copy of `value`, made without recursion when it is deep.
pub fn clone_value(value: &Value) -> Value {
    if measure(value, SHALLOW, usize::MAX).is_ok() {
        return value.clone();
    }
    let mut stack: Vec<Copy<'_>> = Vec::new();
    let mut next = value;
    loop {
        let mut done = match next {
            Value::Array(items) => {
                stack.push(Copy::Array(items.iter(), Vec::with_capacity(items.len())));
                None
            }
            Value::Object(map) => {
                stack.push(Copy::Object(map.iter(), Map::new(), String::new()));
                None
            }
            scalar => Some(scalar.clone()),
        };
        loop {
            // The root is a container (a scalar is shallow), so the stack holds it until the end.
            let Some(top) = stack.last_mut() else {
                return done.unwrap_or(Value::Null);
            };
            match top {
                Copy::Array(items, copy) => {
                    copy.extend(done.take());
                    if let Some(item) = items.next() {
                        next = item;
                        break;
                    }
                }
                Copy::Object(members, copy, key) => {
                    if let Some(member) = done.take() {
                        copy.insert(std::mem::take(key), member);
                    }
                    if let Some((name, member)) = members.next() {
                        key.clone_from(name);
                        next = member;
                        break;
                    }
                }
            }
            let finished = match stack.pop() {
                Some(Copy::Array(_, copy)) => Value::Array(copy),
                Some(Copy::Object(_, copy, _)) => Value::Object(copy),
                None => Value::Null,
            };
            if stack.is_empty() {
                return finished;
            }
            done = Some(finished);
        }
    }
}

/// `value` as compact JSON text (what `Value::to_string` writes), written without recursion
/// when it is deep.
pub fn to_text(value: &Value) -> String {
    if measure(value, SHALLOW, usize::MAX).is_ok() {
        return value.to_string();
    }
    let mut out = String::new();
    // Containers being written, with their closing bracket and whether a member was written.
    let mut stack: Vec<(Members<'_>, char, bool)> = Vec::new();
    let mut next = Some(value);
    loop {
        match next.take() {
            Some(Value::Array(items)) => {
                out.push('[');
                stack.push((Members::Array(items.iter()), ']', false));
            }
            Some(Value::Object(map)) => {
                out.push('{');
                stack.push((Members::Object(map.iter()), '}', false));
            }
            Some(scalar) => out.push_str(&scalar.to_string()),
            None => {}
        }
        let Some((members, close, started)) = stack.last_mut() else {
            return out;
        };
        if let Some((key, member)) = members.next() {
            if std::mem::replace(started, true) {
                out.push(',');
            }
            if let Some(key) = key {
                out.push_str(&Value::from(key).to_string());
                out.push(':');
            }
            next = Some(member);
        } else {
            out.push(*close);
            stack.pop();
        }
    }
}

/// A copy of an object, made without recursion where a member is deep.
pub fn clone_map(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .map(|(key, member)| (key.clone(), clone_value(member)))
        .collect()
}

/// How much of a value messages quote, in bytes of its compact JSON.
pub const QUOTE: usize = 512;

/// An object (as a provider's chunk holds one) for a message: its compact JSON cut to about
/// `max_len` bytes with the whole length stated, or a description when it is too deep to write
/// out without recursion.
pub fn quote_object(map: &Map<String, Value>, max_len: usize) -> String {
    if map
        .values()
        .any(|member| measure(member, SHALLOW - 1, usize::MAX).is_err())
    {
        return format!(
            "(an object of {} members nested deeper than {SHALLOW} levels)",
            map.len()
        );
    }
    let text = serde_json::to_string(map).unwrap_or_default();
    crate::echo::cut(&text, max_len).into_owned()
}

/// Drops `value` without recursion: its containers are emptied onto a list first.
pub fn dispose(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, member)| member)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `levels` nested one-member objects (or arrays) around `1`.
    pub fn nested(levels: usize, arrays: bool) -> Value {
        let mut value = json!(1);
        for _ in 0..levels {
            // Not `json!`, which copies its members through serde, recursively.
            value = if arrays {
                Value::Array(vec![value])
            } else {
                Value::Object(Map::from_iter([("a".to_owned(), value)]))
            };
        }
        value
    }

    /// Runs `f` on a thread with a 1 MiB stack, half a tokio worker's.
    fn on_small_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn deep_values_are_written_as_serde_json_writes_them_without_recursion() {
        // Past the shallow path, the iterative writer gives serde_json's text.
        let mut deep = nested(200, false);
        if let Value::Object(map) = &mut deep {
            map.insert("b".into(), json!(["x\"y\n", 1.5, -2, null, true, {}, []]));
            map.insert("é\u{1}".into(), json!({}));
        }
        let mut wide = json!([]);
        for _ in 0..150 {
            wide = json!([wide, {"k": [], "l": [1, 2]}]);
        }
        for value in [deep, wide, json!({"a": [1, {"b": "c"}]}), json!(3)] {
            assert_eq!(to_text(&value), value.to_string());
        }
        on_small_stack(|| {
            let value = nested(100_000, true);
            let text = to_text(&value);
            let expected = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
            let same = text == expected;
            dispose(value);
            assert!(same);
        });
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(measure(&json!(1), 0, 100), Ok(()));
        assert_eq!(measure(&json!({}), 0, 100), Err(Exceeded::Depth(0)));
        assert_eq!(measure(&json!({"a": 1}), 0, 100), Err(Exceeded::Depth(0)));
        assert_eq!(measure(&json!({"a": 1}), 1, 100), Ok(()));
        assert_eq!(measure(&json!({"a": [1]}), 2, 100), Ok(()));
        assert_eq!(
            measure(&json!({"a": [[]]}), 2, 100),
            Err(Exceeded::Depth(2))
        );
        assert_eq!(measure(&nested(128, false), 128, usize::MAX), Ok(()));
        assert_eq!(
            measure(&nested(129, true), 128, usize::MAX),
            Err(Exceeded::Depth(128))
        );
    }

    #[test]
    fn size_is_the_compact_text_length() {
        for value in [
            json!({"a": 2, "bc": [true, false, null, -15, 0, "x y"], "d": {}}),
            json!([1, 22, 333, {"k": "v"}]),
            json!({}),
            json!(u64::MAX),
            // Flat objects, measured without the stack.
            json!({"a": 2, "b": -3}),
            json!({"only": "one"}),
            json!({"t": true, "f": false, "n": null, "s": "", "i": i64::MIN}),
        ] {
            let text = value.to_string();
            assert_eq!(measure(&value, 128, text.len()), Ok(()), "{text}");
            assert!(
                matches!(
                    measure(&value, 128, text.len() - 1),
                    Err(Exceeded::Size { .. })
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn deep_values_are_measured_cloned_and_dropped_on_a_small_stack() {
        let deep = nested(200_000, false);
        let arrays = nested(200_000, true);
        on_small_stack(move || {
            assert_eq!(measure(&deep, 128, usize::MAX), Err(Exceeded::Depth(128)));
            let copy = clone_value(&deep);
            let mut level = &copy;
            let mut levels = 0;
            while let Some(inner) = level.get("a") {
                level = inner;
                levels += 1;
            }
            assert_eq!((levels, level), (200_000, &json!(1)));
            dispose(copy);
            dispose(deep);
            dispose(clone_value(&arrays));
            dispose(arrays);
        });
    }

    #[test]
    fn shallow_copies_are_equal() {
        let value = json!({"a": [1, {"b": null}, "c"], "d": {"e": [[], {}]}});
        assert_eq!(clone_value(&value), value);
        let deep = nested(300, false);
        let copy = clone_value(&deep);
        assert!(copy == deep);
        dispose(copy);
        dispose(deep);
    }
}
