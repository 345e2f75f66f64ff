//! What the external-case tests share: reading the case files, and comparing values the way
//! their JavaScript and Python sources do.

use std::fs;

use serde_json::Value;

// From any crate of the workspace: the cases live beside the lenient parser.
pub const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tool-json/tests/data/lenient"
);

/// The text of one file of `tests/data/lenient`; a missing file fails with the path looked for.
pub fn read(file: &str) -> String {
    let path = format!("{DATA}/{file}");
    fs::read_to_string(&path).unwrap_or_else(|error| panic!("cannot read fixture {path}: {error}"))
}

/// The cases of one file, with their 1-based line numbers.
pub fn lines(file: &str) -> Vec<(usize, Value)> {
    read(file)
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            // A few typia inputs hold lone surrogates, which a Rust string cannot: they are
            // read with U+FFFD in their place and listed as differences.
            let value = serde_json::from_str(line).unwrap_or_else(|_| {
                serde_json::from_str(&line.replace("\\ud", "\\uFFFD\\u0064")).unwrap_or(Value::Null)
            });
            (i + 1, value)
        })
        .collect()
}

/// Equality with numbers compared by value: the sources are JavaScript and Python, where `2`,
/// `2.0` and `1e1` are one number.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}
