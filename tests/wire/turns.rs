//! What a model sends beside its function calls (issue 28), over recorded turns
//! (`tests/data/providers/turns/`, sources in its README): odd values that never cost the calls,
//! built-in calls the application carries out, tools the provider ran, and the assistant turn
//! carried to the next request, whole and streamed.

use serde_json::{Value, json};
use toolwright::provider::{Assembler, Provider, Turn};
use toolwright::{CallKind, CallStatus, ToolCall, ToolOutput, ToolResult, Toolbox};

use super::data;

fn body(name: &str) -> Value {
    serde_json::from_str(&data::read(&format!("providers/turns/{name}"))).unwrap()
}

fn read(provider: Provider, name: &str) -> Turn {
    provider
        .read_response(&body(name))
        .unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// A recorded stream, every line taken.
fn stream(provider: Provider, name: &str) -> Turn {
    let mut assembler = Assembler::new(provider);
    for line in data::read(&format!("providers/turns/{name}")).lines() {
        assembler
            .push_line(line)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
    }
    assembler.finish_turn()
}

/// The `response` of each `response.completed` event of a Responses stream: the same responses
/// whole (a stream may hold several, a tool loop recorded whole).
fn completed(name: &str) -> Vec<Value> {
    let responses: Vec<Value> = data::read(&format!("providers/turns/{name}"))
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "response.completed")
        .map(|event| event["response"].clone())
        .collect();
    assert!(!responses.is_empty(), "{name}: no response.completed");
    responses
}

/// A call without the item it came in (whose opaque fields, a program's `fingerprint`, the
/// provider may write afresh in its final response).
fn without_item(call: &ToolCall) -> ToolCall {
    let mut call = call.clone();
    call.metadata.remove("item");
    call
}

fn kinds(turn: &Turn) -> Vec<(CallKind, &str)> {
    turn.calls
        .iter()
        .map(|call| (call.kind, call.name.as_str()))
        .collect()
}

fn item_type(call: &ToolCall) -> &str {
    call.metadata["type"].as_str().unwrap()
}

// ---------------------------------------------------------------------------------------------
// 1. A field toolwright does not need never costs the calls.

#[test]
fn an_integer_finish_reason_from_vertex_costs_nothing() {
    // Vertex AI with `enum-encoding=int`, as Google's `vertexai` SDK asks for.
    let body = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
    ]}, "finishReason": 1}]});
    let turn = Provider::Gemini.read_response(&body).unwrap();
    assert_eq!(turn.calls.len(), 1);
    assert_eq!(turn.calls[0].arguments_as_map()["city"], "Paris");
    // Kept as it came, and reported.
    assert_eq!(turn.stop_reason.as_deref(), Some("1"));
    assert_eq!(turn.warnings.len(), 1);
    assert_eq!(turn.warnings[0].path(), "/candidates/0/finishReason");
    assert!(turn.warnings[0].message().contains("found a number"));

    let mut assembler = Assembler::new(Provider::Gemini);
    assembler.push(&body).unwrap();
    assert_eq!(assembler.warnings()[0].chunk(), Some(1));
    let streamed = assembler.finish_turn();
    assert_eq!(streamed.calls.len(), 1);
    assert_eq!(streamed.calls[0].status, CallStatus::Complete);
    assert_eq!(streamed.stop_reason.as_deref(), Some("1"));
}

#[test]
fn mistral_streams_content_as_parts_and_the_calls_beside_it_arrive() {
    let mut assembler = Assembler::new(Provider::OpenAiChat);
    assembler
        .push_line(r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"hi"}],"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#)
        .unwrap();
    let turn = assembler.finish_turn();
    assert_eq!(turn.text, "hi");
    assert_eq!(turn.calls.len(), 1);
    assert_eq!(turn.calls[0].call_id, "c1");
    assert_eq!(turn.calls[0].status, CallStatus::Complete);
    assert!(turn.warnings.is_empty(), "{:?}", turn.warnings);

    // A recorded Magistral stream: thinking parts, then text parts; the text is the text.
    let recorded = stream(Provider::OpenAiChat, "openai_chat__mistral-reasoning.jsonl");
    assert_eq!(recorded.text, "2 + 2 = 4");
    assert!(recorded.warnings.is_empty(), "{:?}", recorded.warnings);
}

#[test]
fn every_reader_keeps_the_calls_past_an_odd_value() {
    // (provider, body with one odd field beside one call, the place reported)
    let cases = [
        (
            Provider::OpenAiChat,
            json!({"choices": [{"index": 0, "finish_reason": 7, "message": {"role": "assistant",
                "content": {"odd": true},
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]}),
            vec!["/choices/0/finish_reason", "/choices/0/message/content"],
        ),
        (
            Provider::OpenAiResponses,
            json!({"status": 3, "output": [
                {"type": "message", "content": 5},
                {"type": "function_call", "id": 9, "call_id": "c1", "name": "f", "arguments": "{}", "status": false},
            ]}),
            vec![
                "/status",
                "/output/0/content",
                "/output/1/id",
                "/output/1/status",
            ],
        ),
        (
            Provider::Anthropic,
            json!({"stop_reason": 2, "content": [
                {"type": "text", "text": 4},
                {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
            ]}),
            vec!["/stop_reason", "/content/0/text"],
        ),
        (
            Provider::Gemini,
            json!({"responseId": 12, "candidates": [{"finishReason": 1, "content": {"parts": [
                {"text": "thinking", "thought": "yes"},
                {"functionCall": {"name": "f", "args": {}}},
            ]}}]}),
            vec![
                "/responseId",
                "/candidates/0/finishReason",
                "/candidates/0/content/parts/0/thought",
            ],
        ),
    ];
    for (provider, body, places) in cases {
        let turn = provider
            .read_response(&body)
            .unwrap_or_else(|error| panic!("{provider}: {error}"));
        assert_eq!(turn.local_calls().count(), 1, "{provider}");
        let mut reported: Vec<&str> = turn.warnings.iter().map(|w| w.path()).collect();
        reported.sort_unstable();
        let mut places = places;
        places.sort_unstable();
        assert_eq!(reported, places, "{provider}");
    }
    // The stream readers, chunk by chunk: the odd chunk's call still arrives.
    let streams = [
        (
            Provider::OpenAiChat,
            vec![
                json!({"choices": [{"index": 0, "delta": {"content": 5, "tool_calls": [
                {"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}]},
                "finish_reason": 1}]}),
            ],
        ),
        (
            Provider::OpenAiResponses,
            vec![
                json!({"type": "response.output_item.added", "output_index": 0, "item": {
                    "type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": ""}}),
                json!({"type": "response.output_text.delta", "delta": 5}),
                json!({"type": "response.output_item.done", "output_index": 0, "item": {
                    "type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"}}),
                json!({"type": "response.completed", "response": {"status": 4}}),
            ],
        ),
        (
            Provider::OpenAiResponses,
            vec![
                json!({"type": "response.output_item.added", "output_index": 0, "item": {
                    "type": "function_call", "id": 9, "call_id": "c1", "name": "f", "arguments": ""}}),
                json!({"type": "response.output_item.done", "output_index": 0, "item": {
                    "type": "function_call", "id": 9, "call_id": "c1", "name": "f", "arguments": "{}",
                    "status": 1}}),
            ],
        ),
        (
            Provider::Anthropic,
            vec![
                json!({"type": "message_start", "message": {"content": []}}),
                json!({"type": "content_block_start", "index": 2, "content_block": {"type": "thinking", "thinking": ""}}),
                json!({"type": "content_block_delta", "index": 2, "delta": {"type": "hologram_delta", "x": 1}}),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": 3}}),
                json!({"type": "content_block_start", "index": 1, "content_block": {
                    "type": "tool_use", "id": "c1", "name": "f", "input": {}}}),
                json!({"type": "content_block_stop", "index": 1}),
                json!({"type": "message_delta", "delta": {"stop_reason": 8}}),
            ],
        ),
    ];
    for (provider, chunks) in streams {
        let mut assembler = Assembler::new(provider);
        for chunk in &chunks {
            assembler
                .push(chunk)
                .unwrap_or_else(|error| panic!("{provider}: {error}"));
        }
        let turn = assembler.finish_turn();
        assert_eq!(turn.calls.len(), 1, "{provider}");
        assert_eq!(turn.calls[0].status, CallStatus::Complete, "{provider}");
        assert!(!turn.warnings.is_empty(), "{provider}");
        assert!(
            turn.warnings.iter().all(|w| w.chunk().is_some()),
            "{provider}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Built-in tools the application carries out.

/// Reads a recorded response whole and streamed; both must give the same calls.
fn both(name: &str) -> (Turn, Turn) {
    let whole = read(
        Provider::OpenAiResponses,
        &format!("responses__{name}.json"),
    );
    let streamed = stream(
        Provider::OpenAiResponses,
        &format!("responses__{name}.jsonl"),
    );
    // The stream's own whole responses (its `response.completed` events) read to the same
    // calls and content.
    let (mut calls, mut content) = (Vec::new(), Vec::new());
    for response in completed(&format!("responses__{name}.jsonl")) {
        let own = Provider::OpenAiResponses.read_response(&response).unwrap();
        calls.extend(own.calls.iter().map(without_item));
        content.extend(own.content);
    }
    let streamed_calls: Vec<ToolCall> = streamed.calls.iter().map(without_item).collect();
    assert_eq!(
        streamed_calls, calls,
        "{name}: streamed and its completed responses"
    );
    let types = |items: &[Value]| -> Vec<(Value, Value)> {
        items
            .iter()
            .map(|item| (item["type"].clone(), item["id"].clone()))
            .collect()
    };
    assert_eq!(types(&streamed.content), types(&content), "{name}: content");
    (whole, streamed)
}

fn answer(call: &ToolCall, output: ToolOutput) -> Value {
    let tools = Toolbox::new();
    let result = ToolResult::for_call(call, output);
    tools
        .encode_results(
            Provider::OpenAiResponses,
            std::slice::from_ref(call),
            &[result],
        )
        .unwrap()[0]
        .clone()
}

#[test]
fn an_apply_patch_call_is_a_built_in_call_answered_by_its_own_item() {
    let (whole, streamed) = both("openai-apply-patch-tool.1");
    for turn in [&whole, &streamed] {
        assert_eq!(kinds(turn), [(CallKind::Builtin, "apply_patch")]);
        let call = &turn.calls[0];
        assert_eq!(item_type(call), "apply_patch_call");
        assert_eq!(call.arguments_as_map()["type"], "create_file");
        assert_eq!(
            call.metadata["item"]["operation"],
            Value::Object(call.arguments_as_map())
        );
        assert_eq!(turn.builtin_calls().count(), 1);
        assert_eq!(turn.local_calls().count(), 0);
    }
    let call = &whole.calls[0];
    assert_eq!(
        answer(call, ToolOutput::text("created shopping-checklist.md")),
        json!({"type": "apply_patch_call_output", "call_id": call.call_id,
            "status": "completed", "output": "created shopping-checklist.md"})
    );
    assert_eq!(
        answer(call, ToolOutput::error("no such directory")),
        json!({"type": "apply_patch_call_output", "call_id": call.call_id,
            "status": "failed", "output": "no such directory"})
    );
    // The toolbox does not run it by name, whatever it holds; and its refusal is not an answer
    // the application may send for it.
    let tools = Toolbox::new();
    let result = tools.execute_blocking(call, &());
    assert!(result.is_error);
    assert!(matches!(
        result.detail,
        toolwright::ResultDetail::NotLocal {
            kind: CallKind::Builtin
        }
    ));
    let error = tools
        .encode_results(
            Provider::OpenAiResponses,
            std::slice::from_ref(call),
            &[result],
        )
        .unwrap_err();
    assert!(error.message().contains("ToolResult::for_call"), "{error}");
}

#[test]
fn shell_calls_local_or_hosted() {
    let (whole, streamed) = both("openai-shell-tool.1");
    for turn in [&whole, &streamed] {
        assert_eq!(kinds(turn), [(CallKind::Builtin, "shell")]);
        assert!(turn.calls[0].arguments_as_map()["commands"].is_array());
    }
    let call = &whole.calls[0];
    let answered = answer(call, ToolOutput::text("/Users/me\n"));
    assert_eq!(answered["type"], "shell_call_output");
    assert_eq!(answered["call_id"], call.call_id.as_str());
    assert_eq!(
        answered["output"],
        json!([{"stdout": "/Users/me\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}])
    );
    // Outputs of their own, as the API takes them, pass as they are.
    let outputs = json!([{"stdout": "", "stderr": "", "outcome": {"type": "timeout"}}]);
    let answered = answer(call, ToolOutput::text(outputs.to_string()));
    assert_eq!(answered["output"], outputs);
    if let Some(limit) = call.metadata["item"]["action"].get("max_output_length")
        && !limit.is_null()
    {
        assert_eq!(&answered["max_output_length"], limit);
    }

    // In a hosted container the provider ran it: its output is beside it.
    let (whole, streamed) = both("openai-shell-container.1");
    for turn in [&whole, &streamed] {
        assert_eq!(kinds(turn), [(CallKind::Server, "shell")]);
        let result = &turn.calls[0].metadata["result"];
        assert_eq!(result["type"], "shell_call_output");
        assert_eq!(result["output"][0]["outcome"]["exit_code"], 0);
    }
    assert_eq!(whole.builtin_calls().count(), 0);
}

#[test]
fn a_local_shell_call_is_answered_by_the_id_the_sdk_names() {
    let (whole, streamed) = both("openai-local-shell-tool.1");
    for turn in [&whole, &streamed] {
        assert_eq!(kinds(turn), [(CallKind::Builtin, "local_shell")]);
        assert_eq!(turn.calls[0].arguments_as_map()["command"][0], "ls");
    }
    let call = &whole.calls[0];
    assert_eq!(
        answer(call, ToolOutput::text("a.txt\nb.txt\n")),
        json!({"type": "local_shell_call_output", "id": call.call_id, "output": "a.txt\nb.txt\n"})
    );
}

#[test]
fn a_tool_search_run_by_the_client_and_one_run_by_the_provider() {
    let (whole, streamed) = both("openai-client-tool-search.1");
    for turn in [&whole, &streamed] {
        assert_eq!(kinds(turn), [(CallKind::Builtin, "tool_search")]);
    }
    let call = &whole.calls[0];
    let tools = json!([{"type": "function", "name": "get_weather", "description": "Weather.",
        "parameters": {"type": "object", "properties": {}}}]);
    assert_eq!(
        answer(call, ToolOutput::text(tools.to_string())),
        json!({"type": "tool_search_output", "call_id": call.call_id, "execution": "client",
            "status": "completed", "tools": tools})
    );
    // Something that is not a list of tools cannot be sent as one.
    let tools_box = Toolbox::new();
    let result = ToolResult::for_call(call, ToolOutput::text("nothing found"));
    assert!(
        tools_box
            .encode_results(
                Provider::OpenAiResponses,
                std::slice::from_ref(call),
                &[result]
            )
            .is_err()
    );

    // Run by the provider: a server call with the tools it found, then the function it chose,
    // in its namespace, which goes back with the result.
    let (whole, streamed) = both("openai-tool-search.1");
    for turn in [&whole, &streamed] {
        assert_eq!(
            kinds(turn),
            [
                (CallKind::Server, "tool_search"),
                (CallKind::Function, "get_weather")
            ]
        );
        assert_eq!(
            turn.calls[0].metadata["result"]["type"],
            "tool_search_output"
        );
        assert_eq!(turn.calls[1].metadata["namespace"], "get_weather");
    }
    let call = &whole.calls[1];
    let answered = answer(call, ToolOutput::text("sunny"));
    assert_eq!(
        answered,
        json!({"type": "function_call_output", "call_id": call.call_id, "output": "sunny",
            "namespace": "get_weather"})
    );
}

#[test]
fn an_mcp_approval_request_is_answered_yes_or_no() {
    let (whole, streamed) = both("openai-mcp-tool-approval.1");
    for turn in [&whole, &streamed] {
        assert_eq!(kinds(turn), [(CallKind::Builtin, "create_short_url")]);
        let call = &turn.calls[0];
        assert_eq!(item_type(call), "mcp_approval_request");
        assert_eq!(call.metadata["item"]["server_label"], "zip1");
        assert_eq!(call.arguments_as_map()["url"], "https://ai-sdk.dev/");
    }
    let call = &whole.calls[0];
    assert!(call.call_id.starts_with("mcpr_"));
    assert_eq!(
        answer(call, ToolOutput::text("")),
        json!({"type": "mcp_approval_response", "approval_request_id": call.call_id, "approve": true})
    );
    assert_eq!(
        answer(call, ToolOutput::error("not today")),
        json!({"type": "mcp_approval_response", "approval_request_id": call.call_id,
            "approve": false, "reason": "not today"})
    );
}

#[test]
fn a_computer_call_is_answered_with_a_screenshot() {
    // No recording holds one; the item's shape is the API reference's (openai-python's
    // `ResponseComputerToolCall`).
    let body = json!({"status": "completed", "output": [{
        "type": "computer_call", "id": "cu_1", "call_id": "call_7", "status": "completed",
        "action": {"type": "click", "button": "left", "x": 156, "y": 50},
        "pending_safety_checks": [],
    }]});
    let turn = Provider::OpenAiResponses.read_response(&body).unwrap();
    assert_eq!(kinds(&turn), [(CallKind::Builtin, "computer")]);
    let call = &turn.calls[0];
    assert_eq!(call.arguments_as_map()["type"], "click");
    let screenshot = ToolOutput::parts(vec![toolwright::ContentPart::image(
        "iVBORw0KGgo=",
        "image/png",
    )]);
    assert_eq!(
        answer(call, screenshot),
        json!({"type": "computer_call_output", "call_id": "call_7", "output": {
            "type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="}})
    );
    // Text alone is not a screenshot.
    let result = ToolResult::for_call(call, ToolOutput::text("clicked"));
    let error = Toolbox::new()
        .encode_results(
            Provider::OpenAiResponses,
            std::slice::from_ref(call),
            &[result],
        )
        .unwrap_err();
    assert!(error.message().contains("no image"), "{error}");
    // Built-in calls are the Responses API's: no other provider takes their results.
    let result = ToolResult::for_call(call, ToolOutput::text("clicked"));
    assert!(
        Toolbox::new()
            .encode_results(Provider::OpenAiChat, std::slice::from_ref(call), &[result])
            .is_err()
    );
}

#[test]
fn an_item_of_a_kind_toolwright_does_not_know_is_reported() {
    let body = json!({"output": [
        {"type": "hologram_call", "id": "hg_1", "call_id": "c0"},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
    ]});
    let turn = Provider::OpenAiResponses.read_response(&body).unwrap();
    assert_eq!(kinds(&turn), [(CallKind::Function, "f")]);
    assert_eq!(turn.warnings.len(), 1);
    assert_eq!(turn.warnings[0].path(), "/output/0/type");
    assert!(turn.warnings[0].message().contains("hologram_call"));
    // Kept for the next turn.
    assert_eq!(turn.content[0]["type"], "hologram_call");

    let anthropic = json!({"content": [{"type": "hologram", "x": 1}], "stop_reason": "end_turn"});
    let turn = Provider::Anthropic.read_response(&anthropic).unwrap();
    assert_eq!(turn.warnings[0].path(), "/content/0/type");

    let gemini = json!({"candidates": [{"content": {"parts": [{"hologram": {"x": 1}}]}}]});
    let turn = Provider::Gemini.read_response(&gemini).unwrap();
    assert_eq!(turn.warnings[0].path(), "/candidates/0/content/parts/0");
}

// ---------------------------------------------------------------------------------------------
// 3. Tools the provider ran, the same way everywhere.

#[test]
fn responses_tools_the_provider_ran_are_server_calls() {
    let cases: [(&str, &[(CallKind, &str)]); 4] = [
        (
            "openai-web-search-tool.1",
            &[(CallKind::Server, "web_search"); 3],
        ),
        (
            "openai-code-interpreter-tool.1",
            &[(CallKind::Server, "code_interpreter"); 3],
        ),
        (
            "openai-image-generation-tool.1",
            &[(CallKind::Server, "image_generation")],
        ),
        (
            "openai-file-search-tool.1",
            &[(CallKind::Server, "file_search")],
        ),
    ];
    for (name, expected) in cases {
        let turn = read(
            Provider::OpenAiResponses,
            &format!("responses__{name}.json"),
        );
        assert_eq!(kinds(&turn), expected, "{name}");
        assert_eq!(turn.server_calls().count(), expected.len());
        for call in &turn.calls {
            // The item, results and all, is kept with the call.
            assert_eq!(
                call.metadata["item"]["id"], call.metadata["item_id"],
                "{name}"
            );
            assert!(!call.owes_result());
        }
        assert!(turn.warnings.is_empty(), "{name}: {:?}", turn.warnings);
    }
    let code = read(
        Provider::OpenAiResponses,
        "responses__openai-code-interpreter-tool.1.json",
    );
    assert!(code.calls[0].arguments_as_map()["code"].is_string());
    assert_eq!(code.calls[0].metadata["item"]["outputs"][0]["type"], "logs");
    for name in [
        "openai-image-generation-tool.1",
        "openai-file-search-tool.1",
    ] {
        both(name);
    }

    // Programmatic tool calling: the provider runs the program; the functions it calls are the
    // application's, and name it as their caller, which goes back with their results.
    let (whole, streamed) = both("programmatic-tool-calling.1");
    for turn in [&whole, &streamed] {
        assert_eq!(
            kinds(turn),
            [
                (CallKind::Server, "program"),
                (CallKind::Function, "getInventory")
            ]
        );
        assert_eq!(turn.calls[1].metadata["caller"]["type"], "program");
    }
    let answered = answer(
        &whole.calls[1],
        ToolOutput::text("{\"availableUnits\": 42}"),
    );
    assert_eq!(answered["caller"], whole.calls[1].metadata["caller"]);
}

#[test]
fn anthropic_server_tools_carry_their_results() {
    for (name, tool, result) in [
        ("anthropic-mcp.1", "echo", "mcp_tool_result"),
        (
            "anthropic-web-fetch-tool-20260209.1",
            "web_fetch",
            "web_fetch_tool_result",
        ),
        (
            "anthropic-code-execution-20250825.1",
            "bash_code_execution",
            "bash_code_execution_tool_result",
        ),
    ] {
        let whole = read(Provider::Anthropic, &format!("anthropic__{name}.json"));
        let streamed = stream(Provider::Anthropic, &format!("anthropic__{name}.jsonl"));
        for turn in [&whole, &streamed] {
            let server: Vec<&ToolCall> = turn.server_calls().collect();
            assert!(!server.is_empty(), "{name}");
            let call = server
                .iter()
                .find(|call| call.name == tool)
                .unwrap_or_else(|| panic!("{name}: no {tool} call in {:?}", kinds(turn)));
            assert_eq!(call.metadata["result"]["type"], result, "{name}");
            assert_eq!(
                call.metadata["result"]["tool_use_id"],
                call.call_id.as_str()
            );
            assert!(turn.warnings.is_empty(), "{name}: {:?}", turn.warnings);
        }
    }
    let streamed = stream(
        Provider::Anthropic,
        "anthropic__pydantic-ai-mcp-servers-stream.jsonl",
    );
    let call = streamed.server_calls().next().unwrap();
    assert_eq!(call.metadata["type"], "mcp_tool_use");
    assert_eq!(call.metadata["result"]["type"], "mcp_tool_result");
}

#[test]
fn gemini_code_execution_is_a_server_call_with_its_result() {
    // No recording holds one; the parts' shapes are google-genai's `ExecutableCode` and
    // `CodeExecutionResult`.
    let parts = json!([
        {"text": "Let me compute that."},
        {"executableCode": {"language": "PYTHON", "code": "print(sum(range(10)))"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "45\n"}},
        {"functionCall": {"name": "record", "args": {"total": 45}}},
    ]);
    let body = json!({"responseId": "r1", "candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": "STOP"}]});
    let whole = Provider::Gemini.read_response(&body).unwrap();
    let mut assembler = Assembler::new(Provider::Gemini);
    for part in parts.as_array().unwrap() {
        assembler
            .push(&json!({"responseId": "r1", "candidates": [{"content": {"role": "model", "parts": [part]}}]}))
            .unwrap();
    }
    assembler
        .push(&json!({"responseId": "r1", "candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]}))
        .unwrap();
    let streamed = assembler.finish_turn();
    for turn in [&whole, &streamed] {
        assert_eq!(
            kinds(turn),
            [
                (CallKind::Server, "code_execution"),
                (CallKind::Function, "record")
            ]
        );
        let code = &turn.calls[0];
        assert_eq!(code.arguments_as_map()["code"], "print(sum(range(10)))");
        assert_eq!(
            code.metadata["result"]["codeExecutionResult"]["output"],
            "45\n"
        );
        assert_eq!(turn.local_calls().count(), 1);
    }
    assert_eq!(whole.calls, streamed.calls);
    assert_eq!(whole.content, streamed.content);
}

// ---------------------------------------------------------------------------------------------
// 4. The assistant turn, carried to the next request.

/// Writes a built message for the SDK check (`tests/python/check_replay.py`) when asked to.
fn keep(name: &str, provider: Provider, message: &Value) {
    if let Ok(dir) = std::env::var("REPLAY_OUT") {
        let path = std::path::Path::new(&dir).join(format!("{provider}--{name}.json"));
        std::fs::write(path, serde_json::to_string_pretty(message).unwrap()).unwrap();
    }
}

/// Writes a message built from an Anthropic stream with the stream's fixture, for the SDK check
/// to assemble the same stream with the SDK's own accumulator and compare, block for block.
fn keep_stream(fixture: &str, message: &Value) {
    if let Ok(dir) = std::env::var("REPLAY_OUT") {
        let path = std::path::Path::new(&dir).join(format!("anthropic_stream--{fixture}.json"));
        let pair = json!({
            "fixture": format!("tests/data/providers/turns/{fixture}"),
            "message": message,
        });
        std::fs::write(path, serde_json::to_string_pretty(&pair).unwrap()).unwrap();
    }
}

#[test]
fn anthropic_thinking_goes_back_with_its_signature() {
    // A recorded thinking + tool use response, whole.
    let body = body("anthropic__pydantic-ai-tool-with-thinking.json");
    let turn = Provider::Anthropic.read_response(&body).unwrap();
    let message = turn.assistant_message().unwrap();
    assert_eq!(
        message,
        json!({"role": "assistant", "content": body["content"]})
    );
    assert_eq!(message["content"][0]["type"], "thinking");
    assert!(message["content"][0]["signature"].as_str().unwrap().len() > 100);
    keep("tool-with-thinking", Provider::Anthropic, &message);

    // Streamed: thinking joined, its signature set, the call's input the object it streamed.
    let streamed = stream(
        Provider::Anthropic,
        "anthropic__pydantic-ai-mcp-servers-stream.jsonl",
    );
    let message = streamed.assistant_message().unwrap();
    let blocks = message["content"].as_array().unwrap();
    let thinking = blocks.iter().find(|b| b["type"] == "thinking").unwrap();
    assert!(!thinking["thinking"].as_str().unwrap().is_empty());
    assert!(!thinking["signature"].as_str().unwrap().is_empty());
    let call = blocks.iter().find(|b| b["type"] == "mcp_tool_use").unwrap();
    assert!(call["input"].is_object());
    assert_eq!(
        blocks
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect::<Vec<_>>(),
        data::read("providers/turns/anthropic__pydantic-ai-mcp-servers-stream.jsonl")
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|event| event["type"] == "content_block_start")
            .map(|event| event["content_block"]["type"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    );
    keep("mcp-servers-stream", Provider::Anthropic, &message);
    keep_stream("anthropic__pydantic-ai-mcp-servers-stream.jsonl", &message);

    for name in [
        "anthropic-clear-thinking.1",
        "anthropic-code-execution-20250825.1",
        "anthropic-mcp.1",
        // Not `anthropic-web-fetch-tool-20260209.1`: its code execution result carries
        // `abort_reason`, newer than the newest SDK (anthropic 2.15.0), whose request type would
        // drop it; the turn keeps it, as sent.
    ] {
        let whole = read(Provider::Anthropic, &format!("anthropic__{name}.json"));
        keep(
            name,
            Provider::Anthropic,
            &whole.assistant_message().unwrap(),
        );
        let streamed = stream(Provider::Anthropic, &format!("anthropic__{name}.jsonl"));
        let message = streamed.assistant_message().unwrap();
        keep(&format!("{name}-stream"), Provider::Anthropic, &message);
        keep_stream(&format!("anthropic__{name}.jsonl"), &message);
    }
}

#[test]
fn responses_reasoning_goes_back_with_its_encrypted_content() {
    for name in [
        "programmatic-tool-calling.1",
        "openai-reasoning-encrypted-content.1",
        "openai-mcp-tool-approval.1",
        "openai-tool-search.1",
        "openai-shell-container.1",
    ] {
        let (whole, streamed) = both(name);
        for (turn, form) in [(&whole, "whole"), (&streamed, "stream")] {
            let items = turn.assistant_message().unwrap();
            assert_eq!(items.as_array().unwrap().len(), turn.content.len());
            keep(&format!("{name}-{form}"), Provider::OpenAiResponses, &items);
        }
        // The whole response's output, item for item.
        let body = body(&format!("responses__{name}.json"));
        assert_eq!(whole.assistant_message().unwrap(), body["output"], "{name}");
    }
    let (whole, _) = both("programmatic-tool-calling.1");
    let items = whole.assistant_message().unwrap();
    assert_eq!(items[0]["type"], "reasoning");
    assert!(items[0]["encrypted_content"].as_str().unwrap().len() > 100);

    let streamed = stream(
        Provider::OpenAiResponses,
        "responses__pydantic-ai-streaming-usage.jsonl",
    );
    let items = streamed.assistant_message().unwrap();
    assert!(
        items
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["type"] == "reasoning")
    );
    keep("streaming-usage-stream", Provider::OpenAiResponses, &items);
}

#[test]
fn gemini_thought_signatures_go_back_on_their_parts() {
    let whole = read(Provider::Gemini, "gemini__google-tool-call-gemini3.json");
    let message = whole.assistant_message().unwrap();
    let body = body("gemini__google-tool-call-gemini3.json");
    assert_eq!(
        message,
        json!({"role": "model", "parts": body["candidates"][0]["content"]["parts"]})
    );
    keep("tool-call-gemini3", Provider::Gemini, &message);

    // Streamed: the call whole, with the signature it came with.
    for name in [
        "pydantic-ai-streaming-tool-call-thought-signature",
        "google-tool-call-gemini3",
        "google-reasoning-gemini3",
    ] {
        let streamed = stream(Provider::Gemini, &format!("gemini__{name}.jsonl"));
        let message = streamed.assistant_message().unwrap();
        let chunks: Vec<Value> = data::read(&format!("providers/turns/gemini__{name}.jsonl"))
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let signatures: Vec<&Value> = chunks
            .iter()
            .flat_map(|chunk| {
                chunk["candidates"][0]["content"]["parts"]
                    .as_array()
                    .into_iter()
                    .flatten()
            })
            .filter_map(|part| part.get("thoughtSignature"))
            .collect();
        let kept: Vec<&Value> = message["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|part| part.get("thoughtSignature"))
            .collect();
        assert_eq!(kept, signatures, "{name}: every signature, in order");
        for part in message["parts"].as_array().unwrap() {
            if let Some(call) = part.get("functionCall") {
                assert!(call["args"].is_object(), "{name}");
                assert!(call["name"].is_string(), "{name}");
            }
        }
        keep(&format!("{name}-stream"), Provider::Gemini, &message);
    }
}

#[test]
fn openai_chat_turns_go_back_as_the_assistant_message() {
    let body = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": null, "refusal": null, "annotations": [],
        "reasoning_content": "not to be sent back",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 1}"}}],
    }}]});
    let whole = Provider::OpenAiChat.read_response(&body).unwrap();
    let expected = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 1}"}},
    ]});
    assert_eq!(whole.assistant_message().unwrap(), expected);
    let mut assembler = Assembler::new(Provider::OpenAiChat);
    for line in [
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\""}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":": 1}"}}]},"finish_reason":"tool_calls"}]}"#,
    ] {
        assembler.push_line(line).unwrap();
    }
    assert_eq!(
        assembler.finish_turn().assistant_message().unwrap(),
        expected
    );
    keep("tool-calls", Provider::OpenAiChat, &expected);
    // An MCP request is no model's turn.
    let request = json!({"method": "tools/call", "params": {"name": "add"}});
    assert!(
        Provider::Mcp
            .read_response(&request)
            .unwrap()
            .assistant_message()
            .is_err()
    );
}
