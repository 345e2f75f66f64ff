//! OpenAI: Chat Completions (`chat`) and the Responses API (`responses/`), which share the
//! schema forms (`schema`) and the name rule.

mod chat;
mod responses;
mod schema;

use serde_json::{Map, Value, json};

use crate::forms::lint::LintReport;
use crate::forms::walk::Pass;
use crate::forms::{lean, plain};
use crate::wire::request::{Resolved, mode_word};
use crate::wire::spec::{Choice, Encode, Entry, ListShape, NameRule, Spec, name_of};
use crate::wire::turn::Turn;
use crate::wire::{WireError, values};

use self::chat::is_legacy;

/// Tool names: `[A-Za-z0-9_-]{1,64}`.
const NAMES: NameRule = NameRule {
    max: 64,
    extra: "_-",
    letter_first: false,
    pattern: "[A-Za-z0-9_-]{1,64}",
};

/// Chat Completions: tools as `{"type": "function", "function": {..}}`,
/// `choices[].message.tool_calls[]`, results as `tool` messages.
pub(crate) static CHAT: Spec = Spec {
    names: NAMES,
    schema: form,
    keywords: |form| {
        if form.is_strict() {
            &schema::STRICT
        } else {
            &schema::PLAIN
        }
    },
    takes_written: false,
    entry: chat_entry,
    list: ListShape::Array,
    // "A max of 128 functions are supported" (the `tools` parameter's reference).
    max_tools: Some(128),
    defer: None,
    entry_fields: |entry| {
        let function = entry.get("function").unwrap_or(entry);
        (name_of(function), function.get("parameters"))
    },
    choice: Ok(chat_choice),
    cannot_say: |_| None,
    parallel_switch: true,
    allowed_subset: true,
    names_a_tool: true,
    choices: true,
    read: chat::read_response,
    push: chat::push,
    content: chat::content,
    pair: |_, _| {},
    replay: chat_replay,
    builtins: false,
    // A legacy `function_call`'s result names the function, not an id.
    pairs_by_id: |call| !is_legacy(call),
    encode: |r| Ok(chat::encode(r.call, r.wire_name, r.result)),
    results: Value::Array,
};

/// The Responses API: tools as `{"type": "function", name, ..}`, `function_call` output items,
/// results as `function_call_output` items that reference the call's `call_id`.
pub(crate) static RESPONSES: Spec = Spec {
    names: NAMES,
    schema: form,
    keywords: |form| {
        if form.is_strict() {
            &schema::STRICT
        } else {
            &schema::PLAIN
        }
    },
    takes_written: false,
    entry: responses_entry,
    list: ListShape::Array,
    max_tools: None,
    defer: Some(responses::DEFER),
    entry_fields: |entry| (name_of(entry), entry.get("parameters")),
    choice: Ok(responses_choice),
    cannot_say: |_| None,
    parallel_switch: true,
    allowed_subset: true,
    names_a_tool: true,
    choices: false,
    read: |response, _| responses::read_response(response),
    push: responses::push,
    content: responses::content,
    pair: responses::pair_outputs,
    replay: |turn| Ok(Value::Array(values(&turn.content))),
    builtins: true,
    pairs_by_id: |_| true,
    encode: |r: &Encode<'_>| responses::encode(r.call, r.result, r.found),
    results: Value::Array,
};

/// The form of a schema: strict mode, or JSON Schema as it is without the formats OpenAI's
/// models do not know (Rust's `uint32`, `double`), in fewer tokens.
fn form(pass: &mut Pass<'_>, schema: &mut Value) {
    if pass.form.is_strict() {
        schema::strict(pass, schema);
    } else {
        plain(pass, schema, |pass, map| {
            crate::forms::rules::drop_format(pass, map);
        });
        lean::lean(schema);
    }
}

fn chat_entry(entry: Entry<'_>, _: &mut LintReport) -> Value {
    let mut function = json!({
        "name": entry.name,
        "description": entry.description,
        "parameters": entry.parameters,
    });
    // Chat Completions reads a missing `strict` as false; the Responses API does not.
    if entry.form.is_strict() {
        function["strict"] = Value::Bool(true);
    }
    json!({"type": "function", "function": function})
}

fn responses_entry(entry: Entry<'_>, _: &mut LintReport) -> Value {
    json!({
        "type": "function",
        "name": entry.name,
        "description": entry.description,
        "parameters": entry.parameters,
        "strict": entry.form.is_strict(),
    })
}

fn chat_choice(choice: &Choice<'_>, fields: &mut Map<String, Value>) {
    let tool = match choice.resolved {
        Resolved::Auto => json!("auto"),
        Resolved::None => json!("none"),
        Resolved::Required => json!("required"),
        Resolved::Tool(at) => json!({"type": "function", "function": {"name": choice.wire[*at]}}),
        Resolved::Allowed(indexes, mode) => json!({
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": mode_word(*mode),
                "tools": choice
                    .names(indexes)
                    .into_iter()
                    .map(|name| json!({"type": "function", "function": {"name": name}}))
                    .collect::<Vec<_>>(),
            },
        }),
    };
    fields.insert("tool_choice".into(), tool);
    if let Some(on) = choice.parallel {
        fields.insert("parallel_tool_calls".into(), Value::Bool(on));
    }
}

fn responses_choice(choice: &Choice<'_>, fields: &mut Map<String, Value>) {
    let tool = match choice.resolved {
        Resolved::Auto => json!("auto"),
        Resolved::None => json!("none"),
        Resolved::Required => json!("required"),
        Resolved::Tool(at) => json!({"type": "function", "name": choice.wire[*at]}),
        Resolved::Allowed(indexes, mode) => json!({
            "type": "allowed_tools",
            "mode": mode_word(*mode),
            "tools": choice
                .names(indexes)
                .into_iter()
                .map(|name| json!({"type": "function", "name": name}))
                .collect::<Vec<_>>(),
        }),
    };
    fields.insert("tool_choice".into(), tool);
    if let Some(on) = choice.parallel {
        fields.insert("parallel_tool_calls".into(), Value::Bool(on));
    }
}

/// The assistant message: `content`, `refusal`, `tool_calls`.
fn chat_replay(turn: &Turn) -> Result<Value, WireError> {
    turn.content
        .first()
        .map(toolwright_json::value::clone_value)
        .ok_or_else(|| WireError::new("", "the response held no message"))
}
