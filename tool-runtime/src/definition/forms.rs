//! Tool entries as each provider's request wants them, built once per tool and form.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Kept, ToolDefinition};
use crate::forms::lint::{Lint, LintReport, Rule, Severity};
use crate::forms::{Form, Provider, mcp, walk::Pass};

/// The cache slot of a form.
fn slot(form: Form) -> usize {
    let strict = usize::from(form.is_strict());
    match form.provider() {
        Provider::OpenAiChat => strict,
        Provider::OpenAiResponses => 2 + strict,
        Provider::Anthropic => 4 + strict,
        Provider::Gemini => 6 + usize::from(form.is_gemini_json_schema()),
        Provider::Mcp => 8,
    }
}

/// What to do when a tool is to be sent strict and its strict form is impossible (a map, say).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StrictFallback {
    /// Refuse: building the tool list fails with the lints (the default).
    #[default]
    Error,
    /// Send the tool without strict mode, and record why in [`ProviderTools::downgraded`] (and
    /// in a `tracing` warning).
    NonStrict,
}

/// A tool sent without strict mode because its strict form was impossible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downgrade {
    /// The tool.
    pub tool: String,
    /// Why: the strict form's errors.
    pub reasons: LintReport,
}

/// One tool's entry in one form, with what the form could not say.
#[derive(Debug, Clone)]
pub(crate) struct ProviderForm {
    pub(crate) entry: Value,
    pub(crate) report: LintReport,
}

/// A definition's provider forms, one slot per form, each built on first use.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct FormCache([Kept<ProviderForm>; 9]);

impl FormCache {
    pub(crate) fn get(&self, definition: &ToolDefinition, form: Form) -> &ProviderForm {
        self.0[slot(form)].get_or_init(|| build(definition, form))
    }
}

/// Builds one tool's entry in one form.
pub(crate) fn build(definition: &ToolDefinition, form: Form) -> ProviderForm {
    let (parameters, lints) = match &definition.written {
        // A schema the application wrote goes to MCP as written: `$schema`, `$defs` and all
        // (the token-saving rewrites are for the schemas toolwright derives).
        Some(written) if form.provider() == Provider::Mcp => ((**written).clone(), Vec::new()),
        _ => form.transform(definition.parameters(), definition.from_attribute),
    };
    let name = definition.name();
    let mut report: LintReport = lints
        .into_iter()
        .map(|lint| Lint {
            tool: name.to_owned(),
            ..lint
        })
        .collect();
    let provider = form.provider();
    let wire = provider.wire_name(name);
    if let Err(message) = provider.check_name(name) {
        // A stand-in name works (calls are mapped back on intake), but an empty name is a bug.
        let (severity, message) = if name.is_empty() {
            (Severity::Error, message)
        } else {
            (
                Severity::Note,
                format!("{message}: sent as `{wire}`, and calls to `{wire}` are mapped back"),
            )
        };
        report.push(Lint {
            tool: name.to_owned(),
            form,
            path: String::new(),
            rule: Rule::Name,
            severity,
            message,
            fix: if definition.from_attribute {
                "rename the tool (`#[tool(name = \"..\")]`) to send it under its own name"
            } else {
                "rename the tool (`ToolDefinition::with_name`) to send it under its own name"
            }
            .to_owned(),
        });
    }
    let name = &*wire;
    let description = model_description(definition);
    let description = description.as_ref();
    let strict = form.is_strict();
    let entry = match provider {
        Provider::OpenAiChat => {
            let mut function = json!({
                "name": name,
                "description": description,
                "parameters": parameters,
            });
            // Chat Completions reads a missing `strict` as false; the Responses API does not.
            if strict {
                function["strict"] = Value::Bool(true);
            }
            json!({"type": "function", "function": function})
        }
        Provider::OpenAiResponses => json!({
            "type": "function",
            "name": name,
            "description": description,
            "parameters": parameters,
            "strict": strict,
        }),
        Provider::Anthropic => {
            let mut entry = json!({
                "name": name,
                "description": description,
                "input_schema": parameters,
            });
            if strict {
                entry["strict"] = Value::Bool(true);
            }
            entry
        }
        Provider::Gemini if !form.is_gemini_json_schema() => json!({
            "name": name,
            "description": description,
            "parameters": parameters,
        }),
        Provider::Gemini => json!({
            "name": name,
            "description": description,
            "parametersJsonSchema": parameters,
        }),
        Provider::Mcp => mcp_entry(definition, name, parameters, &mut report),
    };
    for lint in report.lints() {
        if lint.severity > Severity::Note {
            tracing::warn!(tool = %name, %form, "{lint}");
        }
    }
    ProviderForm { entry, report }
}

/// The description a model is shown: a deprecated tool's starts by saying so, with its
/// `since` and `note` (no provider has a field for it: OpenAI, Anthropic, Gemini and MCP tool
/// entries carry a description only).
fn model_description(definition: &ToolDefinition) -> Cow<'_, str> {
    let description = definition.description();
    let Some(deprecation) = definition.deprecated() else {
        return Cow::Borrowed(description);
    };
    let mut words = String::from("Deprecated");
    if let Some(since) = &deprecation.since {
        words.push_str(" since ");
        words.push_str(since);
    }
    match deprecation
        .note
        .as_deref()
        .map(|note| note.trim().trim_end_matches('.'))
    {
        Some(note) if !note.is_empty() => {
            words.push_str(": ");
            words.push_str(note);
            words.push('.');
        }
        _ => words.push('.'),
    }
    if !description.is_empty() {
        words.push(' ');
        words.push_str(description);
    }
    Cow::Owned(words)
}

fn mcp_entry(
    definition: &ToolDefinition,
    name: &str,
    parameters: Value,
    report: &mut LintReport,
) -> Value {
    let mut entry = Map::new();
    entry.insert("name".into(), Value::from(name));
    if let Some(title) = definition.display_text() {
        entry.insert("title".into(), Value::from(title));
    }
    entry.insert(
        "description".into(),
        Value::from(model_description(definition).as_ref()),
    );
    entry.insert("inputSchema".into(), parameters);
    // Any schema since protocol revision 2026-07-28 (SEP-2106); before it, an object only. A
    // string output is sent as text alone: its text is the value.
    if let Some(output) = definition
        .output_schema()
        .filter(|output| output.get("type") != Some(&Value::from("string")))
    {
        if output.get("type") != Some(&Value::from("object")) {
            report.push(Lint {
                tool: definition.name().to_owned(),
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
        mcp::input(&mut pass, &mut output);
        entry.insert("outputSchema".into(), output);
    }
    if !definition.annotations().is_empty() {
        entry.insert(
            "annotations".into(),
            serde_json::to_value(definition.annotations()).unwrap_or(Value::Null),
        );
    }
    // MCP's fields a definition carries as options of the same names: icons and `_meta`.
    for key in ["icons", "_meta"] {
        if let Some(value) = definition.options().get(key) {
            entry.insert(key.into(), value.clone());
        }
    }
    Value::Object(entry)
}

/// A toolbox's tool list in one provider's format, from [`Toolbox::tools_for`]: serializes to
/// what goes in the request (`tools` for OpenAI, Anthropic and Gemini, the `tools/list` result
/// for MCP).
///
/// [`Toolbox::tools_for`]: crate::Toolbox::tools_for
#[derive(Debug, Clone)]
pub struct ProviderTools<'a> {
    pub(crate) provider: Provider,
    pub(crate) entries: Vec<&'a Value>,
    pub(crate) downgraded: Vec<Downgrade>,
    /// Each sent form's lints (warnings and notes only: a list with errors is not built).
    pub(crate) reports: Vec<&'a LintReport>,
}

impl<'a> ProviderTools<'a> {
    /// The provider.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// One entry per tool, in registration order (each cached in its tool's definition).
    pub fn entries(&self) -> &[&'a Value] {
        &self.entries
    }

    /// Tools sent without strict mode because their strict form was impossible (with
    /// [`StrictFallback::NonStrict`]).
    pub fn downgraded(&self) -> &[Downgrade] {
        &self.downgraded
    }

    /// Warnings and notes of the forms sent: what they say differently or leave out.
    pub fn lints(&self) -> impl Iterator<Item = &'a Lint> + '_ {
        self.reports.iter().flat_map(|report| report.lints())
    }

    /// The list cut down to the tools at `indexes` (positions in registration order), kept in
    /// registration order with their lints. (Downgrades name tools by their own names, which
    /// the entries do not hold; a cut list has none.)
    pub(crate) fn only(&self, indexes: &[usize]) -> ProviderTools<'a> {
        ProviderTools {
            provider: self.provider,
            entries: kept(&self.entries, indexes),
            downgraded: Vec::new(),
            // One report per entry: a list is built only when every form is clean.
            reports: kept(&self.reports, indexes),
        }
    }

    /// The list as one JSON value, as [`Serialize`] writes it.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for ProviderTools<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.provider {
            Provider::Gemini => {
                let mut declarations = serializer.serialize_seq(Some(1))?;
                serde::ser::SerializeSeq::serialize_element(
                    &mut declarations,
                    &GeminiTool(&self.entries),
                )?;
                serde::ser::SerializeSeq::end(declarations)
            }
            Provider::Mcp => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("tools", &self.entries)?;
                map.end()
            }
            _ => self.entries.serialize(serializer),
        }
    }
}

/// The items at `indexes`, in their order.
fn kept<'a, T: ?Sized>(items: &[&'a T], indexes: &[usize]) -> Vec<&'a T> {
    items
        .iter()
        .enumerate()
        .filter(|(at, _)| indexes.contains(at))
        .map(|(_, item)| *item)
        .collect()
}

struct GeminiTool<'a, 'b>(&'b [&'a Value]);

impl Serialize for GeminiTool<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("functionDeclarations", self.0)?;
        map.end()
    }
}
