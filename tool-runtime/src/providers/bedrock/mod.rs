//! AWS Bedrock's Converse API: tools as `toolConfig.tools[].toolSpec` with the schema under
//! `inputSchema.json`, `toolUse` content blocks, results as one `user` message of `toolResult`
//! blocks, `ConverseStream` events (and their binary `application/vnd.amazon.eventstream`
//! framing, `eventstream`), reasoning blocks carried to the next turn.
//!
//! What the service model (botocore's `bedrock-runtime`) documents, and the form keeps: a tool
//! name is `[a-zA-Z0-9_-]{1,64}`; the schema's top level is an object; the tool choice is
//! `auto` (the default), `any`, or `tool` (this one "only supported by Anthropic Claude 3 and
//! Amazon Nova models"); there is no `none`; a `toolResult`'s `status` and its images are
//! "only supported by Amazon Nova and Anthropic Claude 3 and 4 models" (toolwright sends
//! `status` only for an error). The schema itself goes to the model family behind the model
//! id: Anthropic's take what the `anthropic` form takes, and the other families document no
//! keyword limits, so the form is JSON Schema as written.

mod eventstream;
mod read;
mod stream;

use serde_json::{Map, Value, json};

pub use self::eventstream::{EventStreamDecoder, EventStreamError};
use crate::forms::keywords::Keywords;
use crate::forms::lint::{Lint, LintReport, Rule, Severity};
use crate::forms::walk::Pass;
use crate::forms::{lean, plain};
use crate::wire::request::{AllowedMode, Resolved};
use crate::wire::spec::{Choice, Entry, ListShape, NameRule, Spec, name_of};
use crate::wire::values;

/// Bedrock's Converse API.
pub(crate) static SPEC: Spec = Spec {
    names: NameRule {
        max: 64,
        extra: "_-",
        letter_first: false,
        pattern: "[a-zA-Z0-9_-]{1,64}",
    },
    schema: form,
    keywords: |_| &Keywords::ALL,
    takes_written: false,
    entry,
    list: ListShape::Array,
    max_tools: None,
    defer: None,
    entry_fields: |entry| {
        let spec = entry.get("toolSpec").unwrap_or(entry);
        let schema = spec
            .get("inputSchema")
            .and_then(|schema| schema.get("json"));
        (name_of(spec), schema)
    },
    choice: Ok(choice),
    cannot_say: |choice| {
        matches!(choice, Resolved::None).then_some(
            "a tool choice of none (Converse has `auto`, `any` and `tool` only); send the \
             request without the tools, or with `auto` and say so in the prompt",
        )
    },
    parallel_switch: false,
    allowed_subset: false,
    names_a_tool: true,
    choices: false,
    read: |response, _| read::read_response(response),
    push: stream::push,
    content: stream::content,
    pair: read::pair_results,
    replay: |turn| {
        let content: Vec<Value> = values(&turn.content)
            .into_iter()
            .map(request_block)
            .collect();
        Ok(json!({"role": "assistant", "content": content}))
    },
    builtins: false,
    pairs_by_id: |_| true,
    encode: |r| Ok(read::encode(r.call, r.result)),
    results: |blocks| json!({"role": "user", "content": blocks}),
};

/// The members of a request's content block (a union: one is set), as the service model has them.
const BLOCKS: &[&str] = &[
    "text",
    "image",
    "document",
    "video",
    "audio",
    "toolUse",
    "toolResult",
    "guardContent",
    "cachePoint",
    "reasoningContent",
    "citationsContent",
    "searchResult",
    "toolAddition",
    "toolRemoval",
];

/// A response's content block as a request takes it back: its one member, and a `toolUse`'s
/// `type` only where it is the one a request knows (`server_tool_use`; the service also sends
/// `tool_use`, which its model's enum lacks). What is left out stays in the turn's content.
fn request_block(block: Value) -> Value {
    let Value::Object(mut block) = block else {
        return block;
    };
    if block.len() > 1 && block.keys().any(|key| BLOCKS.contains(&key.as_str())) {
        block.retain(|key, _| BLOCKS.contains(&key.as_str()));
    }
    if let Some(Value::Object(tool_use)) = block.get_mut("toolUse")
        && tool_use.get("type").and_then(Value::as_str) != Some("server_tool_use")
    {
        tool_use.remove("type");
    }
    Value::Object(block)
}

/// The form of a schema: JSON Schema as it is, `oneOf` as `anyOf`, in fewer tokens.
fn form(pass: &mut Pass<'_>, schema: &mut Value) {
    plain(pass, schema, |_, _| {});
    lean::lean(schema);
}

fn entry(entry: Entry<'_>, report: &mut LintReport) -> Value {
    if entry.parameters.get("type") != Some(&Value::from("object")) {
        report.push(Lint {
            tool: entry.tool.to_owned(),
            form: entry.form,
            path: String::new(),
            rule: Rule::Keyword("type".into()),
            severity: Severity::Error,
            message: "Bedrock takes only a schema whose top level is an object".to_owned(),
            fix: "take the arguments as a struct (an object with named members)".to_owned(),
        });
    }
    let mut spec = Map::new();
    spec.insert("name".into(), Value::from(entry.name));
    // An empty description is refused (`NonEmptyString`): it is left out instead.
    if !entry.description.is_empty() {
        spec.insert("description".into(), Value::from(entry.description));
    }
    spec.insert("inputSchema".into(), json!({"json": entry.parameters}));
    json!({"toolSpec": spec})
}

/// `toolConfig`: the tools, and the choice (`auto` left unsaid: it is the default, and the
/// families without tool choice take a request that does not say one). A subset does not get
/// here as such: the list was narrowed to it.
fn choice(choice: &Choice<'_>, fields: &mut Map<String, Value>) {
    let tools = fields
        .remove("tools")
        .unwrap_or_else(|| Value::Array(Vec::new()));
    let mut config = Map::new();
    config.insert("tools".into(), tools);
    let said = match choice.resolved {
        Resolved::Auto | Resolved::None | Resolved::Allowed(_, AllowedMode::Auto) => None,
        Resolved::Required | Resolved::Allowed(_, AllowedMode::Required) => {
            Some(json!({"any": {}}))
        }
        Resolved::Tool(at) => Some(json!({"tool": {"name": choice.wire[*at]}})),
    };
    if let Some(said) = said {
        config.insert("toolChoice".into(), said);
    }
    fields.insert("toolConfig".into(), Value::Object(config));
}
