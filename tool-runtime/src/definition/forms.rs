//! Tool entries as each provider's request wants them, built once per tool and form.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::{Kept, ToolDefinition};
use crate::forms::lint::{Lint, LintReport, Rule, Severity};
use crate::forms::{Form, Provider};
use crate::providers::spec;
use crate::wire::spec::{Entry, ListShape};

/// How many forms a definition caches: two per provider (strict or not; Gemini's two fields).
const SLOTS: usize = 2 * Provider::ALL.len();

/// The cache slot of a form.
fn slot(form: Form) -> usize {
    let option = form.is_strict() || form.is_gemini_json_schema();
    2 * form.provider() as usize + usize::from(option)
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
pub(crate) struct FormCache([Kept<ProviderForm>; SLOTS]);

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
        Some(written) if spec(form.provider()).takes_written => ((**written).clone(), Vec::new()),
        _ => {
            let spec = spec(form.provider());
            form.transform(
                definition.parameters(),
                definition.from_attribute,
                spec.schema,
                (spec.keywords)(form),
            )
        }
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
    let description = model_description(definition);
    let annotations = definition.annotations();
    let entry = (spec(provider).entry)(
        Entry {
            form,
            tool: definition.name(),
            name: &wire,
            description: &description,
            parameters,
            title: definition.display_text(),
            output_schema: definition.output_schema(),
            annotations: (!annotations.is_empty())
                .then(|| serde_json::to_value(annotations).unwrap_or(Value::Null)),
            options: definition.options(),
        },
        &mut report,
    );
    for lint in report.lints() {
        if lint.severity > Severity::Note {
            tracing::warn!(tool = %wire, %form, "{lint}");
        }
    }
    ProviderForm { entry, report }
}

/// The description a model is shown: a deprecated tool's starts by saying so, with its
/// `since` and `note` (no provider has a field for it: OpenAI, Anthropic, Gemini, Cohere,
/// Bedrock and MCP tool entries carry a description only).
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

    /// A list of these entries, for tool search's lists.
    pub(crate) fn of(provider: Provider, entries: Vec<&'a Value>) -> ProviderTools<'a> {
        ProviderTools {
            provider,
            entries,
            downgraded: Vec::new(),
            reports: Vec::new(),
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
        match spec(self.provider).list {
            ListShape::Array => self.entries.serialize(serializer),
            ListShape::Keyed(key) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(key, &self.entries)?;
                map.end()
            }
            ListShape::Grouped(key) => {
                let mut groups = serializer.serialize_seq(Some(1))?;
                serde::ser::SerializeSeq::serialize_element(
                    &mut groups,
                    &Group(key, &self.entries),
                )?;
                serde::ser::SerializeSeq::end(groups)
            }
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

/// One object holding the entries under a key (Gemini's `{"functionDeclarations": [..]}`).
struct Group<'a, 'b>(&'static str, &'b [&'a Value]);

impl Serialize for Group<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.0, self.1)?;
        map.end()
    }
}
