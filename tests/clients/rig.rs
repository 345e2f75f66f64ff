//! toolwright tools in a rig agent: rig's own agent builder and rig's OpenAI Chat Completions
//! client, pointed at a scripted OpenAI-compatible server on loopback. What the server receives
//! next is what the model would read: each call's result as a `tool` message.

use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;
use rig_core::tool::ToolErrorKind;
use serde_json::json;
use toolwright::ToolCall;
use toolwright::provider::Provider;
use toolwright::rig::{APPROVAL_REQUIRED, AgentBuilderExt, PendingApproval, RigTools};

use crate::demo;
use crate::server::{self, Reply, calls_response, text_response, tool_messages};

fn model(
    server: &server::Replay,
) -> rig_core::driver::Model<rig_core::providers::openai::wire::Chat> {
    OpenAIConfig::new("test-key")
        .with_base_url(server.base_url())
        .client()
        .chat("test-model")
}

/// The text toolwright answers `call` with, run directly.
fn toolwright_says(call: &ToolCall) -> String {
    demo::toolbox()
        .execute_blocking(call, &demo::context())
        .text()
}

#[tokio::test]
async fn a_rig_agent_runs_toolwright_tools_repairs_broken_json_and_returns_feedback() {
    let wrong = r#"{"a": "four", "b": 1}"#;
    let server = server::start(vec![
        Reply::Json(calls_response(&[
            ("call_ok", "add", r#"{"a": 2, "b": 3}"#),
            // Single quotes and a trailing comma: not JSON, so rig would not hand it to a tool.
            ("call_broken", "add", "{'a': 4, 'b': 5,}"),
            ("call_wrong", "add", wrong),
        ])),
        Reply::Json(calls_response(&[(
            "call_retry",
            "add",
            r#"{"a": 4, "b": 1}"#,
        )])),
        Reply::Json(text_response("2 + 3 = 5, 4 + 5 = 9, 4 + 1 = 5")),
    ])
    .await;
    let tools = RigTools::new(demo::toolbox(), demo::context());
    let agent = AgentBuilder::new(model(&server)).toolwright(&tools).build();

    let response = agent
        .prompt("Add some numbers.")
        .max_turns(5)
        .await
        .unwrap();
    assert_eq!(response.output(), "2 + 3 = 5, 4 + 5 = 9, 4 + 1 = 5");

    let received = server.received();
    assert_eq!(received.len(), 3, "{received:#?}");
    assert_eq!(
        received[0].authorization.as_deref(),
        Some("Bearer test-key")
    );
    // The tools rig sent are toolwright's, in the OpenAI Chat form.
    let sent = &received[0].body["tools"];
    let ours = demo::toolbox()
        .tools_for(Provider::OpenAiChat)
        .unwrap()
        .to_value();
    assert_eq!(
        sent.as_array().unwrap().len(),
        ours.as_array().unwrap().len()
    );
    for (sent, ours) in sent
        .as_array()
        .unwrap()
        .iter()
        .zip(ours.as_array().unwrap())
    {
        assert_eq!(sent["function"]["name"], ours["function"]["name"]);
        assert_eq!(
            sent["function"]["parameters"], ours["function"]["parameters"],
            "{sent}"
        );
    }

    let feedback = toolwright_says(&ToolCall::new("call_wrong", "add", wrong));
    assert!(feedback.contains("integer"), "{feedback}");
    assert_eq!(
        tool_messages(&received[1].body),
        [
            ("call_ok".to_owned(), "5".to_owned()),
            ("call_broken".to_owned(), "9".to_owned()),
            ("call_wrong".to_owned(), feedback),
        ]
    );
    // The model's second try, after reading the feedback, runs.
    let last = tool_messages(&received[2].body);
    assert_eq!(
        last.last().unwrap(),
        &("call_retry".to_owned(), "5".to_owned())
    );
}

#[tokio::test]
async fn cut_off_text_never_runs_a_tool_that_changes_the_world_and_what_cannot_be_read_gets_feedback()
 {
    // `update_preferences` is not read-only: a cut-off call of it is refused, with toolwright's
    // words. `add` is read-only and runs on the text the model managed to send. Text no reader
    // can take gets toolwright's feedback, not rig's.
    let cut = r#"{"unique_code": "u-1", "data": {"items_per_page": 2"#;
    let unreadable = "add me please";
    let server = server::start(vec![
        Reply::Json(calls_response(&[
            ("call_cut", "update_preferences", cut),
            ("call_cut_read_only", "add", r#"{"a": 1, "b": 2"#),
            ("call_unreadable", "add", unreadable),
        ])),
        Reply::Json(text_response("done")),
    ])
    .await;
    let tools = RigTools::new(demo::toolbox(), demo::context());
    let agent = AgentBuilder::new(model(&server)).toolwright(&tools).build();
    agent.prompt("Go.").max_turns(3).await.unwrap();

    let refused = toolwright_says(&ToolCall::new("call_cut", "update_preferences", cut));
    assert!(
        refused.contains("cut off") || refused.contains("ended"),
        "{refused}"
    );
    let unread = toolwright_says(&ToolCall::new("call_unreadable", "add", unreadable));
    let received = server.received();
    assert_eq!(
        tool_messages(&received[1].body),
        [
            ("call_cut".to_owned(), refused),
            ("call_cut_read_only".to_owned(), "3".to_owned()),
            ("call_unreadable".to_owned(), unread),
        ]
    );
}

#[tokio::test]
async fn a_call_that_needs_approval_comes_back_to_rig_as_a_refusal_carrying_the_call() {
    let toolbox = demo::toolbox()
        .needs_approval_when("add", |args, _| args["a"].as_i64() > Some(100))
        .unwrap();
    let tools = RigTools::new(toolbox, demo::context());
    let rig_tools = tools.tools();
    let add = rig_tools.iter().find(|tool| tool.name() == "add").unwrap();

    assert_eq!(
        add.execute(json!({"a": 1, "b": 2}))
            .await
            .unwrap()
            .as_text(),
        Some("3")
    );
    let held = add.execute(json!({"a": 500, "b": 2})).await.unwrap_err();
    assert_eq!(held.kind(), ToolErrorKind::PermissionDenied);
    assert_eq!(held.code(), Some(APPROVAL_REQUIRED));
    let pending = held.downcast_ref::<PendingApproval>().unwrap();
    assert_eq!(pending.call().name, "add");
    // Approved, it runs; the model read the approval notice meanwhile.
    let approved = tools
        .toolbox()
        .approve(pending.call(), &demo::context())
        .await;
    assert_eq!(approved.text(), "502");
    assert!(!held.model_output().render().is_empty());
}

#[tokio::test]
async fn panics_timeouts_and_callers_keep_their_meaning_in_rig() {
    let tools = RigTools::new(
        demo::toolbox().with_timeout(std::time::Duration::from_millis(50)),
        demo::context(),
    );
    let rig_tools = tools.tools();
    let find = |name: &str| rig_tools.iter().find(|tool| tool.name() == name).unwrap();

    let panicked = find("explode").execute(json!({})).await.unwrap_err();
    assert_eq!(panicked.kind(), ToolErrorKind::Other);
    let slow = find("sleep")
        .execute(json!({"ms": 5_000}))
        .await
        .unwrap_err();
    assert_eq!(slow.kind(), ToolErrorKind::Timeout);
    // Wrong arguments: the model's output is toolwright's feedback.
    let wrong = find("add").execute(json!({"a": true})).await.unwrap_err();
    assert_eq!(wrong.kind(), ToolErrorKind::InvalidArgs);
    assert_eq!(
        wrong.model_output().as_text(),
        Some(toolwright_says(&ToolCall::new("x", "add", r#"{"a": true}"#)).as_str())
    );

    // The size limit holds on the arguments rig hands over as a value.
    let huge = json!({"a": "x".repeat(9 << 20), "b": 1});
    let refused = find("add").execute(huge.clone()).await.unwrap_err();
    assert_eq!(refused.kind(), ToolErrorKind::InvalidArgs);
    let said = demo::toolbox()
        .execute_blocking(&ToolCall::new("x", "add", huge), &demo::context())
        .text();
    assert!(said.contains("limit"), "{said}");
    assert_eq!(refused.model_output().as_text(), Some(said.as_str()));

    // On behalf of a caller, only the tools it may call are given to rig.
    let toolbox = demo::toolbox().require_scopes(["write"], |definition| {
        definition.annotations().read_only != Some(true)
    });
    let reader = toolwright::exec::Caller::new("reader").with_scopes(["read"]);
    let names: Vec<String> = RigTools::new(toolbox, demo::context())
        .on_behalf_of(reader)
        .tools()
        .iter()
        .map(|tool| tool.name().to_string())
        .collect();
    assert!(names.contains(&"add".to_owned()), "{names:?}");
    assert!(
        !names.contains(&"update_preferences".to_owned()),
        "{names:?}"
    );
}
