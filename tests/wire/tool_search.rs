//! Tool search (issue 47) on every provider: deferred tools in each request's form, the toolbox's
//! search answering each provider's search call in its own shape, the tools it found sent from the
//! next request on, and recorded search traffic (`tests/data/providers/tool_search`, sources in
//! its README) read, answered and carried back. With `SEARCH_OUT=<dir>`, the request fields and
//! next-turn messages are written for the SDK checks (`.ci/run`).

use serde_json::{Map, Value, json};
use toolwright::dynamic::{Namespace, erase};
use toolwright::exec::{BatchOptions, Conversation, block_on};
use toolwright::provider::{Provider, RequestError, ToolChoice, ToolRequest, Turn};
use toolwright::search::{Searcher, ToolSearch, UnloadedCalls};
use toolwright::{
    CallKind, DynamicTool, ResultDetail, ToolCall, ToolDefinition, ToolResult, Toolbox,
};

use super::data;

fn tool(name: &str, description: &str, parameters: Value) -> ToolDefinition {
    ToolDefinition::new(name.to_owned(), description, parameters).unwrap()
}

/// A toolbox of a pinned tool and deferred ones (one in a namespace), with tool search as asked.
fn toolbox(search: ToolSearch) -> Toolbox {
    let location = json!({"type": "object", "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    }, "required": ["location"]});
    let definitions = [
        tool("get_time", "The time now in a timezone.", json!({"type": "object", "properties": {"timezone": {"type": "string"}}})),
        tool("get_weather", "Get the current weather at a specific location", location.clone()).with_deferred(true),
        tool("get_temp_data", "Temperature readings for a location.", location).with_deferred(true),
        tool("search_files", "Search through files in the workspace", json!({"type": "object", "properties": {"query": {"type": "string"}}})).with_deferred(true),
        tool("send_email", "Send an email to a recipient", json!({"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}}}))
            .with_deferred(true)
            .with_namespace(Some(Namespace::new("mail", "Email: send and read messages."))),
        tool("executeEditorOperation", "Apply operations to a note in the editor.", json!({"type": "object", "properties": {"noteId": {"type": "string"}, "operations": {"type": "array"}}})).with_deferred(true),
    ];
    let mut tools = Toolbox::new();
    for definition in definitions {
        tools
            .register_dyn(erase(DynamicTool::new(
                definition,
                |args: Map<String, Value>, _: &()| Value::Object(args),
            )))
            .unwrap();
    }
    tools.with_tool_search(search).unwrap()
}

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t
                .get("name")
                .or_else(|| t.pointer("/function/name"))
                .or_else(|| t.pointer("/toolSpec/name"));
            name.and_then(Value::as_str)
                .unwrap_or_else(|| t["type"].as_str().unwrap())
                .to_owned()
        })
        .collect()
}

/// Writes a file for the SDK checks when asked to: `fields/<form>--<name>.json` or
/// `turns/<provider>--<name>.json`.
fn keep(kind: &str, name: &str, value: &Value) {
    if let Ok(dir) = std::env::var("SEARCH_OUT") {
        let dir = std::path::Path::new(&dir).join(kind);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("{name}.json")),
            serde_json::to_string_pretty(value).unwrap(),
        )
        .unwrap();
    }
}

fn body(name: &str) -> Value {
    serde_json::from_str(&data::read(&format!("providers/tool_search/{name}"))).unwrap()
}

/// The tools a search result found, by name.
fn found(result: &ToolResult) -> Vec<String> {
    let ResultDetail::Found { tools } = &result.detail else {
        panic!("not a search's result: {:?}", result.detail)
    };
    tools.iter().map(|name| name.as_str().to_owned()).collect()
}

fn run(tools: &Toolbox, turn: &Turn, conversation: &Conversation) -> Vec<ToolResult> {
    let options = BatchOptions::new().in_conversation(conversation.clone());
    block_on(tools.execute_all_with(&turn.calls, &(), options))
}

#[test]
fn anthropic_defers_with_the_search_tool_chosen() {
    for (searcher, last) in [
        (Searcher::Local, json!("search_tools")),
        (Searcher::Hosted, json!("tool_search_tool_bm25")),
        (Searcher::HostedRegex, json!("tool_search_tool_regex")),
    ] {
        let tools = toolbox(ToolSearch::new().searcher(searcher));
        let fields = tools
            .request_fields(Provider::Anthropic, ToolRequest::default())
            .unwrap();
        let list = fields.get("tools").unwrap();
        keep(
            "fields",
            &format!("anthropic--search-{searcher:?}"),
            &fields.to_value(),
        );
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), 7);
        assert_eq!(list[0]["name"], "get_time");
        assert!(
            list[0].get("defer_loading").is_none(),
            "a pinned tool goes in full"
        );
        assert!(list[1..6].iter().all(|t| t["defer_loading"] == true));
        assert_eq!(list[6]["name"], last);
        assert!(
            list[6].get("defer_loading").is_none(),
            "the search tool is never deferred"
        );
    }
    let bm25 = toolbox(ToolSearch::new().searcher(Searcher::Hosted));
    let fields = bm25
        .request_fields(Provider::Anthropic, ToolRequest::default())
        .unwrap();
    assert_eq!(
        fields.get("tools").unwrap()[6],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
}

#[test]
fn responses_groups_a_toolsets_deferred_tools_in_its_namespace() {
    let tools = toolbox(ToolSearch::new());
    let fields = tools
        .request_fields(Provider::OpenAiResponses, ToolRequest::default())
        .unwrap();
    keep(
        "fields",
        "openai-responses--search-client",
        &fields.to_value(),
    );
    let list = fields.get("tools").unwrap();
    assert_eq!(
        names(list),
        [
            "get_time",
            "get_weather",
            "get_temp_data",
            "search_files",
            "mail",
            "executeEditorOperation",
            "tool_search"
        ]
    );
    assert_eq!(list[4]["type"], "namespace");
    assert_eq!(list[4]["description"], "Email: send and read messages.");
    assert_eq!(list[4]["tools"][0]["name"], "send_email");
    assert_eq!(list[4]["tools"][0]["defer_loading"], true);
    assert!(
        list[4].get("defer_loading").is_none(),
        "defer_loading is the functions', not the namespace's"
    );
    assert_eq!(list[6]["execution"], "client");
    assert_eq!(list[6]["parameters"]["required"], json!(["query"]));

    let hosted = toolbox(ToolSearch::new().searcher(Searcher::Hosted));
    let fields = hosted
        .request_fields(Provider::OpenAiResponses, ToolRequest::default())
        .unwrap();
    keep(
        "fields",
        "openai-responses--search-hosted",
        &fields.to_value(),
    );
    assert_eq!(
        fields.get("tools").unwrap()[6],
        json!({"type": "tool_search"})
    );
}

/// A provider without deferral: the deferred tools wait, `search_tools` finds them, and the
/// conversation's next request sends what it found, in full.
#[test]
fn providers_without_deferral_send_the_found_tools_from_the_next_request() {
    let call = |provider: Provider| -> Value {
        let arguments = json!({"query": "what's the weather in Lisbon"});
        match provider {
            Provider::OpenAiChat => {
                json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "search_tools", "arguments": arguments.to_string()}}]}}]})
            }
            Provider::Gemini => json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "search_tools", "args": arguments}}]}}]}),
            Provider::Cohere => json!({"message": {"role": "assistant", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "search_tools", "arguments": arguments.to_string()}}]}, "finish_reason": "TOOL_CALL"}),
            Provider::Bedrock => json!({"output": {"message": {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "call_1", "name": "search_tools", "input": arguments}}]}}, "stopReason": "tool_use"}),
            _ => unreachable!(),
        }
    };
    for provider in [
        Provider::OpenAiChat,
        Provider::Gemini,
        Provider::Cohere,
        Provider::Bedrock,
    ] {
        let tools = toolbox(ToolSearch::new());
        let conversation = Conversation::new();
        let request = || ToolRequest::default().in_conversation(conversation.clone());
        let first = tools.request_fields(provider, request()).unwrap();
        let sent = |fields: &toolwright::provider::RequestFields| -> Vec<String> {
            let list = match provider {
                Provider::Gemini => fields.get("tools").unwrap()[0]["functionDeclarations"].clone(),
                Provider::Bedrock => fields.get("toolConfig").unwrap()["tools"].clone(),
                _ => fields.get("tools").unwrap().clone(),
            };
            names(&list)
        };
        assert_eq!(sent(&first), ["get_time", "search_tools"], "{provider}");
        let form = match provider {
            Provider::Cohere | Provider::Bedrock => format!("{provider}-fields"),
            _ => provider.to_string(),
        };
        keep(
            "fields",
            &format!("{form}--search-first"),
            &first.to_value(),
        );

        // The model searches; the toolbox answers, and the conversation keeps what it found.
        let turn = tools.read_response(provider, &call(provider)).unwrap();
        let results = run(&tools, &turn, &conversation);
        assert_eq!(found(&results[0])[0], "get_weather", "{provider}");
        assert!(!results[0].is_error);
        assert!(
            results[0].text().contains("Get the current weather"),
            "{provider}"
        );
        assert!(conversation.is_loaded("get_weather"));
        let answer = tools
            .encode_results(provider, &turn.calls, &results)
            .unwrap();
        assert!(
            answer.to_string().contains("get_weather"),
            "{provider}: {answer}"
        );

        // Next request: the tools found go in full; the rest still wait.
        let second = tools.request_fields(provider, request()).unwrap();
        let second_names = sent(&second);
        assert!(
            second_names.contains(&"get_weather".to_owned()),
            "{provider}: {second_names:?}"
        );
        assert!(!second_names.contains(&"send_email".to_owned()));
        assert_eq!(second_names.last().unwrap(), "search_tools");
        keep(
            "fields",
            &format!("{form}--search-second"),
            &second.to_value(),
        );

        // The model calls the tool it found.
        let call = ToolCall::new("call_2", "get_weather", r#"{"location": "Lisbon"}"#);
        let result = tools.execute_blocking(&call, &());
        assert!(!result.is_error, "{provider}: {}", result.text());
        // Another conversation found nothing.
        let other = tools
            .request_fields(
                provider,
                ToolRequest::default().in_conversation(Conversation::new()),
            )
            .unwrap();
        assert_eq!(sent(&other), ["get_time", "search_tools"]);
    }
}

#[test]
fn a_tool_choice_naming_a_deferred_tool_sends_it_in_full() {
    let tools = toolbox(ToolSearch::new());
    let fields = tools
        .request_fields(Provider::OpenAiChat, ToolChoice::tool("send_email"))
        .unwrap();
    assert_eq!(
        names(fields.get("tools").unwrap()),
        ["get_time", "send_email", "search_tools"]
    );
    assert_eq!(
        fields.get("tool_choice").unwrap()["function"]["name"],
        "send_email"
    );

    let fields = tools
        .request_fields(Provider::Anthropic, ToolChoice::tool("send_email"))
        .unwrap();
    let list = fields.get("tools").unwrap().as_array().unwrap();
    let email = list.iter().find(|t| t["name"] == "send_email").unwrap();
    assert!(email.get("defer_loading").is_none());
    keep(
        "fields",
        "anthropic--search-tool-choice",
        &fields.to_value(),
    );

    let allowed = ToolChoice::allowed(
        ["get_weather", "get_time"],
        toolwright::provider::AllowedMode::Auto,
    );
    let fields = tools
        .request_fields(Provider::OpenAiResponses, allowed)
        .unwrap();
    let list = fields.get("tools").unwrap().as_array().unwrap();
    let weather = list.iter().find(|t| t["name"] == "get_weather").unwrap();
    assert!(weather.get("defer_loading").is_none());
    keep(
        "fields",
        "openai-responses--search-allowed",
        &fields.to_value(),
    );

    // Per request: pinned and deferred by name.
    let request = ToolRequest::default()
        .pin(["search_files"])
        .defer(["get_time"]);
    let fields = tools.request_fields(Provider::OpenAiChat, request).unwrap();
    assert_eq!(
        names(fields.get("tools").unwrap()),
        ["search_files", "search_tools"]
    );
}

#[test]
fn openai_chat_takes_128_tools_and_deferral_fits_more() {
    let mut many = Toolbox::new();
    for i in 0..200 {
        let definition = tool(&format!("tool_{i}"), "A tool.", json!({}));
        many.register_dyn(erase(DynamicTool::new(
            definition,
            |_: Map<String, Value>, _: &()| Value::Null,
        )))
        .unwrap();
    }
    let error = many
        .request_fields(Provider::OpenAiChat, ToolRequest::default())
        .unwrap_err();
    assert!(
        matches!(
            error,
            RequestError::TooManyTools {
                count: 200,
                max: 128,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("at most 128 tools"));
    let searching = many
        .clone()
        .with_tool_search(ToolSearch::new().defer_all_but(["tool_7"]))
        .unwrap();
    let fields = searching
        .request_fields(Provider::OpenAiChat, ToolRequest::default())
        .unwrap();
    assert_eq!(
        names(fields.get("tools").unwrap()),
        ["tool_7", "search_tools"]
    );
}

#[test]
fn a_deferred_tool_not_yet_found_runs_or_is_refused_as_the_application_chose() {
    let call = ToolCall::new("c1", "get_weather", r#"{"location": "Oslo"}"#);
    let turn_of = |call: &ToolCall| vec![call.clone()];
    let runs = toolbox(ToolSearch::new());
    let conversation = Conversation::new();
    let result = block_on(runs.execute_all_with(
        &turn_of(&call),
        &(),
        BatchOptions::new().in_conversation(conversation.clone()),
    ));
    assert!(!result[0].is_error, "{}", result[0].text());

    let refuses = toolbox(ToolSearch::new().unloaded_calls(UnloadedCalls::Refuse));
    let result = block_on(refuses.execute_all_with(
        &turn_of(&call),
        &(),
        BatchOptions::new().in_conversation(conversation.clone()),
    ));
    assert!(result[0].is_error);
    assert!(
        result[0].text().contains("search_tools"),
        "{}",
        result[0].text()
    );
    conversation.load(["get_weather"]);
    let result = block_on(refuses.execute_all_with(
        &turn_of(&call),
        &(),
        BatchOptions::new().in_conversation(conversation),
    ));
    assert!(!result[0].is_error, "{}", result[0].text());
    // An unknown tool's message points at the search tool, not at a thousand names.
    let unknown = refuses.execute_blocking(&ToolCall::new("c2", "get_wether", "{}"), &());
    assert!(
        unknown.text().contains("did you mean `get_weather`?"),
        "{}",
        unknown.text()
    );
    assert!(
        unknown.text().contains("Find tools with `search_tools`"),
        "{}",
        unknown.text()
    );
}

/// Anthropic, the toolbox's search as a client tool: `tool_reference` blocks answer it.
#[test]
fn anthropic_client_search_is_answered_with_tool_references() {
    let tools = toolbox(ToolSearch::new());
    let response = json!({"role": "assistant", "type": "message", "stop_reason": "tool_use", "content": [
        {"type": "text", "text": "Let me find a tool for that."},
        {"type": "tool_use", "id": "toolu_1", "name": "search_tools", "input": {"query": "send an email"}},
    ]});
    let turn = tools.read_response(Provider::Anthropic, &response).unwrap();
    let conversation = Conversation::new();
    let results = run(&tools, &turn, &conversation);
    let message = tools
        .encode_results(Provider::Anthropic, &turn.calls, &results)
        .unwrap();
    assert_eq!(message["role"], "user");
    let block = &message["content"][0];
    assert_eq!(block["tool_use_id"], "toolu_1");
    assert_eq!(
        block["content"][0],
        json!({"type": "tool_reference", "tool_name": "send_email"})
    );
    keep("turns", "anthropic--search-client-references", &message);
    keep(
        "turns",
        "anthropic--search-client-assistant",
        &turn.assistant_message().unwrap(),
    );

    // The model calls the tool it found.
    let next = json!({"role": "assistant", "type": "message", "content": [
        {"type": "tool_use", "id": "toolu_2", "name": "send_email", "input": {"to": "a@b.c", "body": "hi"}},
    ]});
    let turn = tools.read_response(Provider::Anthropic, &next).unwrap();
    let results = run(&tools, &turn, &conversation);
    assert!(!results[0].is_error);
    let message = tools
        .encode_results(Provider::Anthropic, &turn.calls, &results)
        .unwrap();
    assert_eq!(message["content"][0]["tool_use_id"], "toolu_2");
}

/// Recorded: Anthropic ran the search (regex and BM25); the found tool's call runs, and the
/// turn goes back with the search blocks, nothing lost.
#[test]
fn recorded_anthropic_searches_are_read_answered_and_carried_back() {
    for (name, tool_name) in [
        ("anthropic-tool-search-regex.1.json", "get_temp_data"),
        ("anthropic-tool-search-bm25.1.json", "get_weather"),
        (
            "anthropic-tool-search-deferred-bm25.2.json",
            "executeEditorOperation",
        ),
    ] {
        let tools = toolbox(ToolSearch::new().searcher(Searcher::Hosted));
        let response = body(name);
        let turn = tools.read_response(Provider::Anthropic, &response).unwrap();
        let local: Vec<&ToolCall> = turn.local_calls().collect();
        assert_eq!(local.len(), 1, "{name}");
        assert_eq!(local[0].name, tool_name);
        assert!(
            turn.calls
                .iter()
                .filter(|c| c.kind == CallKind::Server)
                .all(|c| !c.owes_result())
        );
        let results = run(&tools, &turn, &Conversation::new());
        let message = tools
            .encode_results(Provider::Anthropic, &turn.calls, &results)
            .unwrap();
        assert_eq!(
            message["content"].as_array().unwrap().len(),
            1,
            "{name}: {message}"
        );
        assert_eq!(
            message["content"][0]["tool_use_id"],
            local[0].call_id.as_str()
        );
        let assistant = turn.assistant_message().unwrap();
        assert_eq!(
            assistant["content"], response["content"],
            "{name}: every block goes back"
        );
        keep(
            "turns",
            &format!("anthropic--{}", name.trim_end_matches(".json")),
            &assistant,
        );
        keep(
            "turns",
            &format!("anthropic--{}-results", name.trim_end_matches(".json")),
            &message,
        );
    }
}

/// Recorded: a Responses client search (its arguments as the application declared them) answered
/// with a `tool_search_output` of the definitions found; then the found tool's call. And a hosted
/// search, which owes nothing.
#[test]
fn recorded_responses_searches_are_read_answered_and_carried_back() {
    let tools = toolbox(ToolSearch::new());
    let response = body("openai-client-tool-search.1.json");
    let turn = tools
        .read_response(Provider::OpenAiResponses, &response)
        .unwrap();
    assert_eq!(turn.calls.len(), 1);
    assert_eq!(turn.calls[0].kind, CallKind::Builtin);
    let conversation = Conversation::new();
    let results = run(&tools, &turn, &conversation);
    assert!(!results[0].is_error, "{}", results[0].text());
    let items = tools
        .encode_results(Provider::OpenAiResponses, &turn.calls, &results)
        .unwrap();
    let output = &items[0];
    assert_eq!(output["type"], "tool_search_output");
    assert_eq!(output["call_id"], "call_AEvXZ1rvYpxHh8QZb7wGlTGH");
    assert_eq!(output["execution"], "client");
    assert_eq!(output["tools"][0]["name"], "get_weather");
    assert_eq!(output["tools"][0]["type"], "function");
    assert!(
        output["tools"][0].get("defer_loading").is_none(),
        "a found tool is loaded"
    );
    let mut next = turn
        .assistant_message()
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    next.extend(items.as_array().unwrap().iter().cloned());
    keep(
        "turns",
        "openai-responses--client-tool-search",
        &Value::Array(next),
    );

    let turn = tools
        .read_response(
            Provider::OpenAiResponses,
            &body("openai-client-tool-search.2.json"),
        )
        .unwrap();
    assert_eq!(turn.calls[0].name, "get_weather");
    let results = run(&tools, &turn, &conversation);
    assert!(!results[0].is_error);

    let hosted = toolbox(ToolSearch::new().searcher(Searcher::Hosted));
    let response = body("openai-tool-search.1.json");
    let turn = hosted
        .read_response(Provider::OpenAiResponses, &response)
        .unwrap();
    let local: Vec<&ToolCall> = turn.local_calls().collect();
    assert_eq!(local.len(), 1);
    assert_eq!(local[0].name, "get_weather");
    let results = run(&hosted, &turn, &Conversation::new());
    let items = hosted
        .encode_results(Provider::OpenAiResponses, &turn.calls, &results)
        .unwrap();
    assert_eq!(items.as_array().unwrap().len(), 1);
    assert_eq!(items[0]["type"], "function_call_output");
    let mut next = turn
        .assistant_message()
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    next.extend(items.as_array().unwrap().iter().cloned());
    keep(
        "turns",
        "openai-responses--hosted-tool-search",
        &Value::Array(next),
    );
}

#[test]
fn the_toolbox_search_finds_by_every_field_and_keeps_up_with_changes() {
    let mut tools = toolbox(ToolSearch::new());
    let found: Vec<&str> = tools.search("email", 3).iter().map(|d| d.name()).collect();
    assert_eq!(found[0], "send_email");
    assert_eq!(tools.search("fahrenheit", 5)[0].name(), "get_weather");
    assert!(tools.search_index().contains("get_time"));
    assert!(tools.remove("send_email").is_some());
    assert!(tools.search("email", 3).is_empty());
    let definition = tool("post_letter", "Mail a paper letter by post.", json!({}));
    tools
        .register_dyn(erase(DynamicTool::new(
            definition,
            |_: Map<String, Value>, _: &()| Value::Null,
        )))
        .unwrap();
    assert_eq!(tools.search("letter", 3)[0].name(), "post_letter");
    // The search tool's name is taken.
    let clash = tool("search_tools", "Mine.", json!({}));
    assert!(
        tools
            .register_dyn(erase(DynamicTool::new(
                clash,
                |_: Map<String, Value>, _: &()| Value::Null
            )))
            .is_err()
    );
    // Arguments far longer than a query are refused before they are read.
    let long = format!(r#"{{"query": "{}"}}"#, "weather ".repeat(5000));
    let refused = tools.execute_blocking(&ToolCall::new("c", "search_tools", long), &());
    assert!(
        refused.is_error && refused.text().contains("over 16384"),
        "{}",
        refused.text()
    );
    // A search call without a query says what it takes.
    let bad = tools.execute_blocking(&ToolCall::new("c", "search_tools", "{}"), &());
    assert!(bad.is_error);
    assert!(bad.text().contains("query"), "{}", bad.text());
}

proptest::proptest! {
    /// Whatever the names, descriptions, queries and patterns, the index never panics, finds at
    /// most `k` tools, each one it holds, and keeps up with removals.
    #[test]
    fn the_index_never_panics_and_finds_only_what_it_holds(
        tools in proptest::collection::vec(("\\PC{0,24}", "\\PC{0,80}"), 0..24),
        query in "\\PC{0,60}",
        pattern in "\\PC{0,30}",
        k in 0usize..8,
    ) {
        let mut index = toolwright::search::ToolIndex::new();
        for (name, description) in &tools {
            index.insert(name, description, &json!({"type": "object", "properties": {description.clone(): {"description": name}}}));
        }
        let hits = index.search(&query, k);
        proptest::prop_assert!(hits.len() <= k);
        for hit in &hits {
            proptest::prop_assert!(index.contains(hit.name));
        }
        if let Ok(found) = index.regex(&pattern, k) {
            proptest::prop_assert!(found.len() <= k);
        }
        if let Some((name, _)) = tools.first() {
            index.remove(name);
            proptest::prop_assert!(index.search(&query, 50).iter().all(|hit| hit.name != name));
        }
    }
}

#[test]
fn the_toolbox_answers_a_regex_search_and_paths_too() {
    let tools = toolbox(ToolSearch::new());
    let result = tools.execute_blocking(
        &ToolCall::new("c", "search_tools", r#"{"pattern": "(?i)^get_"}"#),
        &(),
    );
    // `get_time` matches too, and is in every request already: only deferred tools are found.
    assert_eq!(found(&result), ["get_weather", "get_temp_data"]);
    let bad = tools.execute_blocking(
        &ToolCall::new("c", "search_tools", r#"{"pattern": "("}"#),
        &(),
    );
    assert!(
        bad.is_error && bad.text().contains("regular expression"),
        "{}",
        bad.text()
    );
    // Responses' default client arguments: the tools by path.
    let call = ToolCall::new(
        "c",
        "search_tools",
        r#"{"paths": ["mail.send_email", "get_weather", "nope"]}"#,
    );
    let result = tools.execute_blocking(&call, &());
    assert_eq!(found(&result), ["send_email", "get_weather"]);
}

/// Streamed: a Responses client search assembled from its recorded events is answered as the
/// whole response's is; a cut-off search is refused under a policy that refuses cut-off calls.
#[test]
fn a_streamed_search_is_answered_and_a_cut_off_one_follows_the_policy() {
    let tools = toolbox(ToolSearch::new());
    let mut assembler = tools.assembler(Provider::OpenAiResponses);
    for line in data::read("providers/tool_search/openai-client-tool-search.1.chunks.txt").lines() {
        assembler.push_line(line).unwrap();
    }
    let turn = assembler.finish_turn();
    assert_eq!(turn.calls.len(), 1);
    let conversation = Conversation::new();
    let results = run(&tools, &turn, &conversation);
    assert_eq!(found(&results[0])[0], "get_weather");
    assert!(conversation.is_loaded("get_weather"));

    let mut cut = ToolCall::new("c", "search_tools", r#"{"query": "wea"#);
    cut.status = toolwright::CallStatus::Incomplete;
    let strict = tools.clone().with_argument_policy(
        toolwright::args::ArgumentPolicy::default().cut_off(toolwright::args::CutOff::Refuse),
    );
    let refused = strict.execute_blocking(&cut, &());
    assert!(refused.argument_error().is_some(), "{}", refused.text());
}

#[test]
fn a_tool_sent_under_the_search_tools_name_cannot_join() {
    let tools = toolbox(ToolSearch::new());
    // `search.tools` goes to OpenAI as `search_tools`: the two could not be told apart.
    let clash = tool("search.tools", "Mine.", json!({}));
    let mut grown = tools.clone();
    let refused = grown.register_dyn(erase(DynamicTool::new(
        clash.clone(),
        |_: Map<String, Value>, _: &()| Value::Null,
    )));
    assert!(refused.is_err());
    let mut plain = Toolbox::new();
    plain
        .register_dyn(erase(DynamicTool::new(
            clash,
            |_: Map<String, Value>, _: &()| Value::Null,
        )))
        .unwrap();
    assert!(plain.with_tool_search(ToolSearch::new()).is_err());
}
