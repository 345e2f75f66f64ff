//! The external lenient-JSON cases (jsonrepair, `json_repair`, typia; see `tests/data/lenient/README.md`)
//! run through toolwright's parser. Every case matches its source's expectation unless it is in
//! `differences.json` with the reason toolwright answers otherwise; a listed case that matches
//! again fails the test, so the list stays true.
//!
//! `LENIENT_REPORT=/tmp/report.jsonl cargo test -p toolwright-json --test lenient_cases` writes
//! every mismatch there, one JSON line each.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use common::{lines, same};
use serde_json::Value;
use toolwright_json::{JsonLimits, parse_json};

/// What a case expects.
enum Expect {
    Value(Value),
    /// Success, whatever the value (typia cases that check only that).
    Success,
    Error,
}

struct Case {
    id: String,
    input: String,
    expect: Expect,
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (line, case) in lines("jsonrepair_cases.jsonl") {
        let expect = if case["throws"].as_bool() == Some(true) {
            Expect::Error
        } else {
            Expect::Value(serde_json::from_str(case["expected"].as_str().unwrap()).unwrap())
        };
        cases.push(Case {
            id: format!("jsonrepair:{line}"),
            input: text(&case["input"]).unwrap(),
            expect,
        });
    }
    for (line, case) in lines("json_repair_py_cases.jsonl") {
        let kwargs = &case["kwargs"];
        // Schema-guided cases belong to coercion (see tests/coerce_cases.rs); stream_stable is
        // about streaming, not the input's meaning.
        if kwargs.get("schema").is_some()
            || kwargs.get("schema_repair_mode").is_some()
            || kwargs.get("stream_stable").is_some()
            || case["fn"] != "repair_json"
        {
            continue;
        }
        let expect = if case["throws"].as_bool() == Some(true) {
            Expect::Error
        } else if kwargs.get("logging") == Some(&Value::Bool(true)) {
            // With `logging`, json_repair answers (value, log).
            Expect::Value(case["expected"][0].clone())
        } else if case["expected_kind"] == "python_object_as_json" {
            Expect::Value(case["expected"].clone())
        } else {
            match case["expected"].as_str() {
                // json_repair answers "" for input it cannot read.
                Some("" | "\"\"") => Expect::Error,
                Some(text) => Expect::Value(serde_json::from_str(text).unwrap()),
                None => Expect::Value(case["expected"].clone()),
            }
        };
        cases.push(Case {
            id: format!("json_repair:{line}"),
            input: text(&case["input"]).unwrap(),
            expect,
        });
    }
    for (line, case) in lines("typia_llmjson_parse_cases.jsonl") {
        let Some(input) = text(&case["input"]) else {
            continue;
        };
        let expect = if case["expect_success"].as_bool() == Some(true) {
            match case.get("expected") {
                Some(value) => Expect::Value(value.clone()),
                None => Expect::Success,
            }
        } else {
            Expect::Error
        };
        cases.push(Case {
            id: format!("typia:{line}"),
            input,
            expect,
        });
    }
    cases
}

fn differences() -> BTreeMap<String, String> {
    let list: Value = serde_json::from_str(&common::read("differences.json")).unwrap();
    let mut by_case = BTreeMap::new();
    for group in list.as_array().unwrap() {
        let reason = group["reason"].as_str().unwrap();
        for id in group["cases"].as_array().unwrap() {
            let id = id.as_str().unwrap().to_owned();
            assert!(
                by_case.insert(id.clone(), reason.to_owned()).is_none(),
                "{id} is listed twice"
            );
        }
    }
    by_case
}

#[test]
fn external_cases_match_or_are_listed_with_a_reason() {
    let listed = differences();
    let report = std::env::var_os("LENIENT_REPORT");
    let mut report_lines = String::new();
    let limits = JsonLimits::default();
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    let mut seen = BTreeSet::new();
    let all = cases();
    for case in &all {
        seen.insert(case.id.clone());
        let got = parse_json(&case.input, &limits);
        let matches = match (&case.expect, &got) {
            (Expect::Value(want), Ok(repaired)) => same(&repaired.value, want),
            (Expect::Success, Ok(_)) | (Expect::Error, Err(_)) => true,
            _ => false,
        };
        let shown = match &got {
            Ok(repaired) => repaired.value.to_string(),
            Err(error) => format!("error: {error}"),
        };
        let wanted = match &case.expect {
            Expect::Value(value) => value.to_string(),
            Expect::Success => "any value".to_owned(),
            Expect::Error => "an error".to_owned(),
        };
        match (matches, listed.contains_key(&case.id)) {
            (false, false) => unexpected.push(format!(
                "{}: input {:?}\n    want {wanted}\n    got  {shown}",
                case.id, case.input
            )),
            (true, true) => stale.push(case.id.clone()),
            _ => {}
        }
        if report.is_some() && !matches {
            let line = serde_json::json!({"id": case.id, "input": case.input, "want": wanted, "got": shown});
            report_lines.push_str(&format!("{line}\n"));
        }
    }
    if let Some(path) = report {
        fs::write(path, report_lines).unwrap();
    }
    let unknown: Vec<_> = listed.keys().filter(|id| !seen.contains(*id)).collect();
    assert!(
        unknown.is_empty(),
        "differences.json lists unknown cases: {unknown:?}"
    );
    assert!(
        stale.is_empty(),
        "these listed cases now match their source; remove them from differences.json: {stale:?}"
    );
    assert!(
        unexpected.is_empty(),
        "{} of {} cases differ from their source without a listed reason:\n{}",
        unexpected.len(),
        all.len(),
        unexpected.join("\n")
    );
}

/// Every input of every source, including the cross-implementation file: the parser never
/// panics, and a second run gives the same answer.
#[test]
fn every_external_input_parses_or_fails_cleanly_and_deterministically() {
    let limits = JsonLimits::default();
    let mut inputs: Vec<String> = cases().into_iter().map(|case| case.input).collect();
    inputs.extend(
        lines("cross_impl_differential.jsonl")
            .into_iter()
            .filter_map(|(_, case)| text(&case["input"])),
    );
    for input in &inputs {
        let first = parse_json(input, &limits);
        let second = parse_json(input, &limits);
        assert_eq!(first, second, "{input:?}");
        if let Ok(repaired) = &first {
            for repair in &repaired.repairs {
                assert!(repair.offset <= input.len(), "{input:?}: {repair:?}");
            }
        }
    }
}
