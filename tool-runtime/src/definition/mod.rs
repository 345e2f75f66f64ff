//! What a model and an application are told about a tool.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

mod forms;
mod policy;
mod records;
mod search;

pub use self::forms::{Downgrade, ProviderTools, StrictFallback};
pub(crate) use self::forms::{FormCache, ProviderForm};
pub use self::records::{Deprecation, ToolAnnotations, UnknownArgs};
pub use self::search::Namespace;
use crate::call::ToolName;
use crate::forms::{Form, LintReport, ParamTable, SchemaError, canonical_parameters};
use crate::policy::CutOff;
use toolwright_schema::CompiledSchema;

/// A tool as a model and an application see it: name, description, schemas and metadata.
///
/// Built once per tool; the parameters schema is canonical JSON Schema draft 2020-12 whose root is
/// always an object with `properties` and `required`.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent settings of a tool, each a yes or no"
)]
pub struct ToolDefinition {
    name: ToolName,
    description: String,
    parameters: Value,
    output_schema: Option<Value>,
    display_text: Option<String>,
    tags: Vec<String>,
    scopes: Vec<String>,
    deprecated: Option<Deprecation>,
    annotations: ToolAnnotations,
    unknown_args: UnknownArgs,
    options: Map<String, Value>,
    params: ParamTable,
    repair: Option<bool>,
    coerce: Option<bool>,
    cut_off: Option<CutOff>,
    strict: Option<bool>,
    concurrent: Option<bool>,
    timeout: Option<Duration>,
    needs_approval: bool,
    deferred: bool,
    task: bool,
    namespace: Option<std::sync::Arc<Namespace>>,
    /// Whether `#[tool]` or `#[toolset]` built it (from a fn), so that what it is told to change
    /// names their options; otherwise it was built at run time.
    pub(crate) from_attribute: bool,
    /// The schema as the application wrote it ([`ToolDefinition::new`]), for MCP.
    pub(crate) written: Option<std::sync::Arc<Value>>,
    compiled: Kept<CompiledSchema>,
    forms: FormCache,
}

/// A value derived from a definition, built on first use and kept: the compiled schema, each
/// provider form. A definition is built once per tool, so each is built once per tool. A copy
/// keeps what is built; equality ignores it (it follows from what the definition says, which is
/// compared itself).
pub(crate) struct Kept<T>(OnceLock<T>);

impl<T> Kept<T> {
    pub(crate) fn get_or_init(&self, build: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(build)
    }
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept(OnceLock::new())
    }
}

impl<T: Clone> Clone for Kept<T> {
    fn clone(&self) -> Self {
        Kept(
            self.0
                .get()
                .cloned()
                .map(OnceLock::from)
                .unwrap_or_default(),
        )
    }
}

impl<T> PartialEq for Kept<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> fmt::Debug for Kept<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "built"
        } else {
            "not yet built"
        })
    }
}

impl ToolDefinition {
    /// A definition with the given parameters schema, brought to canonical form. The schema is
    /// the contract as written: arguments it does not declare are refused only where it closes
    /// them (`additionalProperties: false`), as JSON Schema says; see [`UnknownArgs`] and
    /// [`with_unknown_args`](Self::with_unknown_args) to choose otherwise.
    ///
    /// # Errors
    /// When the schema does not describe an object.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::ToolDefinition;
    ///
    /// let def = ToolDefinition::new("ping", "Check the service is up.", json!({})).unwrap();
    /// assert_eq!(def.parameters(), &json!({"type": "object", "properties": {}, "required": []}));
    /// ```
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<String>,
        parameters: Value,
    ) -> Result<Self, SchemaError> {
        // MCP's `inputSchema` takes a schema that says it describes an object as written.
        let written = (parameters.get("type").and_then(Value::as_str) == Some("object"))
            .then(|| std::sync::Arc::new(parameters.clone()));
        let mut definition = ToolDefinition::from_canonical(
            name.into(),
            description.into(),
            canonical_parameters(parameters)?,
        );
        definition.written = written;
        Ok(definition)
    }

    /// A definition from a schema already in canonical form.
    pub(crate) fn from_canonical(
        name: Cow<'static, str>,
        description: String,
        parameters: Value,
    ) -> Self {
        ToolDefinition {
            unknown_args: UnknownArgs::of_schema(&parameters),
            name: ToolName::from(name),
            description,
            params: ParamTable::from_schema(&parameters),
            parameters,
            output_schema: None,
            display_text: None,
            tags: Vec::new(),
            scopes: Vec::new(),
            deprecated: None,
            annotations: ToolAnnotations::default(),
            options: Map::new(),
            repair: None,
            coerce: None,
            cut_off: None,
            strict: None,
            concurrent: None,
            timeout: None,
            needs_approval: false,
            deferred: false,
            task: false,
            namespace: None,
            from_attribute: false,
            written: None,
            compiled: Kept::default(),
            forms: FormCache::default(),
        }
    }

    /// The name the model calls the tool by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name, shared (as each result of the tool's calls carries it).
    #[inline]
    pub(crate) fn shared_name(&self) -> ToolName {
        self.name.clone()
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The canonical parameters schema.
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// The schema of the tool's structured output, where its return type has one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    /// Text for a user interface (MCP's `title`).
    pub fn display_text(&self) -> Option<&str> {
        self.display_text.as_deref()
    }

    /// Free-form tags for grouping and filtering tools.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// The scopes a caller must hold to see and call the tool (none: any caller), as the tool
    /// declared them (`#[tool(scopes = [..])]`, [`with_scopes`](Self::with_scopes)); a
    /// toolbox may require more of every tool a rule selects
    /// ([`Toolbox::require_scopes`](crate::Toolbox::require_scopes)).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The tool's `#[deprecated]` attribute, if it has one.
    pub fn deprecated(&self) -> Option<&Deprecation> {
        self.deprecated.as_ref()
    }

    /// Behaviour hints.
    pub fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }

    /// What the tool does with arguments it does not declare (see [`UnknownArgs`]): as the
    /// schema says, unless set with [`with_unknown_args`](Self::with_unknown_args).
    pub fn unknown_args(&self) -> UnknownArgs {
        self.unknown_args
    }

    /// Provider or application options attached to the tool.
    pub fn options(&self) -> &Map<String, Value> {
        &self.options
    }

    /// The required parameters' names, in schema order. Empty means unknown, not "none required"
    /// (a raw schema may not say).
    pub fn required_param_names(&self) -> &[String] {
        &self.params.required
    }

    /// The accepted parameters' names, in declaration order. Empty means unknown, not "accepts
    /// nothing".
    pub fn accepted_param_names(&self) -> &[String] {
        &self.params.accepted
    }

    pub(crate) fn param_table(&self) -> &ParamTable {
        &self.params
    }

    /// The parameters schema compiled for coercion and validation (on first use, then kept).
    pub fn compiled_schema(&self) -> &CompiledSchema {
        self.compiled.get_or_init(|| {
            let compiled = CompiledSchema::compile(&self.parameters);
            if !compiled.unsupported().is_empty() {
                tracing::warn!(
                    tool = %self.name,
                    unsupported = ?compiled.unsupported(),
                    "parts of this tool's parameters schema are not enforced"
                );
            }
            compiled
        })
    }

    /// Whether this tool is sent in strict mode where a provider has one: `Some` when it says so
    /// itself (`#[tool(strict)]`, `#[tool(strict = false)]`), `None` when the toolbox decides.
    pub fn strict(&self) -> Option<bool> {
        self.strict
    }

    /// Sends this tool in strict mode, or not, whatever the toolbox says.
    #[must_use]
    pub fn with_strict(mut self, on: bool) -> Self {
        self.strict = Some(on);
        self
    }

    /// Whether calls of this tool may run at the same time as other calls of a batch: as the
    /// tool says (`#[tool(concurrent)]`, `#[tool(concurrent = false)]`), otherwise when it is
    /// annotated read-only. Other calls run alone, in call order.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{ToolDefinition, dynamic::ToolAnnotations};
    ///
    /// let def = ToolDefinition::new("lookup", "Look a word up.", json!({})).unwrap();
    /// assert!(!def.is_concurrent());
    /// let read_only = ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() };
    /// let def = def.with_annotations(read_only);
    /// assert!(def.is_concurrent());
    /// assert!(!def.with_concurrent(false).is_concurrent());
    /// ```
    pub fn is_concurrent(&self) -> bool {
        self.concurrent
            .unwrap_or(self.annotations.read_only == Some(true))
    }

    /// Lets calls of this tool run concurrently with others, or forbids it, whatever its
    /// annotations imply.
    #[must_use]
    pub fn with_concurrent(mut self, on: bool) -> Self {
        self.concurrent = Some(on);
        self
    }

    /// How long a call of this tool may run before it is stopped with an error result; `None`
    /// when the toolbox's timeout applies.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Stops calls of this tool that run longer than `timeout`.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Whether every call of this tool waits for a person's approval before it runs.
    pub fn needs_approval(&self) -> bool {
        self.needs_approval
    }

    /// Makes every call of this tool wait for a person's approval (or not).
    #[must_use]
    pub fn with_needs_approval(mut self, on: bool) -> Self {
        self.needs_approval = on;
        self
    }

    /// This tool's entry in a provider's tool list, in one form (a [`Provider`](crate::provider::Provider)
    /// alone is its plain form), built on first use and kept. Whether the provider would take it is
    /// [`lint`](Self::lint)'s to say; [`Toolbox::tools_for`](crate::Toolbox::tools_for) checks.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{ToolDefinition, provider::Provider, schema::Form};
    ///
    /// let def = ToolDefinition::new("search", "Search the web.", json!({
    ///     "type": "object",
    ///     "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
    ///     "required": ["query"],
    /// }))
    /// .unwrap();
    /// let entry = def.provider_entry(Form::new(Provider::OpenAiResponses).with_strict(true));
    /// assert_eq!(entry["strict"], true);
    /// assert_eq!(entry["parameters"]["required"], json!(["query", "limit"]));
    /// assert_eq!(entry["parameters"]["properties"]["limit"]["type"], json!(["integer", "null"]));
    /// ```
    pub fn provider_entry(&self, form: impl Into<Form>) -> &Value {
        &self.forms.get(self, form.into()).entry
    }

    /// Everything a provider's form cannot say about this tool, or says differently: errors
    /// (the provider would refuse it), warnings (a rule the model is not told) and notes.
    pub fn lint(&self, form: impl Into<Form>) -> LintReport {
        self.forms.get(self, form.into()).report.clone()
    }

    /// The cached form, entry and lints together.
    pub(crate) fn provider_form(&self, form: Form) -> &ProviderForm {
        self.forms.get(self, form)
    }

    /// Renames the tool (a toolset's prefix, a name an application gives): what the model
    /// calls it by, in every provider form and every message about its calls.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = ToolName::from(name.into());
        self.forms = FormCache::default();
        self
    }

    /// Sets the output schema.
    #[must_use]
    pub fn with_output_schema(mut self, schema: Option<Value>) -> Self {
        self.output_schema = schema;
        self.forms = FormCache::default();
        self
    }

    /// Sets the display text.
    #[must_use]
    pub fn with_display_text(mut self, text: impl Into<String>) -> Self {
        self.display_text = Some(text.into());
        self.forms = FormCache::default();
        self
    }

    /// Adds tags.
    #[must_use]
    pub fn with_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags.extend(tags.into_iter().map(Into::into));
        self.forms = FormCache::default();
        self
    }

    /// Requires `scopes` of every caller, besides those already required: a caller without one
    /// of them does not see the tool and cannot call it (see [`Caller`](crate::exec::Caller)).
    /// Calls made for no caller in particular are not affected.
    #[must_use]
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes.contains(&scope) {
                self.scopes.push(scope);
            }
        }
        self
    }

    /// Marks the tool deprecated.
    #[must_use]
    pub fn with_deprecated(mut self, deprecation: Deprecation) -> Self {
        self.deprecated = Some(deprecation);
        self.forms = FormCache::default();
        self
    }

    /// Sets the behaviour hints.
    #[must_use]
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self.forms = FormCache::default();
        self
    }

    /// Sets an option. MCP's tool entry takes the options `icons` (a list of `{"src", "mimeType",
    /// "sizes"}`) and `_meta` as its fields of those names.
    #[must_use]
    pub fn with_option(mut self, key: impl Into<String>, value: Value) -> Self {
        self.options.insert(key.into(), value);
        self.forms = FormCache::default();
        self
    }

    /// Sets the unknown-argument policy, and makes the schema the model is shown say so:
    /// `additionalProperties: false` when unknown arguments are rejected; when they are ignored,
    /// no `additionalProperties`; when they are allowed, no `false` closing them (a schema for
    /// them is kept, and checked).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::ToolDefinition;
    /// use toolwright::dynamic::UnknownArgs;
    ///
    /// // A schema that says nothing of other arguments allows them, as JSON Schema does...
    /// let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    /// let open = ToolDefinition::new("search", "Search.", schema).unwrap();
    /// assert_eq!(open.unknown_args(), UnknownArgs::Allow);
    /// // ...until the tool says otherwise, and the model is shown it.
    /// let closed = open.with_unknown_args(UnknownArgs::Reject);
    /// assert_eq!(closed.parameters()["additionalProperties"], json!(false));
    /// ```
    #[must_use]
    pub fn with_unknown_args(mut self, policy: UnknownArgs) -> Self {
        self.unknown_args = policy;
        if let Value::Object(root) = &mut self.parameters {
            match policy {
                UnknownArgs::Reject => {
                    root.insert("additionalProperties".into(), Value::Bool(false));
                }
                UnknownArgs::Ignore => {
                    root.remove("additionalProperties");
                }
                UnknownArgs::Allow => {
                    for keyword in ["additionalProperties", "unevaluatedProperties"] {
                        if root.get(keyword) == Some(&Value::Bool(false)) {
                            root.remove(keyword);
                        }
                    }
                }
            }
        }
        self.params = ParamTable::from_schema(&self.parameters);
        self.compiled = Kept::default();
        self.forms = FormCache::default();
        self
    }

    /// Fills in parameter descriptions the schema lacks, from `(name, description)` pairs.
    pub(crate) fn fill_parameter_docs(&mut self, docs: &[(String, String)]) {
        let Some(Value::Object(properties)) = self.parameters.get_mut("properties") else {
            return;
        };
        for (name, description) in docs {
            if let Some(Value::Object(property)) = properties.get_mut(name) {
                property
                    .entry("description")
                    .or_insert_with(|| Value::from(description.as_str()));
            }
        }
        self.compiled = Kept::default();
        self.forms = FormCache::default();
    }
}

impl Serialize for ToolDefinition {
    /// A neutral form: `name`, `description`, `parameters`, then what is set of the rest.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", self.name.as_str())?;
        if let Some(text) = &self.display_text {
            map.serialize_entry("display_text", text)?;
        }
        map.serialize_entry("description", &self.description)?;
        map.serialize_entry("parameters", &self.parameters)?;
        if let Some(schema) = &self.output_schema {
            map.serialize_entry("output_schema", schema)?;
        }
        if !self.tags.is_empty() {
            map.serialize_entry("tags", &self.tags)?;
        }
        if !self.scopes.is_empty() {
            map.serialize_entry("scopes", &self.scopes)?;
        }
        if let Some(deprecated) = &self.deprecated {
            map.serialize_entry("deprecated", deprecated)?;
        }
        if !self.annotations.is_empty() {
            map.serialize_entry("annotations", &self.annotations)?;
        }
        if !self.options.is_empty() {
            map.serialize_entry("options", &self.options)?;
        }
        map.end()
    }
}
