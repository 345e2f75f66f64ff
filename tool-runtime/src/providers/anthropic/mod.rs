//! Anthropic Messages: tools with `input_schema`, `tool_use` content blocks, results as one
//! `user` message of `tool_result` blocks.

mod read;
mod schema;

use serde_json::{Map, Value, json};

use crate::forms::keywords::Keywords;
use crate::forms::lint::LintReport;
use crate::forms::walk::Pass;
use crate::forms::{lean, plain};
use crate::wire::request::{AllowedMode, Resolved};
use crate::wire::spec::{Choice, Entry, ListShape, NameRule, Spec, name_of};
use crate::wire::values;

/// Anthropic Messages.
pub(crate) static SPEC: Spec = Spec {
    names: NameRule {
        max: 128,
        extra: "_-",
        letter_first: false,
        pattern: "[A-Za-z0-9_-]{1,128}",
    },
    schema: form,
    keywords: |form| {
        if form.is_strict() {
            &schema::STRICT
        } else {
            &Keywords::ALL
        }
    },
    takes_written: false,
    entry,
    list: ListShape::Array,
    max_tools: None,
    defer: Some(read::DEFER),
    entry_fields: |entry| (name_of(entry), entry.get("input_schema")),
    choice: Ok(choice),
    cannot_say: |_| None,
    parallel_switch: true,
    // It has no form for a subset: the list is narrowed to it.
    allowed_subset: false,
    names_a_tool: true,
    choices: false,
    read: |response, _| read::read_response(response),
    push: read::push,
    content: read::content,
    pair: read::pair_results,
    // The blocks as sent.
    replay: |turn| Ok(json!({"role": "assistant", "content": values(&turn.content)})),
    builtins: false,
    pairs_by_id: |_| true,
    encode: |r| {
        Ok(match r.found {
            Some(found) => read::references(r.call, found),
            None => read::encode(r.call, r.result),
        })
    },
    results: |blocks| json!({"role": "user", "content": blocks}),
};

/// The form of a schema: strict tool use, or JSON Schema as it is with the property keys it
/// refuses reported, in fewer tokens.
fn form(pass: &mut Pass<'_>, schema: &mut Value) {
    if pass.form.is_strict() {
        schema::strict(pass, schema);
    } else {
        plain(pass, schema, |pass, map| schema::property_names(pass, map));
        lean::lean(schema);
    }
}

fn entry(entry: Entry<'_>, _: &mut LintReport) -> Value {
    let mut tool = json!({
        "name": entry.name,
        "description": entry.description,
        "input_schema": entry.parameters,
    });
    if entry.form.is_strict() {
        tool["strict"] = Value::Bool(true);
    }
    tool
}

fn choice(choice: &Choice<'_>, fields: &mut Map<String, Value>) {
    // An allowed subset does not get here as such: the list was narrowed to it.
    let mut tool = match choice.resolved {
        Resolved::Auto | Resolved::Allowed(_, AllowedMode::Auto) => json!({"type": "auto"}),
        Resolved::None => json!({"type": "none"}),
        Resolved::Required | Resolved::Allowed(_, AllowedMode::Required) => {
            json!({"type": "any"})
        }
        Resolved::Tool(at) => json!({"type": "tool", "name": choice.wire[*at]}),
    };
    if let Some(on) = choice.parallel {
        tool["disable_parallel_tool_use"] = Value::Bool(!on);
    }
    fields.insert("tool_choice".into(), tool);
}
