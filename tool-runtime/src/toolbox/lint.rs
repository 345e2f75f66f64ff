//! What a toolbox's tools look like to each provider: strict mode, the lints of their schemas
//! and names, and the tool lists sent.

use std::borrow::Cow;

use super::Toolbox;
use crate::definition::{Downgrade, ProviderTools, StrictFallback, ToolFormat};
use crate::forms::{Dialect, Lint, LintReport, Rule, Severity};

fn clash_lint(name: &str, other: &str, wire: &str, dialect: Dialect) -> Lint {
    Lint {
        tool: name.to_owned(),
        dialect,
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

    /// Refuses to register tools that have lint errors for any of these dialects (tools already
    /// registered are not checked again).
    #[must_use]
    pub fn require_valid_for(mut self, dialects: impl IntoIterator<Item = Dialect>) -> Self {
        self.required.extend(dialects);
        self
    }

    /// Every lint of every tool for these dialects, in registration order.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{DynamicTool, ToolDefinition, Toolbox, schema::Dialect};
    ///
    /// let def = ToolDefinition::new("tally", "Count words.", json!({
    ///     "type": "object",
    ///     "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
    /// }))
    /// .unwrap();
    /// let tools = Toolbox::new().with(DynamicTool::new(def, |_, _: &()| json!(0))).unwrap();
    /// let report = tools.lint([Dialect::OpenAiStrict, Dialect::Gemini]);
    /// let errors: Vec<_> = report.errors().collect();
    /// assert_eq!(errors.len(), 1);
    /// assert_eq!(errors[0].path, "/properties/counts");
    /// assert_eq!(errors[0].dialect, Dialect::OpenAiStrict);
    /// ```
    pub fn lint(&self, dialects: impl IntoIterator<Item = Dialect>) -> LintReport {
        let dialects: Vec<Dialect> = dialects.into_iter().collect();
        let mut report: LintReport = self
            .definitions()
            .flat_map(|def| dialects.iter().flat_map(|d| def.lint(*d)))
            .collect();
        for dialect in dialects {
            report.extend(self.name_clashes(dialect));
        }
        report
    }

    /// Lint errors for tools sent to `dialect`'s provider under the same name (one of them under
    /// a stand-in, [`Dialect::wire_name`]): a call to that name could not be told apart.
    fn name_clashes(&self, dialect: Dialect) -> Vec<Lint> {
        if !self.mapped_names {
            return Vec::new();
        }
        let mut clashes = Vec::new();
        for (at, def) in self.definitions().enumerate() {
            let wire = dialect.wire_name(def.name());
            if let Some(other) = self
                .definitions()
                .take(at)
                .find(|other| dialect.wire_name(other.name()) == wire)
            {
                clashes.push(clash_lint(def.name(), other.name(), &wire, dialect));
            }
        }
        clashes
    }

    /// The lint for a tool about to be registered whose name would clash with a registered one.
    pub(super) fn name_clash(&self, name: &str, dialect: Dialect) -> Option<Lint> {
        let wire = dialect.wire_name(name);
        self.definitions()
            .find(|other| dialect.wire_name(other.name()) == wire)
            .map(|other| clash_lint(name, other.name(), &wire, dialect))
    }

    /// The stand-in names ([`Dialect::wire_name`]) this toolbox's tools are sent under to
    /// `dialect`'s provider, each with the tool's own name: empty unless some name breaks some
    /// provider's rules. A stand-in that is also a tool's very name is left out (that tool
    /// answers to it; the two clash, a lint error).
    pub(crate) fn stand_ins(&self, dialect: Dialect) -> Vec<(String, String)> {
        if !self.mapped_names {
            return Vec::new();
        }
        self.definitions()
            .filter_map(|def| match dialect.wire_name(def.name()) {
                Cow::Owned(wire) if self.get(&wire).is_none() => {
                    Some((wire, def.name().to_owned()))
                }
                _ => None,
            })
            .collect()
    }

    /// The tool list for one provider's request, strict where the toolbox or a tool asks for it.
    /// Each tool's entry is built once and kept in its definition, so this is a lookup after the
    /// first call.
    ///
    /// # Errors
    /// Every lint error of the forms to be sent (a name the provider refuses, a recursive type
    /// for Gemini's `parameters`, a strict form that is impossible under
    /// [`StrictFallback::Error`]...).
    ///
    /// ```
    /// use toolwright::{Toolbox, schema::ToolFormat};
    ///
    /// let tools: Toolbox = Toolbox::new().with_strict(true);
    /// let list = tools.tools_for(ToolFormat::OpenAiChat).unwrap();
    /// assert_eq!(list.to_value(), serde_json::json!([]));
    /// ```
    pub fn tools_for(&self, format: ToolFormat) -> Result<ProviderTools<'_>, LintReport> {
        let mut entries = Vec::with_capacity(self.tools.len());
        let mut downgraded = Vec::new();
        let mut errors = LintReport::new();
        let mut reports = Vec::with_capacity(self.tools.len());
        for def in self.definitions() {
            let strict = format.has_strict() && def.strict().unwrap_or(self.strict);
            let mut form = def.provider_form(format, strict);
            if strict
                && !form.report.is_clean()
                && self.strict_fallback == StrictFallback::NonStrict
            {
                let reasons: LintReport = form.report.errors().cloned().collect();
                tracing::warn!(tool = %def.name(), "sent without strict mode:\n{reasons}");
                downgraded.push(Downgrade {
                    tool: def.name().to_owned(),
                    reasons,
                });
                form = def.provider_form(format, false);
            }
            if form.report.is_clean() {
                reports.push(&form.report);
            } else {
                errors.extend(form.report.errors().cloned());
            }
            entries.push(&form.entry);
        }
        errors.extend(self.name_clashes(format.dialect(false)));
        if errors.is_clean() {
            Ok(ProviderTools {
                format,
                entries,
                downgraded,
                reports,
            })
        } else {
            Err(errors)
        }
    }
}
