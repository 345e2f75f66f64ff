//! What a toolbox's tools look like to each provider: strict mode, the lints of their schemas
//! and names, and the tool lists sent.

use std::borrow::Cow;

use super::Toolbox;
use crate::definition::{Downgrade, ProviderTools, StrictFallback};
use crate::forms::{Form, Lint, LintReport, Provider, Rule, Severity};

fn clash_lint(name: &str, other: &str, wire: &str, form: Form) -> Lint {
    Lint {
        tool: name.to_owned(),
        form,
        path: String::new(),
        rule: Rule::Name,
        severity: Severity::Error,
        message: format!(
            "sent as `{wire}`, like the tool `{other}`: calls to the two could not be told apart"
        ),
        fix: "rename one of the tools (`#[tool(name = \"..\")]`)".to_owned(),
    }
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// Sends tools in strict mode where a provider has one (OpenAI, Anthropic), unless a tool
    /// says otherwise itself (`#[tool(strict = false)]`). Off by default.
    #[must_use]
    pub fn with_strict(mut self, on: bool) -> Self {
        self.strict = on;
        self
    }

    /// What [`tools_for`](Self::tools_for) does with a tool whose strict form is impossible:
    /// fail (the default), or send it without strict mode and record why.
    #[must_use]
    pub fn with_strict_fallback(mut self, fallback: StrictFallback) -> Self {
        self.strict_fallback = fallback;
        self
    }

    /// Sends Gemini tools with `parametersJsonSchema` (JSON Schema as it is) instead of
    /// `parameters` (the OpenAPI subset). Off by default.
    #[must_use]
    pub fn with_gemini_json_schema(mut self, on: bool) -> Self {
        self.gemini_json_schema = on;
        self
    }

    /// Refuses to register tools that have lint errors for any of these forms (a [`Provider`]
    /// alone is its plain form; tools already registered are not checked again).
    #[must_use]
    pub fn require_valid_for<I>(mut self, forms: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Form>,
    {
        self.required.extend(forms.into_iter().map(Into::into));
        self
    }

    /// Every lint of every tool for these forms (a [`Provider`] alone is its plain form), in
    /// registration order.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{DynamicTool, ToolDefinition, Toolbox, provider::Provider, schema::Form};
    ///
    /// let def = ToolDefinition::new("tally", "Count words.", json!({
    ///     "type": "object",
    ///     "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
    /// }))
    /// .unwrap();
    /// let tools = Toolbox::new().with(DynamicTool::new(def, |_, _: &()| json!(0))).unwrap();
    /// let strict = Form::new(Provider::OpenAiChat).with_strict(true);
    /// let report = tools.lint([strict, Form::new(Provider::Gemini)]);
    /// let errors: Vec<_> = report.errors().collect();
    /// assert_eq!(errors.len(), 1);
    /// assert_eq!(errors[0].path, "/properties/counts");
    /// assert_eq!(errors[0].form, strict);
    /// ```
    pub fn lint<I>(&self, forms: I) -> LintReport
    where
        I: IntoIterator,
        I::Item: Into<Form>,
    {
        let forms: Vec<Form> = forms.into_iter().map(Into::into).collect();
        let mut report: LintReport = self
            .definitions()
            .flat_map(|def| forms.iter().flat_map(|form| def.lint(*form)))
            .collect();
        for form in forms {
            report.extend(self.name_clashes(form));
        }
        report
    }

    /// Lint errors for tools sent to `form`'s provider under the same name (one of them under
    /// a stand-in, [`Provider::wire_name`]): a call to that name could not be told apart.
    fn name_clashes(&self, form: Form) -> Vec<Lint> {
        if !self.mapped_names {
            return Vec::new();
        }
        let mut clashes = Vec::new();
        for (at, def) in self.definitions().enumerate() {
            let wire = form.provider().wire_name(def.name());
            if let Some(other) = self
                .definitions()
                .take(at)
                .find(|other| form.provider().wire_name(other.name()) == wire)
            {
                clashes.push(clash_lint(def.name(), other.name(), &wire, form));
            }
        }
        clashes
    }

    /// The lint for a tool about to be registered whose name would clash with a registered one.
    pub(super) fn name_clash(&self, name: &str, form: Form) -> Option<Lint> {
        let provider = form.provider();
        let wire = provider.wire_name(name);
        self.definitions()
            .find(|other| provider.wire_name(other.name()) == wire)
            .map(|other| clash_lint(name, other.name(), &wire, form))
    }

    /// The stand-in names ([`Provider::wire_name`]) this toolbox's tools are sent under to
    /// `provider`, each with the tool's own name: empty unless some name breaks some
    /// provider's rules. A stand-in that is also a tool's very name is left out (that tool
    /// answers to it; the two clash, a lint error).
    pub(crate) fn stand_ins(&self, provider: Provider) -> Vec<(String, String)> {
        if !self.mapped_names {
            return Vec::new();
        }
        self.definitions()
            .filter_map(|def| match provider.wire_name(def.name()) {
                Cow::Owned(wire) if self.get(&wire).is_none() => {
                    Some((wire, def.name().to_owned()))
                }
                _ => None,
            })
            .collect()
    }

    /// The tool list for one provider's request, strict where the toolbox or a tool asks for it
    /// (and for Gemini, in the field [`with_gemini_json_schema`](Self::with_gemini_json_schema)
    /// chooses).
    /// Each tool's entry is built once and kept in its definition, so this is a lookup after the
    /// first call.
    ///
    /// # Errors
    /// Every lint error of the forms to be sent (a name the provider refuses, a recursive type
    /// for Gemini's `parameters`, a strict form that is impossible under
    /// [`StrictFallback::Error`]...).
    ///
    /// ```
    /// use toolwright::{Toolbox, provider::Provider};
    ///
    /// let tools: Toolbox = Toolbox::new().with_strict(true);
    /// let list = tools.tools_for(Provider::OpenAiChat).unwrap();
    /// assert_eq!(list.to_value(), serde_json::json!([]));
    /// ```
    pub fn tools_for(&self, provider: Provider) -> Result<ProviderTools<'_>, LintReport> {
        let mut entries = Vec::with_capacity(self.tools.len());
        let mut downgraded = Vec::new();
        let mut errors = LintReport::new();
        let mut reports = Vec::with_capacity(self.tools.len());
        let plain = self.form(provider, false);
        for def in self.definitions() {
            let strict = self.form(provider, def.strict().unwrap_or(self.strict));
            let mut form = def.provider_form(strict);
            if strict.is_strict()
                && !form.report.is_clean()
                && self.strict_fallback == StrictFallback::NonStrict
            {
                let reasons: LintReport = form.report.errors().cloned().collect();
                tracing::warn!(tool = %def.name(), "sent without strict mode:\n{reasons}");
                downgraded.push(Downgrade {
                    tool: def.name().to_owned(),
                    reasons,
                });
                form = def.provider_form(plain);
            }
            if form.report.is_clean() {
                reports.push(&form.report);
            } else {
                errors.extend(form.report.errors().cloned());
            }
            entries.push(&form.entry);
        }
        errors.extend(self.name_clashes(plain));
        if errors.is_clean() {
            Ok(ProviderTools {
                provider,
                entries,
                downgraded,
                reports,
            })
        } else {
            Err(errors)
        }
    }

    /// The form this toolbox sends to `provider`, strict or not.
    pub(crate) fn form(&self, provider: Provider, strict: bool) -> Form {
        Form::new(provider)
            .with_strict(strict)
            .with_gemini_json_schema(self.gemini_json_schema)
    }
}
