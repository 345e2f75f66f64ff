//! Contracts that hold for every input: dispatch never panics and answers every call exactly once,
//! with its own call id, whatever the model sends.

use crate::demo;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Value, json};
use toolwright::args::{JsonLimits, parse_json, parse_lenient};
use toolwright::provider::Provider;
use toolwright::schema::Form;
use toolwright::{
    Arguments, ToolCall,
    exec::{BatchOptions, block_on},
};

const TOOLS: &[&str] = &[
    "add",
    "get_weather",
    "divide",
    "set_tags",
    "update_preferences",
    "search",
    "whoami",
    "create_invoice",
    "no_such_tool",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{1,12}", inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn arguments() -> impl Strategy<Value = Arguments> {
    prop_oneof![
        ".{0,64}".prop_map(Arguments::Text),
        json_value().prop_map(|v| Arguments::Text(v.to_string())),
        json_value().prop_map(Arguments::Json),
        // Near misses of real argument objects.
        (
            prop::sample::select(vec![
                "a",
                "b",
                "city",
                "unit",
                "tags",
                "query",
                "limit",
                "data",
                "unique_code"
            ]),
            json_value()
        )
            .prop_map(|(key, value)| Arguments::Json(json!({ key: value }))),
    ]
}

/// `cases` cases, after the failing ones proptest saved, which are kept with the other
/// regressions (the path is relative to the test's working directory, `tests/`).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "regressions/properties.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn every_call_gets_exactly_its_own_result(
        tool in prop::sample::select(TOOLS),
        arguments in arguments(),
        id in "[a-z0-9_]{1,16}",
    ) {
        let tools = demo::toolbox();
        let call = ToolCall::new(id.clone(), tool, arguments);
        let result = tools.execute_blocking(&call, &demo::context());
        prop_assert_eq!(&result.call_id, &id);
        prop_assert_eq!(result.tool_name.as_ref(), tool);
        prop_assert!(!result.text().is_empty());
        if result.is_error {
            prop_assert!(!result.text().contains("line 1 column"), "{}", result.text());
        }
    }

    #[test]
    fn a_batch_answers_every_call_in_call_order(
        calls in prop::collection::vec(
            (prop::sample::select(TOOLS), arguments(), "[a-z0-9_]{1,8}"),
            0..12,
        ),
        parallel in any::<bool>(),
        limit in 1usize..6,
    ) {
        // A budget of one, so exhausted budgets show up among the results too.
        let tools = demo::toolbox().with_retry_budget(1);
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .enumerate()
            .map(|(i, (tool, arguments, id))| ToolCall::new(format!("{i}-{id}"), tool, arguments))
            .collect();
        let options = BatchOptions::new().parallel(parallel).concurrency(limit);
        let results = block_on(tools.execute_all_with(&calls, &demo::context(), options));
        prop_assert_eq!(results.len(), calls.len());
        for (call, result) in calls.iter().zip(&results) {
            prop_assert_eq!(&result.call_id, &call.call_id);
            prop_assert_eq!(result.tool_name.as_ref(), call.name.as_str());
            prop_assert!(!result.text().is_empty());
            prop_assert!(!result.is_interrupt());
        }
    }

    #[test]
    fn add_agrees_with_integer_addition(a in any::<i64>(), b in any::<i64>()) {
        let tools = demo::toolbox();
        let call = ToolCall::new("c", "add", json!({"a": a, "b": b}));
        let result = tools.execute_blocking(&call, &demo::context());
        match a.checked_add(b) {
            Some(sum) => prop_assert_eq!(result.text(), sum.to_string()),
            None => prop_assert!(result.is_error),
        }
    }
}

/// Text made of JSON's own characters and the usual damage: what the lenient parser is for.
fn json_noise() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec![
                "{", "}", "[", "]", "\"", "'", ":", ",", " ", "\n", "\\", "/", "*", "//", "/*",
                "*/", "```", "```json", "true", "tru", "None", "NaN", "-", "+", ".", "e", "1", "0",
                "42", "a", "key", "\\u", "\\ud83d", "\u{201c}", "\u{a0}", "(", ")", "...",
            ])
            .prop_map(str::to_owned),
            ".{0,3}",
        ],
        0..64,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(config(2048))]

    /// The lenient parser never panics, whatever it is given, and says where it stopped.
    #[test]
    fn lenient_parsing_never_panics(text in prop_oneof![".{0,200}", json_noise()]) {
        let limits = JsonLimits::default();
        match parse_json(&text, &limits) {
            Ok(repaired) => {
                for repair in &repaired.repairs {
                    prop_assert!(repair.offset <= text.len(), "{:?}: {:?}", text, repair);
                }
                prop_assert_eq!(parse_json(&text, &limits), Ok(repaired));
            }
            Err(error) => prop_assert!(error.offset <= text.len(), "{:?}: {}", text, error),
        }
    }

    /// Valid JSON comes back as serde_json reads it, with no repairs, compact or pretty.
    /// (serde_json itself, without its `float_roundtrip` feature, may read a float one unit in
    /// the last place off what was written: the contract is agreement with serde_json.)
    #[test]
    fn valid_json_is_read_unchanged(value in json_value()) {
        let limits = JsonLimits::default();
        for text in [value.to_string(), serde_json::to_string_pretty(&value).unwrap()] {
            let value: Value = serde_json::from_str(&text).unwrap();
            let repaired = parse_json(&text, &limits).unwrap();
            prop_assert_eq!(&repaired.value, &value);
            prop_assert!(repaired.repairs.is_empty());
            // And the lenient parser alone agrees with serde_json on valid input.
            let lenient = parse_lenient(&text, &limits).unwrap();
            prop_assert_eq!(&lenient.value, &value, "{}", text);
        }
    }

    /// Every prefix of valid JSON (output cut off mid-stream) parses or fails cleanly, and a
    /// prefix read without a repair is one serde_json reads the same: whatever was closed or
    /// mended is recorded.
    #[test]
    fn truncated_json_never_panics(value in json_value(), cut in any::<prop::sample::Index>()) {
        let text = value.to_string();
        let mut end = cut.index(text.len() + 1);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let prefix = &text[..end];
        let strict = serde_json::from_str::<Value>(prefix).ok();
        match parse_json(prefix, &JsonLimits::default()) {
            Ok(read) if read.repairs.is_empty() => {
                prop_assert_eq!(Some(&read.value), strict.as_ref(), "{}", prefix);
            }
            Ok(_) => prop_assert!(strict.is_none(), "repairs of valid JSON: {}", prefix),
            Err(error) => {
                prop_assert!(strict.is_none(), "refused valid JSON: {}", prefix);
                prop_assert!(!error.to_string().is_empty());
            }
        }
        if end == text.len() {
            prop_assert_eq!(strict, Some(value));
        }
    }
}

/// Schema-shaped JSON: objects built from schema keywords (and some noise), nested through the
/// keywords that hold subschemas, with `$ref`s to definitions that may or may not exist.
fn schema_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!({})),
        Just(json!(true)),
        Just(json!(false)),
        prop::sample::select(vec![
            "string", "integer", "number", "boolean", "null", "object", "array", "nope"
        ])
        .prop_map(|t| json!({ "type": t })),
        Just(json!({"type": ["integer", "null"], "exclusiveMinimum": 9_007_199_254_740_993_i64})),
        Just(json!({"type": "number", "exclusiveMaximum": -1e300, "multipleOf": 0.1})),
        Just(json!({"enum": [1, "a", null, [1], {"x": 1}]})),
        Just(json!({"const": null})),
        Just(json!({"format": "uint32", "minimum": 0})),
        Just(json!({"$ref": "#/$defs/A"})),
        Just(json!({"$ref": "#/$defs/Missing", "description": "x"})),
        Just(json!({"$ref": "#"})),
        Just(json!({"type": 5, "required": "x", "properties": []})),
        json_value(),
    ];
    leaf.prop_recursive(4, 48, 4, |inner| {
        let keyword = prop::sample::select(vec![
            "properties",
            "items",
            "prefixItems",
            "anyOf",
            "oneOf",
            "allOf",
            "not",
            "additionalProperties",
            "patternProperties",
            "$defs",
            "if",
            "then",
            "description",
        ]);
        (keyword, prop::collection::vec(inner, 1..4)).prop_map(|(keyword, subs)| {
            let named = |subs: Vec<Value>| {
                Value::Object(
                    subs.into_iter()
                        .enumerate()
                        .map(|(i, s)| (["A", "b", "my key", "~/"][i % 4].to_owned(), s))
                        .collect(),
                )
            };
            let value = match keyword {
                "properties" | "patternProperties" | "$defs" => named(subs),
                "anyOf" | "oneOf" | "allOf" | "prefixItems" => Value::Array(subs),
                "description" => json!("some words (in brackets)"),
                _ => subs.into_iter().next().unwrap_or(json!({})),
            };
            let mut schema = json!({"type": "object", "required": ["A", "zz"]});
            schema[keyword] = value;
            schema
        })
    })
}

proptest! {
    #![proptest_config(config(256))]

    /// Every provider form of any schema is built, and linted, without a panic; building twice
    /// gives the same form.
    #[test]
    fn provider_forms_never_panic(properties in schema_value(), defs in schema_value()) {
        let schema = json!({"type": "object", "properties": {"p": properties}, "$defs": {"A": defs}});
        let Ok(def) = toolwright::ToolDefinition::new("t", "A tool.", schema) else {
            return Ok(());
        };
        let forms = Provider::ALL
            .into_iter()
            .flat_map(|provider| [Form::new(provider), Form::strict(provider)])
            .chain([Form::gemini_json_schema()]);
        for form in forms {
            let entry = def.provider_entry(form).clone();
            let fresh = def.clone().with_tags(["again"]);
            prop_assert_eq!(&entry, fresh.provider_entry(form));
        }
        for form in Form::ALL {
            let report = def.lint(form);
            // One line per lint: every lint with `{:#}`; by default errors and warnings, and
            // one line counting the notes.
            prop_assert_eq!(format!("{report:#}").lines().count().max(1), report.lints().len().max(1));
            let notes = report.of(toolwright::schema::Severity::Note).count();
            prop_assert_eq!(
                report.to_string().lines().count().max(1),
                (report.lints().len() - notes + usize::from(notes > 0)).max(1)
            );
        }
    }
}

/// A value in the shape of a string field, or anything.
fn text_or_any() -> impl Strategy<Value = Value> {
    prop_oneof![3 => ".{0,8}".prop_map(Value::from), 1 => json_value()]
}

/// A block or call index, or anything.
fn index_or_any() -> impl Strategy<Value = Value> {
    prop_oneof![4 => (0u64..3).prop_map(Value::from), 1 => json_value()]
}

/// Chunks in roughly one of the four providers' shapes, their fields scrambled, so that every
/// path of every assembler is reached with things wrong in every place.
fn stream_chunk() -> impl Strategy<Value = Value> {
    let openai = (
        index_or_any(),
        prop_oneof![
            Just(json!("call_1")),
            Just(json!("call_2")),
            Just(json!("")),
            json_value()
        ],
        text_or_any(),
        text_or_any(),
        prop_oneof![Just(Value::Null), Just(json!("tool_calls")), json_value()],
    )
        .prop_map(|(index, id, name, arguments, finish)| {
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": index, "id": id, "function": {"name": name, "arguments": arguments}},
            ]}, "finish_reason": finish}]})
        });
    let responses = (
        prop::sample::select(vec![
            "response.created",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
            "error",
        ]),
        index_or_any(),
        prop_oneof![Just(json!("fc_1")), Just(json!("fc_2")), json_value()],
        text_or_any(),
        prop_oneof![
            Just(json!("function_call")),
            Just(json!("message")),
            json_value()
        ],
    )
        .prop_map(|(kind, index, item_id, text, item_type)| {
            json!({"type": kind, "output_index": index, "item_id": item_id, "delta": text,
                "arguments": text, "item": {"type": item_type, "id": item_id, "call_id": "c",
                "name": "f", "arguments": text, "status": "completed"}})
        });
    let anthropic = (
        prop::sample::select(vec![
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]),
        index_or_any(),
        prop_oneof![
            Just(json!("tool_use")),
            Just(json!("text")),
            Just(json!("server_tool_use")),
            json_value()
        ],
        prop_oneof![
            Just(json!("input_json_delta")),
            Just(json!("text_delta")),
            json_value()
        ],
        text_or_any(),
    )
        .prop_map(|(kind, index, block_type, delta_type, text)| {
            json!({"type": kind, "index": index,
                "content_block": {"type": block_type, "id": "t", "name": "f", "input": {}},
                "delta": {"type": delta_type, "partial_json": text, "text": text}})
        });
    let gemini = (
        prop::option::of(text_or_any()),
        any::<bool>(),
        prop::sample::select(vec![
            "$.a", "$.a[0]", "$.a[1].b", "$", "$[x", "$.a[9]", "a", "$['q",
        ]),
        prop_oneof![
            text_or_any().prop_map(|v| json!({"stringValue": v})),
            json_value().prop_map(|v| json!({"numberValue": v})),
            Just(json!({"nullValue": null})),
            Just(json!({})),
        ],
        any::<bool>(),
    )
        .prop_map(|(name, continues, path, value, fragment_continues)| {
            let mut fragment = value;
            fragment["jsonPath"] = json!(path);
            fragment["willContinue"] = json!(fragment_continues);
            let mut call = json!({"willContinue": continues, "partialArgs": [fragment]});
            if let Some(name) = name {
                call["name"] = name;
            }
            json!({"candidates": [{"content": {"parts": [{"functionCall": call}]}}]})
        });
    let cohere = (
        prop::sample::select(vec![
            "message-start",
            "tool-plan-delta",
            "content-start",
            "content-delta",
            "tool-call-start",
            "tool-call-delta",
            "tool-call-end",
            "citation-start",
            "message-end",
        ]),
        index_or_any(),
        text_or_any(),
        prop_oneof![Just(json!("text")), Just(json!("thinking")), json_value()],
    )
        .prop_map(|(kind, index, text, content_type)| {
            json!({"type": kind, "index": index, "delta": {"message": {
                "tool_plan": text,
                "content": {"type": content_type, "text": text, "thinking": text},
                "tool_calls": {"id": "c", "type": "function", "function": {"name": "f", "arguments": text}},
                "citations": {"start": 0, "end": 1, "text": text},
            }, "finish_reason": "TOOL_CALL"}})
        });
    let bedrock = (
        prop::sample::select(vec![
            "messageStart",
            "contentBlockStart",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata",
            "throttlingException",
        ]),
        index_or_any(),
        text_or_any(),
        prop_oneof![
            Just(json!("toolUse")),
            Just(json!("text")),
            Just(json!("reasoningContent")),
            json_value().prop_map(|v| json!(v.to_string())),
        ],
    )
        .prop_map(|(kind, index, text, delta_kind)| {
            let delta = match delta_kind.as_str().unwrap_or_default() {
                "toolUse" => json!({"toolUse": {"input": text}}),
                "reasoningContent" => {
                    json!({"reasoningContent": {"text": text, "signature": text}})
                }
                "text" => json!({"text": text}),
                other => json!({ other: text }),
            };
            json!({ kind: {"contentBlockIndex": index, "delta": delta,
                "start": {"toolUse": {"toolUseId": "t", "name": "f"}},
                "stopReason": "tool_use", "message": text}})
        });
    prop_oneof![
        openai,
        responses,
        anthropic,
        gemini,
        cohere,
        bedrock,
        json_value()
    ]
}

proptest! {
    #![proptest_config(config(512))]

    /// Any sequence of chunks, in any provider's assembler: no panic, every call started comes
    /// out of `finish`, each with an id, and refused chunks are errors naming their chunk.
    #[test]
    fn assemblers_never_panic_and_drop_no_call(chunks in prop::collection::vec(stream_chunk(), 0..24)) {
        use toolwright::provider::{Assembler, Provider};
        for provider in Provider::ALL {
            let mut stream = Assembler::new(provider);
            for (at, chunk) in chunks.iter().enumerate() {
                if let Err(error) = stream.push(chunk) {
                    prop_assert_eq!(error.chunk(), Some(at + 1));
                }
            }
            let started = stream.calls().count();
            let calls = stream.finish();
            prop_assert_eq!(calls.len(), started);
            prop_assert!(calls.iter().all(|call| !call.call_id.is_empty()));
        }
    }

    /// Any line of text is taken or refused with a reason, never a panic, and no call begun
    /// is dropped.
    #[test]
    fn stream_lines_never_panic(lines in prop::collection::vec(prop_oneof![".{0,40}", "data: .{0,40}", json_value().prop_map(|v| format!("data: {v}"))], 0..12)) {
        use toolwright::provider::{Assembler, Provider};
        for provider in Provider::ALL {
            let mut stream = Assembler::new(provider);
            for line in &lines {
                if let Err(error) = stream.push_line(line) {
                    prop_assert!(!error.to_string().is_empty());
                }
            }
            let started = stream.calls().count();
            let calls = stream.finish();
            prop_assert_eq!(calls.len(), started);
            prop_assert!(calls.iter().all(|call| !call.call_id.is_empty()));
        }
    }

    /// However a call's arguments are cut into deltas, they are assembled to exactly the text
    /// sent (for Gemini, the string value sent piece by piece at one path).
    #[test]
    fn arguments_survive_any_cutting_into_deltas(text in ".{0,120}", cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12)) {
        use toolwright::provider::{Assembler, Provider};
        use toolwright::CallStatus;
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut points: Vec<usize> = cuts.iter().filter(|_| !chars.is_empty()).map(|i| chars[i.index(chars.len())].0).collect();
        points.extend([0, text.len()]);
        points.sort_unstable();
        points.dedup();
        let pieces: Vec<&str> = points.windows(2).map(|w| &text[w[0]..w[1]]).collect();
        for provider in [Provider::OpenAiChat, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini] {
            let mut chunks = Vec::new();
            match provider {
                Provider::OpenAiChat => {
                    chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": ""}}]}}]}));
                    chunks.extend(pieces.iter().map(|p| json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": p}}]}}]})));
                    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
                }
                Provider::OpenAiResponses => {
                    chunks.push(json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": ""}}));
                    chunks.extend(pieces.iter().map(|p| json!({"type": "response.function_call_arguments.delta", "item_id": "fc", "delta": p})));
                    chunks.push(json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": "f", "arguments": text}}));
                }
                Provider::Anthropic => {
                    chunks.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "c", "name": "f", "input": {}}}));
                    chunks.extend(pieces.iter().map(|p| json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}})));
                    chunks.push(json!({"type": "content_block_stop", "index": 0}));
                }
                _ => {
                    let part = |call: Value| json!({"candidates": [{"content": {"parts": [{"functionCall": call}]}}]});
                    chunks.push(part(json!({"name": "f", "willContinue": true})));
                    chunks.extend(pieces.iter().map(|p| part(json!({"partialArgs": [{"jsonPath": "$.s", "stringValue": p, "willContinue": true}], "willContinue": true}))));
                    chunks.push(part(json!({})));
                }
            }
            let mut stream = Assembler::new(provider);
            for chunk in &chunks {
                prop_assert!(stream.push(chunk).is_ok());
            }
            let calls = stream.finish();
            prop_assert_eq!(calls.len(), 1);
            prop_assert_eq!(calls[0].status, CallStatus::Complete);
            let expected = match provider {
                Provider::Gemini if pieces.is_empty() => Arguments::Json(json!({})),
                Provider::Gemini => Arguments::Json(json!({"s": text})),
                Provider::Anthropic if text.is_empty() => Arguments::Json(json!({})),
                _ => Arguments::Text(text.clone()),
            };
            prop_assert_eq!(&calls[0].arguments, &expected);
        }
    }
}
