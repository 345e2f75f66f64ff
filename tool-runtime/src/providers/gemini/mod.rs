//! Gemini: `functionDeclarations` (`parameters` in the OpenAPI subset, or
//! `parametersJsonSchema`), `functionCall` parts, results as `functionResponse` parts.

mod path;
mod read;
mod schema;

use serde_json::{Map, Value, json};

use crate::forms::keywords::Keywords;
use crate::forms::lint::LintReport;
use crate::forms::plain;
use crate::forms::walk::Pass;
use crate::wire::request::{AllowedMode, Resolved};
use crate::wire::spec::{Choice, Entry, ListShape, NameRule, Spec, name_of};
use crate::wire::values;

/// Gemini.
pub(crate) static SPEC: Spec = Spec {
    names: NameRule {
        max: 128,
        extra: "_.:-",
        letter_first: true,
        pattern: "[A-Za-z_][A-Za-z0-9_.:-]{0,127}",
    },
    schema: form,
    keywords: |form| {
        if form.is_gemini_json_schema() {
            &Keywords::ALL
        } else {
            &schema::PARAMETERS
        }
    },
    takes_written: false,
    entry,
    list: ListShape::Grouped("functionDeclarations"),
    max_tools: None,
    defer: None,
    entry_fields: |entry| {
        let parameters = entry.get("parameters");
        (
            name_of(entry),
            parameters.or_else(|| entry.get("parametersJsonSchema")),
        )
    },
    choice: Ok(choice),
    cannot_say: |_| None,
    // No switch for parallel calls: a request that asks for one at a time is refused.
    parallel_switch: false,
    allowed_subset: true,
    names_a_tool: true,
    choices: true,
    read: read::read_response,
    push: read::push,
    content: read::content,
    pair: read::pair_results,
    // The parts as sent.
    replay: |turn| Ok(json!({"role": "model", "parts": values(&turn.content)})),
    builtins: false,
    pairs_by_id: |_| false,
    encode: |r| Ok(read::encode(r.call, r.wire_name, r.result)),
    results: |parts| json!({"role": "user", "parts": parts}),
};

/// The form of a schema: the OpenAPI subset of `parameters`, or JSON Schema as it is for
/// `parametersJsonSchema` (`oneOf` as `anyOf`).
fn form(pass: &mut Pass<'_>, schema: &mut Value) {
    if pass.form.is_gemini_json_schema() {
        plain(pass, schema, |_, _| {});
    } else {
        schema::parameters(pass, schema);
    }
}

fn entry(entry: Entry<'_>, _: &mut LintReport) -> Value {
    let field = if entry.form.is_gemini_json_schema() {
        "parametersJsonSchema"
    } else {
        "parameters"
    };
    json!({
        "name": entry.name,
        "description": entry.description,
        field: entry.parameters,
    })
}

fn choice(choice: &Choice<'_>, fields: &mut Map<String, Value>) {
    let config = match choice.resolved {
        Resolved::Auto => json!({"mode": "AUTO"}),
        Resolved::None => json!({"mode": "NONE"}),
        Resolved::Required => json!({"mode": "ANY"}),
        Resolved::Tool(at) => json!({"mode": "ANY", "allowedFunctionNames": [choice.wire[*at]]}),
        Resolved::Allowed(indexes, mode) => json!({
            "mode": match mode {
                AllowedMode::Auto => "VALIDATED",
                AllowedMode::Required => "ANY",
            },
            "allowedFunctionNames": choice.names(indexes),
        }),
    };
    fields.insert(
        "toolConfig".into(),
        json!({"functionCallingConfig": config}),
    );
}
