//! The lenient corpus the JSON benches read: the external cases' inputs that strict JSON refuses,
//! and a large broken document of models' typical damage.

use serde_json::Value;

/// Every external case's input that strict JSON refuses.
pub fn broken_inputs() -> Vec<String> {
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tool-json/tests/data/lenient"
    );
    let path = format!("{data}/cross_impl_differential.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read fixture {path}: {error}"));
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|case| case["input"].as_str().map(str::to_owned))
        .filter(|input| serde_json::from_str::<Value>(input).is_err())
        .collect()
}

/// A large broken document: an array of models' typical damage, `items` times over.
pub fn broken_document(items: usize) -> String {
    let mut text = String::from("```json\n[\n");
    for i in 0..items {
        text.push_str(&format!(
            "  {{id: {i}, name: 'item {i}', tags: [\"a\", \"b\",], ok: True, note: \"line\nbreak\"}},\n"
        ));
    }
    text.push_str("// cut off here\n");
    text
}
