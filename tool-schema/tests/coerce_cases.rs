//! The external schema-guided cases (typia's LLM coercion tests and `json_repair`'s schema-guided
//! ones; see `tests/data/lenient/README.md`) run through toolwright's pipeline: lenient JSON,
//! coercion by the compiled schema, validation. Each case matches its source's expectation
//! unless `coerce_differences.json` lists it with the reason toolwright answers otherwise.
//!
//! `COERCE_REPORT=/tmp/coerce.jsonl cargo test -p toolwright-schema --test coerce_cases` writes every
//! mismatch there.

#[path = "../../tool-json/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::fs;

use common::{lines, same};
use serde_json::{Value, json};
use toolwright_json::{JsonLimits, parse_json};
use toolwright_schema::CompiledSchema;

enum Expect {
    /// This value, valid against the schema.
    Valid(Value),
    /// This value after coercion, still invalid (with problems at these paths).
    Invalid(Value, Vec<String>),
    /// The pipeline refuses the input.
    Error,
}

struct Case {
    id: String,
    schema: Value,
    /// Text to parse, or a value to coerce as is.
    input: Result<String, Value>,
    expect: Expect,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (line, case) in lines("typia_llm_coerce_cases.jsonl") {
        let input = match &case["input"] {
            Value::String(text) if case["mode"] == "parse" => Ok(text.clone()),
            value => Err(value.clone()),
        };
        let expected = case["expected"].clone();
        let expect = match &case["npm_typia_utils_14_0_6"]["validate_after"] {
            Value::String(valid) if valid == "valid" => Expect::Valid(expected),
            other => {
                // typia paths are `$input.a.b[0]`; toolwright's are `a.b[0]`.
                let paths = other["errors"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e["path"].as_str())
                    .map(|p| p.trim_start_matches("$input.").to_owned())
                    .collect();
                Expect::Invalid(expected, paths)
            }
        };
        cases.push(Case {
            id: format!("typia_coerce:{line}"),
            schema: case["schema"].clone(),
            input,
            expect,
        });
    }
    for (line, case) in lines("json_repair_py_cases.jsonl") {
        let Some(schema) = case["kwargs"].get("schema") else {
            continue;
        };
        let expect = if case["throws"].as_bool() == Some(true) {
            Expect::Error
        } else if case["expected_kind"] == "repaired_json_string" {
            match case["expected"].as_str().map(serde_json::from_str::<Value>) {
                Some(Ok(value)) => Expect::Valid(value),
                _ => Expect::Error,
            }
        } else {
            Expect::Valid(case["expected"].clone())
        };
        cases.push(Case {
            id: format!("json_repair:{line}"),
            schema: schema.clone(),
            input: Ok(case["input"].as_str().unwrap().to_owned()),
            expect,
        });
    }
    cases
}

/// What toolwright makes of a case: the coerced value and its problems' paths, or an error.
fn run(case: &Case) -> Result<(Value, Vec<String>), String> {
    let mut value = match &case.input {
        Ok(text) => {
            parse_json(text, &JsonLimits::default())
                .map_err(|e| e.to_string())?
                .value
        }
        Err(value) => value.clone(),
    };
    let schema = CompiledSchema::compile(&case.schema);
    schema.coerce(&mut value);
    let problems = schema
        .validate(&value)
        .iter()
        .map(|p| p.path.to_string())
        .collect();
    Ok((value, problems))
}

fn matches(case: &Case, got: &Result<(Value, Vec<String>), String>) -> bool {
    match (&case.expect, got) {
        (Expect::Valid(want), Ok((value, problems))) => problems.is_empty() && same(want, value),
        (Expect::Invalid(want, paths), Ok((value, problems))) => {
            same(want, value)
                && !problems.is_empty()
                && paths.iter().all(|path| problems.contains(path))
        }
        (Expect::Error, Err(_)) => true,
        (Expect::Error, Ok((_, problems))) => !problems.is_empty(),
        _ => false,
    }
}

#[test]
fn schema_guided_cases_match_or_are_listed_with_a_reason() {
    let list: Value = serde_json::from_str(&common::read("coerce_differences.json")).unwrap();
    let mut listed = BTreeMap::new();
    for group in list.as_array().unwrap() {
        for id in group["cases"].as_array().unwrap() {
            listed.insert(id.as_str().unwrap().to_owned(), group["reason"].clone());
        }
    }
    let all = cases();
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    let mut report = String::new();
    for case in &all {
        let got = run(case);
        let ok = matches(case, &got);
        if !ok {
            let want = match &case.expect {
                Expect::Valid(v) => json!({"valid": v}),
                Expect::Invalid(v, paths) => json!({"invalid": v, "at": paths}),
                Expect::Error => json!("an error"),
            };
            let got = match &got {
                Ok((v, problems)) => json!({"value": v, "problems_at": problems}),
                Err(e) => json!({"error": e}),
            };
            let line = json!({"id": case.id, "want": want, "got": got});
            report.push_str(&format!("{line}\n"));
            if !listed.contains_key(&case.id) {
                unexpected.push(line.to_string());
            }
        } else if listed.contains_key(&case.id) {
            stale.push(case.id.clone());
        }
    }
    if let Some(path) = std::env::var_os("COERCE_REPORT") {
        fs::write(path, report).unwrap();
    }
    let ids: Vec<&String> = all.iter().map(|c| &c.id).collect();
    let unknown: Vec<&String> = listed.keys().filter(|id| !ids.contains(id)).collect();
    assert!(unknown.is_empty(), "unknown listed cases: {unknown:?}");
    assert!(
        stale.is_empty(),
        "these listed cases now match; remove them from coerce_differences.json: {stale:?}"
    );
    assert!(
        unexpected.is_empty(),
        "{} of {} schema-guided cases differ without a listed reason:\n{}",
        unexpected.len(),
        all.len(),
        unexpected.join("\n")
    );
}
