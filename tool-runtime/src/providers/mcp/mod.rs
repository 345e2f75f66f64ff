//! MCP: the `tools/list` result, a `tools/call` request, answered with a `CallToolResult`.

mod read;
mod schema;

use serde_json::{Map, Value};

use crate::forms::keywords::Keywords;
use crate::forms::lean;
use crate::forms::lint::{Lint, LintReport, Rule, Severity};
use crate::forms::walk::Pass;
use crate::forms::{Form, Provider};
use crate::wire::spec::{Entry, ListShape, NameRule, Spec, name_of};
use crate::wire::turn::not_an_answer;

pub use self::read::{schema_type, structured_content};

/// MCP.
pub(crate) static SPEC: Spec = Spec {
    names: NameRule {
        max: 128,
        extra: "_.-",
        letter_first: false,
        pattern: "[A-Za-z0-9_.-]{1,128}",
    },
    schema: form,
    keywords: |_| &Keywords::ALL,
    takes_written: true,
    entry,
    list: ListShape::Keyed("tools"),
    max_tools: None,
    defer: None,
    entry_fields: |entry| (name_of(entry), entry.get("inputSchema")),
    choice: Err("a tool choice: MCP clients call the listed tools as they like"),
    cannot_say: |_| None,
    parallel_switch: false,
    allowed_subset: false,
    names_a_tool: true,
    choices: false,
    read: |request, _| read::read_request(request),
    push: read::push,
    content: |_| Vec::new(),
    pair: |_, _| {},
    replay: |_| Err(not_an_answer()),
    builtins: false,
    pairs_by_id: |_| false,
    encode: |r| Ok(read::encode(r.result, r.output_schema)),
    results: Value::Array,
};

/// The form of a schema: JSON Schema as it is, small enums inlined and definitions hoisted,
/// in fewer tokens.
fn form(pass: &mut Pass<'_>, schema: &mut Value) {
    schema::input(pass, schema);
    lean::lean(schema);
}

fn entry(entry: Entry<'_>, report: &mut LintReport) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), Value::from(entry.name));
    if let Some(title) = entry.title {
        tool.insert("title".into(), Value::from(title));
    }
    tool.insert("description".into(), Value::from(entry.description));
    tool.insert("inputSchema".into(), entry.parameters);
    // Any schema since protocol revision 2026-07-28 (SEP-2106); before it, an object only. A
    // string output is sent as text alone: its text is the value.
    if let Some(output) = entry
        .output_schema
        .filter(|output| output.get("type") != Some(&Value::from("string")))
    {
        if output.get("type") != Some(&Value::from("object")) {
            report.push(Lint {
                tool: entry.tool.to_owned(),
                form: Form::new(Provider::Mcp),
                path: String::new(),
                rule: Rule::OutputSchema,
                severity: Severity::Note,
                message: "MCP clients on protocol revisions before 2026-07-28 take only object \
                          output schemas; rmcp drops this one for them, and they get the result \
                          as text only"
                    .to_owned(),
                fix: "return a struct to give every MCP client structured output".to_owned(),
            });
        }
        let defs = Map::new();
        let mut pass = Pass::new(Form::new(Provider::Mcp), &defs);
        let mut output = output.clone();
        schema::input(&mut pass, &mut output);
        tool.insert("outputSchema".into(), output);
    }
    if let Some(annotations) = entry.annotations {
        tool.insert("annotations".into(), annotations);
    }
    // MCP's fields a definition carries as options of the same names: icons and `_meta`.
    for key in ["icons", "_meta"] {
        if let Some(value) = entry.options.get(key) {
            tool.insert(key.into(), value.clone());
        }
    }
    Value::Object(tool)
}
