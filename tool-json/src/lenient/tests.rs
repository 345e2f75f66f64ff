use super::*;
use serde_json::Value;
use serde_json::json;

fn lenient(text: &str) -> Repaired {
    parse_json(text, &JsonLimits::default()).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

fn kinds(text: &str) -> Vec<RepairKind> {
    lenient(text).repairs.iter().map(|r| r.kind).collect()
}

#[test]
fn valid_json_takes_the_strict_path_and_needs_no_repair() {
    let repaired = lenient(r#"{"a": [1, 2.5, "x", true, null]}"#);
    assert_eq!(repaired.value, json!({"a": [1, 2.5, "x", true, null]}));
    assert!(repaired.repairs.is_empty());
}

/// Input, the value it means, and one repair it needs with its offset.
const REPAIRS: &[(&str, &str, RepairKind, usize)] = &[
    (
        "```json\n{\"a\": 1}\n```",
        r#"{"a": 1}"#,
        RepairKind::CodeFence,
        0,
    ),
    (
        "Here you go: {\"a\": 1}",
        r#"{"a": 1}"#,
        RepairKind::LeadingText,
        0,
    ),
    (
        "{\"a\": 1} hope this helps",
        r#"{"a": 1}"#,
        RepairKind::TrailingText,
        9,
    ),
    (
        "{\"a\": [1, 2",
        r#"{"a": [1, 2]}"#,
        RepairKind::UnclosedArray,
        6,
    ),
    ("{\"a\": 1", r#"{"a": 1}"#, RepairKind::UnclosedObject, 0),
    (
        "{\"a\": \"tex",
        r#"{"a": "tex"}"#,
        RepairKind::UnclosedString,
        6,
    ),
    ("{\"a\": 1,}", r#"{"a": 1}"#, RepairKind::TrailingComma, 7),
    ("[,1]", "[1]", RepairKind::StrayComma, 1),
    ("{\"a\": 1 // one\n}", r#"{"a": 1}"#, RepairKind::Comment, 8),
    (
        "{\"a\": /* one */ 1}",
        r#"{"a": 1}"#,
        RepairKind::Comment,
        6,
    ),
    ("{a: 1}", r#"{"a": 1}"#, RepairKind::UnquotedKey, 1),
    (
        "{'a': 'b'}",
        r#"{"a": "b"}"#,
        RepairKind::NonStandardQuotes,
        1,
    ),
    (
        "{\"a\": True}",
        r#"{"a": true}"#,
        RepairKind::PythonLiteral,
        6,
    ),
    (
        "{\"a\": None}",
        r#"{"a": null}"#,
        RepairKind::PythonLiteral,
        6,
    ),
    (
        "{\"a\": tru",
        r#"{"a": true}"#,
        RepairKind::IncompleteKeyword,
        6,
    ),
    (
        "{\"a\": fal}",
        r#"{"a": false}"#,
        RepairKind::IncompleteKeyword,
        6,
    ),
    (
        "{\"a\": nul}",
        r#"{"a": null}"#,
        RepairKind::IncompleteKeyword,
        6,
    ),
    (
        "{\"a\": \"x\ny\"}",
        r#"{"a": "x\ny"}"#,
        RepairKind::ControlCharacter,
        8,
    ),
    (
        "{\"a\": \"x\\qy\"}",
        r#"{"a": "xqy"}"#,
        RepairKind::InvalidEscape,
        8,
    ),
    (
        "{\"a\": 1 \"b\": 2}",
        r#"{"a": 1, "b": 2}"#,
        RepairKind::MissingComma,
        8,
    ),
    ("[1 2]", "[1, 2]", RepairKind::MissingComma, 3),
    (
        "{\"a\": NaN}",
        r#"{"a": null}"#,
        RepairKind::NonFiniteNumber,
        6,
    ),
    (
        "{\"a\": -Infinity}",
        r#"{"a": null}"#,
        RepairKind::NonFiniteNumber,
        6,
    ),
    ("{\"a\" 1}", r#"{"a": 1}"#, RepairKind::MissingColon, 5),
    ("{\"a\": +1}", r#"{"a": 1}"#, RepairKind::NumberFormat, 6),
    ("{\"a\": .5}", r#"{"a": 0.5}"#, RepairKind::NumberFormat, 6),
    (
        "{\"a\": \"x\" + \"y\"}",
        r#"{"a": "xy"}"#,
        RepairKind::StringConcatenation,
        10,
    ),
    (
        "{\"a\": undefined}",
        r#"{"a": null}"#,
        RepairKind::Undefined,
        6,
    ),
    (
        "{\"a\": Paris}",
        r#"{"a": "Paris"}"#,
        RepairKind::UnquotedString,
        6,
    ),
    (
        "{\"a\": , \"b\": 1}",
        r#"{"b": 1}"#,
        RepairKind::MissingValue,
        1,
    ),
    (
        "{\"a\": 1, \"b\":",
        r#"{"a": 1}"#,
        RepairKind::TruncatedMember,
        9,
    ),
];

#[test]
fn each_listed_repair_is_made_and_recorded_where_it_applies() {
    for (text, value, kind, offset) in REPAIRS {
        let repaired = lenient(text);
        let value: Value = serde_json::from_str(value).unwrap();
        assert_eq!(repaired.value, value, "{text:?}");
        let repair = Repair {
            kind: *kind,
            offset: *offset,
        };
        assert!(
            repaired.repairs.contains(&repair),
            "{text:?}: {:?}",
            repaired.repairs
        );
    }
}

#[test]
fn an_unescaped_quote_inside_a_value_is_kept_as_text() {
    let repaired = lenient(r#"{"q": "the "best" one", "n": 1}"#);
    assert_eq!(repaired.value, json!({"q": "the \"best\" one", "n": 1}));
    assert!(kinds(r#"{"q": "the "best" one"}"#).contains(&RepairKind::UnescapedQuote));
}

#[test]
fn a_fence_after_prose_and_truncated_output_inside_it() {
    let text = "Sure! Here are the arguments:\n```json\n{\"city\": \"Paris\", \"days\": [1, 2\n```";
    assert_eq!(
        lenient(text).value,
        json!({"city": "Paris", "days": [1, 2]})
    );
}

#[test]
fn input_with_nothing_to_read_is_an_error_naming_where() {
    for text in ["", "   ", "```json\n```", "@@@", "{\"a\": @}", "{\"a\",}"] {
        let error = parse_json(text, &JsonLimits::default()).unwrap_err();
        assert!(error.offset <= text.len(), "{text:?}: {error}");
        assert!(error.to_string().contains("at byte"), "{error}");
    }
    let error = parse_json("{\n  \"a\": @\n}", &JsonLimits::default()).unwrap_err();
    assert_eq!((error.line, error.column), (2, 8), "{error}");
}

#[test]
fn depth_and_size_limits_are_errors_not_crashes() {
    // Far deeper than any stack would take by recursion.
    let deep = "[".repeat(1_000_000);
    let error = parse_json(&deep, &JsonLimits::default()).unwrap_err();
    assert!(
        error
            .reason
            .contains("nesting deeper than the limit of 128"),
        "{error}"
    );
    let deep_objects = "{\"a\":".repeat(200_000);
    assert!(parse_json(&deep_objects, &JsonLimits::default()).is_err());

    let limits = JsonLimits {
        max_depth: 2,
        max_len: 16,
    };
    assert!(parse_json("[[1]]", &limits).is_ok());
    assert!(parse_json("[[[1]]]", &limits).is_err());
    let error = parse_json("[1, 2, 3, 4, 5, 6, 7]", &limits).unwrap_err();
    assert!(
        error.reason.contains("more than the limit of 16 bytes"),
        "{error}"
    );
}

#[test]
fn surrogate_pairs_join_and_lone_ones_are_replaced() {
    assert_eq!(
        lenient(r#"{"e": "\ud83d\ude00", }"#).value,
        json!({"e": "😀"})
    );
    let repaired = lenient(r#"{"e": "\ud83d!", }"#);
    assert_eq!(repaired.value, json!({"e": "\u{fffd}!"}));
    assert!(
        repaired
            .repairs
            .iter()
            .any(|r| r.kind == RepairKind::InvalidEscape)
    );
}

#[test]
fn one_repair_record_per_fix_even_across_many_members() {
    let text = format!(
        "{{{}}}",
        (0..1000).fold(String::new(), |mut s, i| {
            s.push_str(&format!("k{i}: {i},"));
            s
        })
    );
    let repaired = lenient(&text);
    assert_eq!(repaired.value.as_object().unwrap().len(), 1000);
    let unquoted = repaired
        .repairs
        .iter()
        .filter(|r| r.kind == RepairKind::UnquotedKey)
        .count();
    assert_eq!(unquoted, 1000);
}
