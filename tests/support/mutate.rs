//! Values made by editing a valid one: a place replaced by a leaf near the edges schemas care
//! about, removed, given a member or an item, or its number or string nudged. Shared by the
//! differential and agreement tests.

use proptest::prelude::*;
use serde_json::{Value, json};

/// A value's places, as paths of keys and indices.
fn places(value: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(path.clone());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(json!(i));
                places(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, member) in map {
                path.push(json!(key));
                places(member, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'v>(value: &'v mut Value, path: &[Value]) -> &'v mut Value {
    path.iter().fold(value, |value, step| match step {
        Value::String(key) => &mut value[key.as_str()],
        Value::Number(i) => &mut value[usize::try_from(i.as_u64().unwrap()).unwrap()],
        _ => unreachable!(),
    })
}

/// Leaves near the edges the suite's schemas care about.
pub fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..12).prop_map(Value::from),
        prop::sample::select(vec![
            json!(1.5),
            json!(0.0075),
            json!(1e308),
            json!(9_007_199_254_740_993_u64),
            json!(-9_007_199_254_740_993_i64),
            json!(2.0),
            json!(""),
            json!("foo"),
            json!("bar"),
            json!("a"),
            json!("aaa"),
            json!("2024-02-29T13:45:00Z"),
            json!("13:45:60Z"),
            json!("ada@example.org"),
            json!("example.org"),
            json!("https://example.org/a?b#c"),
            json!("67e55044-10b1-426f-9247-bb680e5fe0c8"),
            json!("P1DT2H"),
            json!("/a/~1b"),
            json!("\u{e9}"),
            json!([]),
            json!({}),
            json!([1, 1]),
            json!({"foo": 1}),
        ]),
    ]
}

/// An edit of a value: one place replaced, removed, given a new member or item, or its number
/// or string nudged.
#[derive(Debug, Clone)]
pub enum Edit {
    Replace(usize, Value),
    Remove(usize),
    Insert(usize, String, Value),
    Nudge(usize, i64),
}

pub fn edit() -> impl Strategy<Value = Edit> {
    let key = prop::sample::select(vec!["foo", "bar", "baz", "a", "b", "x-y", "\u{e9}", "1"]);
    prop_oneof![
        3 => (any::<usize>(), leaf()).prop_map(|(at, v)| Edit::Replace(at, v)),
        1 => any::<usize>().prop_map(Edit::Remove),
        2 => (any::<usize>(), key, leaf()).prop_map(|(at, k, v)| Edit::Insert(at, k.to_owned(), v)),
        2 => (any::<usize>(), -2i64..3).prop_map(|(at, by)| Edit::Nudge(at, by)),
    ]
}

pub fn apply(mut value: Value, edits: &[Edit]) -> Value {
    for edit in edits {
        let mut all = Vec::new();
        places(&value, &mut Vec::new(), &mut all);
        let pick = |i: usize| all[i % all.len()].clone();
        match edit {
            Edit::Replace(i, new) => *at(&mut value, &pick(*i)) = new.clone(),
            Edit::Remove(i) => {
                let path = pick(*i);
                if let Some((last, parent)) = path.split_last() {
                    match (at(&mut value, parent), last) {
                        (Value::Object(map), Value::String(key)) => {
                            map.remove(key);
                        }
                        (Value::Array(items), Value::Number(i)) => {
                            items.remove(usize::try_from(i.as_u64().unwrap()).unwrap());
                        }
                        _ => {}
                    }
                }
            }
            Edit::Insert(i, key, new) => match at(&mut value, &pick(*i)) {
                Value::Object(map) => {
                    map.insert(key.clone(), new.clone());
                }
                Value::Array(items) => items.push(new.clone()),
                _ => {}
            },
            Edit::Nudge(i, by) => {
                let place = at(&mut value, &pick(*i));
                *place = match place.take() {
                    Value::Number(n) if n.is_i64() => {
                        json!(n.as_i64().unwrap().saturating_add(*by))
                    }
                    #[allow(clippy::cast_precision_loss)]
                    Value::Number(n) => json!(n.as_f64().unwrap() + *by as f64 / 2.0),
                    Value::String(s) if *by > 0 => {
                        Value::String(format!("{s}{}", "z".repeat(*by as usize)))
                    }
                    Value::String(s) => Value::String(s.chars().skip(1).collect()),
                    other => other,
                };
            }
        }
    }
    value
}
