//! Cohere's v2 chat: tools as `{"type": "function", "function": {..}}`, `message.tool_calls[]`
//! with the model's `tool_plan` (the turn's text), `tool-call-start`/`-delta`/`-end` stream
//! events, results as `tool` messages of text and document blocks.
//!
//! The tool choice is `REQUIRED` or `NONE` (unset: the model decides); it cannot name a tool or
//! a subset, so those send only the tools chosen, with a call required. There is no switch for
//! parallel calls. `strict_tools` is a request field of the application's: toolwright's schema
//! form is JSON Schema as written (Cohere documents limits only for `strict_tools`: at most 200
//! fields across the tools of a request).

mod read;
mod stream;

use serde_json::{Map, Value, json};

use crate::forms::keywords::Keywords;
use crate::forms::lint::LintReport;
use crate::forms::walk::Pass;
use crate::forms::{lean, plain};
use crate::wire::request::Resolved;
use crate::wire::spec::{Choice, Entry, ListShape, NameRule, Spec, name_of};
use crate::wire::{WireError, values};

/// Cohere's v2 chat.
pub(crate) static SPEC: Spec = Spec {
    // Letters, digits and `_`, not starting with a digit (Cohere's tool definitions, as Oracle's
    // Generative AI service documents them); no length limit is documented, 64 is what the
    // OpenAI-compatible APIs share.
    names: NameRule {
        max: 64,
        extra: "_",
        letter_first: true,
        pattern: "[A-Za-z_][A-Za-z0-9_]{0,63}",
    },
    schema: form,
    keywords: |_| &Keywords::ALL,
    takes_written: false,
    entry,
    list: ListShape::Array,
    max_tools: None,
    defer: None,
    entry_fields: |entry| {
        let function = entry.get("function").unwrap_or(entry);
        (name_of(function), function.get("parameters"))
    },
    choice: Ok(choice),
    cannot_say: |_| None,
    parallel_switch: false,
    allowed_subset: false,
    names_a_tool: false,
    choices: false,
    read: |response, _| read::read_response(response),
    push: stream::push,
    content: stream::content,
    pair: |_, _| {},
    replay: |turn| {
        values(&turn.content)
            .into_iter()
            .next()
            .ok_or_else(|| WireError::new("", "the response held no message"))
    },
    builtins: false,
    pairs_by_id: |_| true,
    encode: |r| Ok(read::encode(r.call, r.result)),
    results: Value::Array,
};

/// The form of a schema: JSON Schema as it is, `oneOf` as `anyOf`, in fewer tokens.
fn form(pass: &mut Pass<'_>, schema: &mut Value) {
    plain(pass, schema, |_, _| {});
    lean::lean(schema);
}

fn entry(entry: Entry<'_>, _: &mut LintReport) -> Value {
    json!({"type": "function", "function": {
        "name": entry.name,
        "description": entry.description,
        "parameters": entry.parameters,
    }})
}

/// `tool_choice`: `REQUIRED` or `NONE`; the model's own choice is the field left out. A named
/// tool or a subset does not get here as such: the list was narrowed to it.
fn choice(choice: &Choice<'_>, fields: &mut Map<String, Value>) {
    let word = match choice.resolved {
        Resolved::Auto | Resolved::Allowed(_, crate::wire::request::AllowedMode::Auto) => return,
        Resolved::None => "NONE",
        Resolved::Required | Resolved::Tool(_) | Resolved::Allowed(..) => "REQUIRED",
    };
    fields.insert("tool_choice".into(), Value::from(word));
}
