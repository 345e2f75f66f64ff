//! Who may see and call which tool: scopes declared on `#[tool]`, on dynamic tools and on
//! toolsets, toolbox rules over names and annotations, and calls made on behalf of a caller.

use std::sync::Arc;

use serde_json::json;
use toolwright::exec::{BatchOptions, Caller, block_on};
use toolwright::{
    CallInfo, DynamicTool, ResultDetail, ToolCall, ToolDefinition, ToolResult, Toolbox, tool,
    toolset,
};

/// Read a note.
#[tool(read_only)]
fn read_note(id: u32) -> String {
    format!("note {id}")
}

/// Write a note.
#[tool(scopes = ["notes:write"])]
fn write_note(id: u32, text: String) -> String {
    format!("wrote {id}: {text}")
}

/// Delete every note.
#[tool(destructive, scopes = ["notes:write"])]
fn delete_notes() -> &'static str {
    "deleted"
}

/// Purge the notes, once a person agrees.
#[tool(needs_approval, scopes = ["notes:write"])]
fn purge(#[tool(call_info)] info: &CallInfo) -> String {
    format!(
        "purged for {}",
        info.caller().map_or("nobody", |caller| caller.subject())
    )
}

/// Who the call is for.
#[tool]
fn whoami(#[tool(call_info)] info: &CallInfo) -> String {
    match info.caller() {
        Some(caller) => format!(
            "{} {:?}",
            caller.subject(),
            caller.scopes().collect::<Vec<_>>()
        ),
        None => "nobody".to_owned(),
    }
}

struct Archive;

#[toolset]
impl Archive {
    /// List the archive.
    #[tool(read_only)]
    fn list(&self) -> Vec<String> {
        vec!["a".into()]
    }

    /// Purge the archive.
    #[tool(scopes = ["archive:purge"])]
    fn purge(&self) -> &'static str {
        "purged"
    }
}

fn toolbox() -> Toolbox {
    let export = DynamicTool::new(
        ToolDefinition::new("export", "Export everything.", json!({}))
            .unwrap()
            .with_scopes(["export"]),
        |_: serde_json::Map<String, serde_json::Value>, _: &()| "exported".to_owned(),
    );
    Toolbox::new()
        .with_all((ReadNoteTool, WriteNoteTool, DeleteNotesTool, WhoamiTool))
        .unwrap()
        .with(export)
        .unwrap()
        .with_all(
            Arc::new(Archive)
                .toolset()
                .prefixed("archive_")
                .require_scopes(["archive"]),
        )
        .unwrap()
        // Every destructive tool also needs `admin`.
        .require_scopes(["admin"], |tool| {
            tool.annotations().destructive == Some(true)
        })
}

fn run_for(tools: &Toolbox, caller: &Caller, calls: &[ToolCall]) -> Vec<ToolResult> {
    block_on(tools.execute_all_with(calls, &(), BatchOptions::new().on_behalf_of(caller.clone())))
}

#[test]
fn scopes_are_declared_on_tools_dynamic_tools_and_toolsets() {
    let tools = toolbox();
    let scopes = |name: &str| tools.required_scopes(name).unwrap();
    assert_eq!(scopes("read_note"), Vec::<&str>::new());
    assert_eq!(scopes("write_note"), ["notes:write"]);
    assert_eq!(scopes("delete_notes"), ["notes:write", "admin"]);
    assert_eq!(scopes("export"), ["export"]);
    assert_eq!(scopes("archive_list"), ["archive"]);
    assert_eq!(scopes("archive_purge"), ["archive:purge", "archive"]);
    assert_eq!(tools.required_scopes("nope"), None);
    // A tool's own scopes are part of its definition, and of its neutral form.
    let definition = tools.get("write_note").unwrap().definition();
    assert_eq!(definition.scopes(), ["notes:write"]);
    assert_eq!(
        serde_json::to_value(definition).unwrap()["scopes"],
        json!(["notes:write"])
    );
    assert!(
        serde_json::to_value(tools.get("read_note").unwrap().definition())
            .unwrap()
            .get("scopes")
            .is_none()
    );
}

#[test]
fn a_caller_sees_only_the_tools_it_may_call() {
    let tools = toolbox();
    let visible = |caller: &Caller| -> Vec<String> {
        tools
            .definitions_for(caller)
            .map(|definition| definition.name().to_owned())
            .collect()
    };
    let reader = Caller::new("reader");
    assert_eq!(visible(&reader), ["read_note", "whoami"]);
    let writer = Caller::new("writer").with_scopes(["notes:write", "archive"]);
    assert_eq!(
        visible(&writer),
        ["read_note", "write_note", "whoami", "archive_list"]
    );
    let admin = Caller::new("root").with_scopes([
        "notes:write",
        "admin",
        "export",
        "archive",
        "archive:purge",
    ]);
    assert_eq!(visible(&admin).len(), tools.len());
    assert!(tools.may_call(&admin, "delete_notes"));
    assert!(!tools.may_call(&writer, "delete_notes"));
    assert!(!tools.may_call(&admin, "nope"));
}

#[test]
fn a_call_the_caller_may_not_make_is_refused_as_an_unknown_tool_is() {
    let tools = toolbox();
    let reader = Caller::new("reader");
    let results = run_for(
        &tools,
        &reader,
        &[
            ToolCall::new("1", "write_note", r#"{"id": 1, "text": "x"}"#),
            ToolCall::new("2", "wrote_note", r#"{"id": 1, "text": "x"}"#),
            ToolCall::new("3", "read_note", r#"{"id": 7}"#),
        ],
    );
    // The hidden tool and a tool that does not exist get the same answer: the close matches and
    // the list name only what the caller may call.
    let expected =
        |name: &str| format!("unknown tool `{name}`. Available tools: `read_note` and `whoami`.");
    assert_eq!(results[0].text(), expected("write_note"));
    assert_eq!(results[1].text(), expected("wrote_note"));
    assert!(
        matches!(results[0].detail, ResultDetail::UnknownTool { ref suggestions } if suggestions.is_empty())
    );
    assert_eq!(results[2].text(), "note 7");

    // With the scope, the same call runs; without a caller, every tool runs as before.
    let writer = Caller::new("writer").with_scopes(["notes:write"]);
    let call = [ToolCall::new(
        "4",
        "write_note",
        r#"{"id": 1, "text": "x"}"#,
    )];
    assert_eq!(run_for(&tools, &writer, &call)[0].text(), "wrote 1: x");
    assert_eq!(tools.execute_blocking(&call[0], &()).text(), "wrote 1: x");
    // Close matches come from the caller's tools only.
    let results = run_for(&tools, &writer, &[ToolCall::new("5", "write_notes", "{}")]);
    assert_eq!(
        results[0].text(),
        "unknown tool `write_notes` (did you mean `write_note`?). Available tools: `read_note`, `write_note` and `whoami`."
    );
    // A hidden tool is not suggested either.
    let results = run_for(&tools, &reader, &[ToolCall::new("6", "delete_note", "{}")]);
    assert!(
        !results[0].text().contains("delete_notes"),
        "{}",
        results[0].text()
    );
}

#[test]
fn the_caller_reaches_the_tool_body() {
    let tools = toolbox();
    let caller = Caller::new("ada").with_scopes(["b", "a"]);
    let results = run_for(&tools, &caller, &[ToolCall::new("1", "whoami", "{}")]);
    assert_eq!(results[0].text(), r#"ada ["a", "b"]"#);
    assert_eq!(
        tools
            .execute_blocking(&ToolCall::new("2", "whoami", "{}"), &())
            .text(),
        "nobody"
    );
}

#[test]
fn an_approval_made_for_a_caller_keeps_the_callers_rules() {
    let tools = toolbox().with(PurgeTool).unwrap();
    let call = ToolCall::new("1", "purge", "{}");
    let writer = Caller::new("writer").with_scopes(["notes:write"]);
    let held = run_for(&tools, &writer, std::slice::from_ref(&call));
    assert!(held[0].is_interrupt());
    let approved = block_on(tools.approve_for(&call, &(), &writer));
    assert_eq!(approved.text(), "purged for writer");
    // A caller without the scope cannot have it approved either: it is unknown to them.
    let reader = Caller::new("reader");
    let refused = block_on(tools.approve_for(&call, &(), &reader));
    assert!(
        matches!(refused.detail, ResultDetail::UnknownTool { .. }),
        "{}",
        refused.text()
    );
}
