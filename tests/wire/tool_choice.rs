//! The request side against requests really sent: pydantic-ai's tool-choice matrix
//! (`tests/data/providers/pydantic_ai_tool_choice_matrix.jsonl`, 10 providers x 6 modes, the
//! README there names the source), plus the `toolConfig` of its Gemini requests
//! (`tests/data/providers/tool_choice_gemini.json`, from the same cassettes). For every provider
//! whose request toolwright writes, the fields written equal the recorded ones (modulo key order
//! and each tool's own schema); every recorded response in a format toolwright reads is read back
//! to the recorded calls; and the request writer and `BatchOptions::for_request` agree.

use crate::data;
use crate::support;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use toolwright::provider::{AllowedMode, Provider, RequestError, ToolChoice, ToolRequest};
use toolwright::{DynamicTool, ToolDefinition, Toolbox, exec::BatchOptions, schema::Form};

fn matrix() -> Vec<Value> {
    data::read("providers/pydantic_ai_tool_choice_matrix.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn gemini_tool_configs() -> Value {
    serde_json::from_str::<Value>(&data::read("providers/tool_choice_gemini.json")).unwrap()
        ["toolConfig"]
        .take()
}

/// `(mode, provider)` of a matrix cassette, `test_tool_choice_matrix[<mode>-<provider>].yaml`.
fn mode_and_provider(cassette: &str) -> Option<(String, String)> {
    let inner = cassette.split_once("test_tool_choice_matrix[")?.1;
    let inner = inner.strip_suffix("].yaml")?;
    let (mode, provider) = inner.split_once('-')?;
    Some((mode.to_owned(), provider.to_owned()))
}

/// The tools of each mode and the choice it asks for, as pydantic-ai's
/// `tests/models/test_tool_choice_matrix.py` sets them up: `list_single` is `tool_choice =
/// ['get_weather']` (a subset of one, required: the tool), `none_with_output` turns function
/// tools off while its output tool must be called, `tools_plus_output` allows `get_weather` and
/// the output tool `final_result` and requires a call.
fn mode(mode: &str) -> (&'static [&'static str], ToolChoice) {
    match mode {
        "auto" => (&["get_weather"], ToolChoice::Auto),
        "none" => (&["get_weather"], ToolChoice::None),
        "required" => (&["get_weather"], ToolChoice::Required),
        "list_single" => (
            &["get_weather", "get_time"],
            ToolChoice::allowed(["get_weather"], AllowedMode::Required),
        ),
        "none_with_output" => (
            &["get_weather", "final_result"],
            ToolChoice::tool("final_result"),
        ),
        "tools_plus_output" => (
            &["get_weather", "get_time", "final_result"],
            ToolChoice::allowed(["get_weather", "final_result"], AllowedMode::Required),
        ),
        other => panic!("unknown mode {other}"),
    }
}

fn toolbox(names: &[&'static str]) -> Toolbox {
    let mut tools = Toolbox::new();
    for name in names {
        let (parameter, description) = match *name {
            "get_weather" => ("city", "Get the current weather for a city."),
            "get_time" => ("timezone", "Get the current time in a timezone."),
            _ => ("summary", "The final response which ends this conversation"),
        };
        let def = ToolDefinition::new(
            *name,
            description,
            json!({"type": "object", "properties": {parameter: {"type": "string"}}, "required": [parameter]}),
        )
        .unwrap();
        tools
            .register(DynamicTool::new(def, |args, _: &()| Value::Object(args)))
            .unwrap();
    }
    tools
}

/// The names a request's `tools` lists, in order (Chat nests each under `function`, Gemini
/// under `functionDeclarations`).
fn tool_names(tools: &Value) -> Vec<String> {
    let entries: Vec<&Value> = match tools.as_array() {
        Some(list) if list.iter().any(|t| t.get("functionDeclarations").is_some()) => list
            .iter()
            .flat_map(|t| t["functionDeclarations"].as_array().unwrap())
            .collect(),
        Some(list) => list.iter().collect(),
        None => Vec::new(),
    };
    entries
        .iter()
        .map(|entry| {
            entry.get("function").unwrap_or(entry)["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Allowed names are a set in both APIs that take a list of them (OpenAI's `allowed_tools`,
/// Gemini's `allowedFunctionNames`, "a set of function names"); pydantic-ai sorts them, and
/// toolwright keeps the caller's order. Lists under those keys are compared as sets.
fn sets_unordered(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| {
                    let value = match (key.as_str(), value) {
                        ("tools" | "allowedFunctionNames", Value::Array(items))
                            if map.contains_key("mode") =>
                        {
                            let mut items: Vec<Value> = items.iter().map(sets_unordered).collect();
                            items.sort_by_key(Value::to_string);
                            Value::Array(items)
                        }
                        _ => sets_unordered(value),
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(sets_unordered).collect()),
        other => other.clone(),
    }
}

/// How toolwright writes each matrix provider's request, or why it does not.
fn request_side(provider: &str) -> Result<(Form, bool), &'static str> {
    match provider {
        "openai" => Ok((Form::new(Provider::OpenAiChat), false)),
        // An OpenAI-compatible Chat server without OpenAI's `allowed_tools`: subsets narrow.
        "groq" => Ok((Form::new(Provider::OpenAiChat), true)),
        "openai_responses" => Ok((Form::new(Provider::OpenAiResponses), false)),
        "anthropic" => Ok((Form::new(Provider::Anthropic), false)),
        // pydantic-ai sends `parameters_json_schema`, toolwright's JSON Schema form.
        "google" => Ok((Form::gemini_json_schema(), false)),
        // Its own words for the same modes ("any" for required; tools left out for "none"), in
        // the Chat format; Mistral takes OpenAI's words too, but toolwright does not write
        // Mistral's dialect, so there is no request of toolwright's to compare.
        "mistral" => Err("Mistral's dialect"),
        // The matrix keeps no request for these (`request_tools` and `request_tool_choice`
        // are null in every row).
        "huggingface" => Err("no request recorded"),
        // Formats toolwright neither reads nor writes.
        "cohere" => Err("Cohere v2 chat"),
        "bedrock" => Err("Bedrock Converse"),
        other => panic!("a provider the test does not know: {other}"),
    }
}

#[test]
fn every_written_request_matches_the_recorded_one() {
    let gemini = gemini_tool_configs();
    let mut compared: BTreeMap<String, usize> = BTreeMap::new();
    let mut not_written: BTreeMap<&str, usize> = BTreeMap::new();
    for row in matrix() {
        let cassette = row["cassette"].as_str().unwrap();
        let Some((mode_name, provider)) = mode_and_provider(cassette) else {
            // The one row of another test: a Gemini request with Google Search only, no
            // function tools (its response is read below).
            assert!(cassette.contains("web_search"), "{cassette}");
            continue;
        };
        let context = format!("{mode_name}-{provider} #{}", row["interaction"]);
        let (form, narrow) = match request_side(&provider) {
            Ok(side) => side,
            Err(why) => {
                *not_written.entry(why).or_default() += 1;
                continue;
            }
        };
        let (names, choice) = mode(&mode_name);
        let tools = toolbox(names).with_gemini_json_schema(form.is_gemini_json_schema());
        let request = ToolRequest::new(choice).narrow_tools(narrow);
        let fields = tools
            .request_fields(form.provider(), request)
            .unwrap_or_else(|e| panic!("{context}: {e}"));

        assert_eq!(
            tool_names(&fields.get("tools").unwrap().clone()),
            tool_names(&row["request_tools"]),
            "{context}: the tools sent"
        );
        let (key, written, recorded) = if provider == "google" {
            (
                "toolConfig",
                fields.get("toolConfig").cloned(),
                gemini[mode_name.as_str()].clone(),
            )
        } else {
            let recorded = match (mode_name.as_str(), provider.as_str()) {
                // pydantic-ai sends OpenAI Chat `required` over all three tools here, which lets
                // the model call `get_time`, outside the subset. Chat's own `allowed_tools`
                // form (the SDK's `ChatCompletionAllowedToolChoiceParam`) says the subset, as
                // pydantic-ai's Responses request does; with `narrow_tools` the request is
                // groq's row, also checked here.
                ("tools_plus_output", "openai") => {
                    assert_eq!(row["request_tool_choice"], "required", "{context}");
                    json!({"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [
                        {"type": "function", "function": {"name": "get_weather"}},
                        {"type": "function", "function": {"name": "final_result"}},
                    ]}})
                }
                _ => row["request_tool_choice"].clone(),
            };
            ("tool_choice", fields.get("tool_choice").cloned(), recorded)
        };
        let written = written.unwrap_or_else(|| panic!("{context}: no {key} written"));
        assert_eq!(
            sets_unordered(&written),
            sets_unordered(&recorded),
            "{context}: {key}"
        );
        // Nothing else: parallel calls were left to the provider, as in every recorded request.
        assert_eq!(fields.as_map().len(), 2, "{context}: {:?}", fields.as_map());
        *compared.entry(provider).or_default() += 1;
    }
    // Every mode of every provider toolwright writes, each interaction of a cassette.
    assert_eq!(
        compared,
        BTreeMap::from([
            ("anthropic".to_owned(), 8),
            ("google".to_owned(), 8),
            ("groq".to_owned(), 7),
            ("openai".to_owned(), 8),
            ("openai_responses".to_owned(), 8),
        ])
    );
    assert_eq!(
        not_written,
        BTreeMap::from([
            ("Bedrock Converse", 8),
            ("Cohere v2 chat", 8),
            ("Mistral's dialect", 8),
            ("no request recorded", 5),
        ])
    );
}

#[test]
fn every_recorded_response_reads_back_to_the_recorded_calls() {
    let mut read = 0;
    let mut other_formats = BTreeSet::new();
    for row in matrix() {
        let context = format!("{} #{}", row["cassette"], row["interaction"]);
        let provider = match row["format"].as_str().unwrap() {
            "openai_chat" => Provider::OpenAiChat,
            "openai_responses" => Provider::OpenAiResponses,
            "anthropic_message" => Provider::Anthropic,
            "gemini" => Provider::Gemini,
            other => {
                other_formats.insert(other.to_owned());
                continue;
            }
        };
        let turn = provider
            .read_response(&row["response_body"])
            .unwrap_or_else(|e| panic!("{context}: {e}"));
        let expected = row["expected_tool_calls"].as_array().unwrap();
        assert_eq!(turn.calls.len(), expected.len(), "{context}");
        for (call, expected) in turn.calls.iter().zip(expected) {
            // Every call of the matrix has its index recorded.
            assert!(expected["index"].is_u64(), "{context}");
            let notes: Vec<String> = row["assembly_notes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|note| note.as_str().unwrap().to_owned())
                .collect();
            support::check_recorded_call(call, expected, &notes, &context);
        }
        read += 1;
    }
    assert_eq!(read, 53);
    assert_eq!(
        other_formats,
        BTreeSet::from(["bedrock_converse".to_owned(), "cohere_v2".to_owned()])
    );
}

/// The request writer and `BatchOptions::for_request` agree: a request that asks for one call
/// at a time runs its calls one at a time, and one that does not leaves it to the toolbox.
#[test]
fn the_request_writer_and_batch_options_agree_on_parallel_calls() {
    let tools = toolbox(&["get_weather", "get_time", "final_result"]);
    let choices = [
        ToolChoice::Auto,
        ToolChoice::Required,
        ToolChoice::tool("get_time"),
        ToolChoice::allowed(["get_weather", "get_time"], AllowedMode::Auto),
        ToolChoice::allowed(["get_weather", "get_time"], AllowedMode::Required),
    ];
    let forms = [
        Form::new(Provider::OpenAiChat),
        Form::new(Provider::OpenAiResponses),
        Form::new(Provider::Anthropic),
        Form::new(Provider::Gemini),
        Form::gemini_json_schema(),
    ];
    let mut checked = 0;
    for form in forms {
        let tools = tools
            .clone()
            .with_gemini_json_schema(form.is_gemini_json_schema());
        let format = form.provider();
        for choice in &choices {
            for parallel in [None, Some(true), Some(false)] {
                for narrow in [false, true] {
                    let mut request = ToolRequest::new(choice.clone()).narrow_tools(narrow);
                    if let Some(on) = parallel {
                        request = request.parallel_calls(on);
                    }
                    let context = format!("{format:?} {choice} {parallel:?} narrow {narrow}");
                    let fields = match tools.request_fields(format, request) {
                        Ok(fields) => fields,
                        Err(RequestError::Unsupported {
                            provider: Provider::Gemini,
                            ..
                        }) => {
                            assert_eq!(parallel, Some(false), "{context}");
                            continue;
                        }
                        Err(error) => panic!("{context}: {error}"),
                    };
                    let read = BatchOptions::for_request(&fields.to_value()).is_parallel();
                    let expected = (parallel == Some(false)).then_some(false);
                    assert_eq!(read, expected, "{context}: {}", fields.to_value());
                    checked += 1;
                }
            }
        }
    }
    // Gemini refuses one call at a time (no such switch): 2 formats x 5 choices x 2.
    assert_eq!(checked, 5 * 5 * 3 * 2 - 2 * 5 * 2);

    // With `none` no call comes: nothing is written about parallel calls, for any provider.
    for form in forms {
        let tools = tools
            .clone()
            .with_gemini_json_schema(form.is_gemini_json_schema());
        let format = form.provider();
        let fields = tools
            .request_fields(
                format,
                ToolRequest::new(ToolChoice::None).parallel_calls(false),
            )
            .unwrap();
        assert_eq!(fields.get("parallel_tool_calls"), None);
        assert_eq!(
            BatchOptions::for_request(&fields.to_value()).is_parallel(),
            None
        );
    }
}

#[test]
fn choices_are_checked_against_the_toolbox_and_said_in_each_providers_words() {
    let tools = toolbox(&["get_weather", "get_time", "final_result"]);
    let write = |format, request: ToolRequest| tools.request_fields(format, request).unwrap();

    // A named tool that is not in the toolbox is refused here, not by the provider later.
    let error = tools
        .request_fields(Provider::OpenAiChat, ToolChoice::tool("get_wheather"))
        .unwrap_err();
    assert_eq!(
        error,
        RequestError::UnknownTool {
            name: "get_wheather".into(),
            suggestions: vec!["get_weather".into()],
        }
    );
    assert_eq!(
        error.to_string(),
        "the tool choice names `get_wheather`, which is not in the toolbox (did you mean `get_weather`?)"
    );
    let error = tools
        .request_fields(
            Provider::Gemini,
            ToolChoice::allowed(["get_time", "nope"], AllowedMode::Auto),
        )
        .unwrap_err();
    assert!(matches!(error, RequestError::UnknownTool { ref name, .. } if name == "nope"));
    assert_eq!(
        tools.request_fields(
            Provider::Anthropic,
            ToolChoice::allowed(Vec::<String>::new(), AllowedMode::Auto)
        ),
        Err(RequestError::EmptySubset)
    );
    // MCP clients pick tools themselves: there is no request to write.
    assert!(matches!(
        tools.request_fields(Provider::Mcp, ToolChoice::Auto),
        Err(RequestError::Unsupported {
            provider: Provider::Mcp,
            ..
        })
    ));

    // The tool list's lint errors: a map has no strict OpenAI form.
    let def = ToolDefinition::new(
        "tally",
        "Counts.",
        json!({"type": "object", "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}}}),
    )
    .unwrap();
    let strict = Toolbox::new()
        .with(DynamicTool::new(def, |args, _: &()| Value::Object(args)))
        .unwrap()
        .with_strict(true);
    match strict.request_fields(Provider::OpenAiChat, ToolChoice::Auto) {
        Err(RequestError::Lint(report)) => {
            assert!(report.to_string().contains("/properties/counts"))
        }
        other => panic!("{other:?}"),
    }

    // An empty toolbox: `auto` and `none` write nothing (OpenAI refuses `tool_choice` without
    // `tools`), a choice that needs a tool is refused.
    let empty = Toolbox::new();
    for format in [Provider::OpenAiChat, Provider::Anthropic, Provider::Gemini] {
        for choice in [ToolChoice::Auto, ToolChoice::None] {
            let fields = empty
                .request_fields(format, ToolRequest::new(choice).parallel_calls(true))
                .unwrap();
            assert!(fields.as_map().is_empty(), "{format:?}");
        }
        assert_eq!(
            empty.request_fields(format, ToolChoice::Required),
            Err(RequestError::NoTools(ToolChoice::Required))
        );
    }

    // A subset of one tool, required, is that tool; a subset of every tool is no subset.
    let one = ToolChoice::allowed(["get_time"], AllowedMode::Required);
    assert_eq!(
        write(Provider::OpenAiResponses, one.into()).get("tool_choice"),
        Some(&json!({"type": "function", "name": "get_time"}))
    );
    let all = ToolChoice::allowed(
        ["final_result", "get_time", "get_weather", "get_time"],
        AllowedMode::Auto,
    );
    assert_eq!(
        write(Provider::OpenAiChat, all.into()).get("tool_choice"),
        Some(&json!("auto"))
    );

    // An allowed subset where the model may still answer in text.
    let some = ToolChoice::allowed(["get_time", "get_weather"], AllowedMode::Auto);
    let chat = write(Provider::OpenAiChat, some.clone().into());
    assert!(!chat.narrowed());
    assert_eq!(tool_names(chat.get("tools").unwrap()).len(), 3);
    assert_eq!(
        chat.get("tool_choice"),
        Some(
            &json!({"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [
                {"type": "function", "function": {"name": "get_time"}},
                {"type": "function", "function": {"name": "get_weather"}},
            ]}})
        )
    );
    let gemini = write(Provider::Gemini, some.clone().into());
    assert_eq!(
        gemini.get("toolConfig"),
        Some(&json!({"functionCallingConfig": {
            "mode": "VALIDATED", "allowedFunctionNames": ["get_time", "get_weather"],
        }}))
    );
    let anthropic = write(Provider::Anthropic, some.clone().into());
    assert!(anthropic.narrowed());
    // Narrowed lists keep the toolbox's order.
    assert_eq!(
        tool_names(anthropic.get("tools").unwrap()),
        ["get_weather", "get_time"]
    );
    assert_eq!(anthropic.get("tool_choice"), Some(&json!({"type": "auto"})));
    // Narrowing asked for, on every provider.
    for (format, key, word) in [
        (Provider::OpenAiChat, "tool_choice", json!("auto")),
        (Provider::OpenAiResponses, "tool_choice", json!("auto")),
        (
            Provider::Gemini,
            "toolConfig",
            json!({"functionCallingConfig": {"mode": "AUTO"}}),
        ),
    ] {
        let fields = write(format, ToolRequest::new(some.clone()).narrow_tools(true));
        assert!(fields.narrowed(), "{format:?}");
        assert_eq!(
            tool_names(fields.get("tools").unwrap()),
            ["get_weather", "get_time"],
            "{format:?}"
        );
        assert_eq!(fields.get(key), Some(&word), "{format:?}");
    }

    // Parallel calls, where the provider has a switch.
    let one_at_a_time = ToolRequest::new(ToolChoice::Required).parallel_calls(false);
    assert_eq!(
        write(Provider::Anthropic, one_at_a_time.clone()).get("tool_choice"),
        Some(&json!({"type": "any", "disable_parallel_tool_use": true}))
    );
    assert_eq!(
        write(Provider::OpenAiResponses, one_at_a_time.clone()).get("parallel_tool_calls"),
        Some(&json!(false))
    );
    let error = tools
        .clone()
        .with_gemini_json_schema(true)
        .request_fields(Provider::Gemini, one_at_a_time)
        .unwrap_err();
    assert!(
        error.to_string().contains("BatchOptions::parallel(false)"),
        "{error}"
    );
}

/// Names go out as the provider knows them: a stand-in where the tool's own name breaks the
/// provider's rules, the same name the tool list sends and calls come back under.
#[test]
fn choices_name_tools_by_their_stand_ins() {
    let def = ToolDefinition::new("files.read", "Read a file.", json!({})).unwrap();
    let tools = Toolbox::new()
        .with(DynamicTool::new(def, |args, _: &()| Value::Object(args)))
        .unwrap()
        .with_all(
            toolbox(&["get_time", "get_weather"])
                .iter()
                .cloned()
                .collect::<Vec<_>>(),
        )
        .unwrap();
    let fields = tools
        .request_fields(Provider::OpenAiChat, ToolChoice::tool("files.read"))
        .unwrap();
    assert_eq!(
        fields.get("tool_choice"),
        Some(&json!({"type": "function", "function": {"name": "files_read"}}))
    );
    assert_eq!(tool_names(fields.get("tools").unwrap())[0], "files_read");
    let subset = ToolChoice::allowed(["files.read", "get_time"], AllowedMode::Auto);
    let fields = tools
        .request_fields(Provider::OpenAiResponses, subset.clone())
        .unwrap();
    assert_eq!(
        fields.get("tool_choice").unwrap()["tools"],
        json!([{"type": "function", "name": "files_read"}, {"type": "function", "name": "get_time"}])
    );
    // Gemini takes dots in names: there the tool goes under its own name.
    let fields = tools.request_fields(Provider::Gemini, subset).unwrap();
    assert_eq!(
        fields.get("toolConfig").unwrap()["functionCallingConfig"]["allowedFunctionNames"],
        json!(["files.read", "get_time"])
    );
    assert_eq!(tool_names(fields.get("tools").unwrap())[0], "files.read");
    // A call to the stand-in comes back under the tool's own name.
    let response = json!({"output": [
        {"type": "function_call", "call_id": "c1", "name": "files_read", "arguments": "{}"},
    ]});
    let turn = tools
        .read_response(Provider::OpenAiResponses, &response)
        .unwrap();
    assert_eq!(turn.calls[0].name, "files.read");
    // The tool's own name is what a choice takes.
    assert!(matches!(
        tools.request_fields(Provider::Anthropic, ToolChoice::tool("files_read")),
        Err(RequestError::UnknownTool { .. })
    ));
}

#[test]
fn tool_choices_parse_and_print_the_same() {
    for text in [
        "auto",
        "none",
        "required",
        "tool:get_weather",
        "allowed:get_weather,get_time",
        "required:get_weather,final_result",
    ] {
        let choice: ToolChoice = text.parse().unwrap();
        assert_eq!(choice.to_string(), text);
    }
    for bad in ["", "any", "tool:", "allowed:", "allowed:a,,b", "maybe:a"] {
        let error = bad.parse::<ToolChoice>().unwrap_err();
        assert!(error.to_string().contains("expected auto, none"), "{bad}");
    }
}

/// A name of any size or content in a choice gets a bounded, escaped error.
#[test]
fn hostile_names_in_a_choice_get_a_bounded_error() {
    let tools = toolbox(&["get_weather"]);
    let huge = format!("{}\n\u{1b}[2J", "x".repeat(1_000_000));
    for choice in [
        ToolChoice::tool(huge.clone()),
        ToolChoice::allowed([huge.as_str()], AllowedMode::Auto),
    ] {
        let error = tools
            .request_fields(Provider::OpenAiChat, choice)
            .unwrap_err();
        let text = error.to_string();
        assert!(text.len() < 300, "{} bytes", text.len());
        assert!(text.contains("(1000005 characters)"), "{text}");
        assert!(!text.contains('\n') && !text.contains('\u{1b}'), "{text}");
    }
}
