//! Helpers shared by the integration tests that read the recorded provider responses and
//! streams. (Each test binary uses some of them.)
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use toolwright::{Arguments, CallKind, ToolCall};

/// The `tool_use` blocks that an Anthropic stream's `message_start` events carry whole in
/// `message.content` (programmatic tool calling's follow-ups), which the manifest leaves out;
/// see `tests/data/providers/README.md`.
pub fn whole_in_message_start(stream: &str) -> Vec<Value> {
    stream
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "message_start")
        .flat_map(|event| {
            event["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|block| block["type"] == "tool_use")
        .collect()
}

/// Checks one call against a recorded one (`expected_tool_calls` of the fixtures' manifest and
/// tool-choice matrix): id (or a made-up one where the provider sent none), name, index when
/// recorded, kind, and arguments exactly as sent. `notes` are the sample's `assembly_notes`.
pub fn check_recorded_call(call: &ToolCall, expected: &Value, notes: &[String], context: &str) {
    assert_eq!(call.name, expected["name"].as_str().unwrap(), "{context}");
    match expected["id"].as_str() {
        Some(id) => {
            assert_eq!(call.call_id, id, "{context}");
            assert!(!call.id_generated, "{context}");
        }
        None => {
            assert!(call.id_generated && !call.call_id.is_empty(), "{context}");
        }
    }
    if let Some(index) = expected["index"].as_u64() {
        assert_eq!(call.index as u64, index, "{context}");
    }
    match (
        &call.arguments,
        expected.get("arguments"),
        expected.get("input"),
    ) {
        (Arguments::Text(got), Some(Value::String(sent)), _) => {
            assert_eq!(got, sent, "{context}");
        }
        (Arguments::Json(got), _, Some(input)) => assert_eq!(got, input, "{context}"),
        // An Anthropic block whose input came whole in its start, with no deltas: kept as the
        // object it was (the manifest writes it as text).
        (Arguments::Json(got), Some(Value::String(sent)), None) => {
            assert!(
                notes
                    .iter()
                    .any(|n| n.contains("input taken from content_block_start")),
                "{context}"
            );
            assert_eq!(
                got,
                &serde_json::from_str::<Value>(sent).unwrap(),
                "{context}"
            );
        }
        (got, _, _) => panic!("{context}: {got:?} against {expected}"),
    }
    let kind = expected["kind"].as_str().unwrap_or_default();
    let server = matches!(kind, "server_tool_use" | "mcp_tool_use");
    assert_eq!(
        call.kind,
        if server {
            CallKind::Server
        } else {
            CallKind::Function
        },
        "{context}"
    );
}

/// An example of the workspace's root, built as a user builds it: its executable.
pub fn example(name: &str) -> PathBuf {
    // From the workspace's root, as a user runs them: the examples are the facade's and the
    // MCP crate's (the root's default members), not this test package's.
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--example", name])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building example {name}");
    let mut path = std::env::current_exe().unwrap();
    path.pop();
    if path.ends_with("deps") {
        path.pop();
    }
    path.join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}
