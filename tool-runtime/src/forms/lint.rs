//! What a provider's form of a tool cannot say, or says differently: lints.

use std::fmt;

use super::Form;

/// How much a lint matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The provider's form says it differently or in words (a bound moved into the description,
    /// a format it does not know dropped where its bound is kept); the runtime enforces the
    /// canonical schema either way.
    Note,
    /// The provider's form says less than the canonical schema (a rule dropped): the model is not
    /// told, but the runtime still enforces it, so a call that breaks it gets a clear error.
    Warning,
    /// The provider would refuse the tool, or its form cannot say what the tool takes.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Which rule a lint is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The tool's name breaks the provider's name rules.
    Name,
    /// A property name breaks the provider's rules for property keys.
    PropertyName,
    /// A map (`additionalProperties` or `patternProperties` with a schema): strict forms allow
    /// only objects with fixed members.
    Map,
    /// An object that takes any members: strict forms need every member named.
    OpenObject,
    /// A value of any type: the form needs a type.
    Untyped,
    /// A tuple (`prefixItems`): the form has no way to say it.
    Tuple,
    /// `allOf`, which the form cannot express.
    AllOf,
    /// A type that refers to itself, which the form cannot express.
    Recursion,
    /// A keyword the form does not take; the string names it.
    Keyword(String),
    /// A bound or rule the form does not take, written into the description instead.
    InDescription(String),
    /// A `format` the form does not take; the string names it.
    Format(String),
    /// An `enum` whose values are not all strings, where only strings are taken.
    NonStringEnum,
    /// A size limit of the form (properties, nesting, enum values, text).
    Limit,
    /// An output schema the form cannot carry.
    OutputSchema,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Name => f.write_str("name"),
            Rule::PropertyName => f.write_str("property-name"),
            Rule::Map => f.write_str("map"),
            Rule::OpenObject => f.write_str("open-object"),
            Rule::Untyped => f.write_str("untyped"),
            Rule::Tuple => f.write_str("tuple"),
            Rule::AllOf => f.write_str("all-of"),
            Rule::Recursion => f.write_str("recursion"),
            Rule::Keyword(k) => write!(f, "keyword `{k}`"),
            Rule::InDescription(k) => write!(f, "`{k}` in description"),
            Rule::Format(k) => write!(f, "format `{k}`"),
            Rule::NonStringEnum => f.write_str("non-string-enum"),
            Rule::Limit => f.write_str("limit"),
            Rule::OutputSchema => f.write_str("output-schema"),
        }
    }
}

/// One thing a provider's form of a tool cannot say, or says differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// The tool's name.
    pub tool: String,
    /// The form linted.
    pub form: Form,
    /// Where, as a JSON pointer into the provider's parameters schema (`""` for the tool itself,
    /// `/properties/limit` for a parameter).
    pub path: String,
    /// Which rule.
    pub rule: Rule,
    /// How much it matters.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub fix: String,
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: tool `{}` for {}",
            self.severity, self.tool, self.form
        )?;
        if !self.path.is_empty() {
            write!(f, ", at {}", self.path)?;
        }
        write!(f, " [{}]: {}", self.rule, self.message)?;
        if !self.fix.is_empty() {
            write!(f, "; {}", self.fix)?;
        }
        Ok(())
    }
}

/// Every lint of one or more tools for one or more forms, in tool order.
///
/// ```
/// use serde_json::json;
/// use toolwright::{ToolDefinition, provider::Provider, schema::Form};
///
/// let def = ToolDefinition::new("tally", "Count words.", json!({
///     "type": "object",
///     "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
/// }))
/// .unwrap();
/// let report = def.lint(Form::strict(Provider::OpenAiChat));
/// assert!(!report.is_clean());
/// assert!(report.to_string().contains("/properties/counts"));
/// assert!(def.lint(Form::new(Provider::OpenAiChat)).is_clean());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintReport {
    lints: Vec<Lint>,
}

impl LintReport {
    /// An empty report.
    pub fn new() -> Self {
        LintReport::default()
    }

    /// Every lint, errors, warnings and notes.
    pub fn lints(&self) -> &[Lint] {
        &self.lints
    }

    /// The lints of one severity.
    pub fn of(&self, severity: Severity) -> impl Iterator<Item = &Lint> {
        self.lints.iter().filter(move |l| l.severity == severity)
    }

    /// The errors: what a provider would refuse or cannot be said.
    pub fn errors(&self) -> impl Iterator<Item = &Lint> {
        self.of(Severity::Error)
    }

    /// Whether there are no errors (warnings and notes allowed).
    pub fn is_clean(&self) -> bool {
        self.errors().next().is_none()
    }

    /// Panics, listing every error, unless the report is clean: "all my tools are valid for
    /// OpenAI strict and Gemini" as a one-line test.
    ///
    /// ```
    /// use toolwright::{Toolbox, provider::Provider, schema::Form};
    ///
    /// let tools: Toolbox = Toolbox::new();
    /// tools.lint([Form::strict(Provider::OpenAiChat), Form::new(Provider::Gemini)]).assert_clean();
    /// ```
    ///
    /// # Panics
    /// When there is an error.
    #[track_caller]
    pub fn assert_clean(&self) {
        if !self.is_clean() {
            let errors: Vec<String> = self.errors().map(ToString::to_string).collect();
            panic!(
                "{} tool lint error(s):\n  {}",
                errors.len(),
                errors.join("\n  ")
            );
        }
    }

    /// Adds lints.
    pub(crate) fn push(&mut self, lint: Lint) {
        self.lints.push(lint);
    }
}

impl Extend<Lint> for LintReport {
    fn extend<I: IntoIterator<Item = Lint>>(&mut self, iter: I) {
        self.lints.extend(iter);
    }
}

impl FromIterator<Lint> for LintReport {
    fn from_iter<I: IntoIterator<Item = Lint>>(iter: I) -> Self {
        LintReport {
            lints: iter.into_iter().collect(),
        }
    }
}

impl IntoIterator for LintReport {
    type Item = Lint;
    type IntoIter = std::vec::IntoIter<Lint>;

    fn into_iter(self) -> Self::IntoIter {
        self.lints.into_iter()
    }
}

impl fmt::Display for LintReport {
    /// One line per lint, errors first, then warnings: what to act on, not drowned by what
    /// needs nothing. Notes (a form saying a rule in other words; nothing to do) are counted on
    /// a last line, and listed, after the warnings, by the alternate form (`{:#}`); `no lints`
    /// when there is nothing at all.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{ToolDefinition, provider::Provider, schema::Form};
    ///
    /// let def = ToolDefinition::new("tally", "Count words.", json!({
    ///     "type": "object",
    ///     "properties": {
    ///         "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
    ///         "limit": {"type": "integer", "format": "uint32", "minimum": 0},
    ///     },
    /// }))
    /// .unwrap();
    /// let report = def.lint(Form::strict(Provider::OpenAiChat));
    /// let text = report.to_string();
    /// assert!(text.starts_with("error: tool `tally`"));
    /// assert!(!text.contains("note:"));
    /// assert!(text.ends_with("(and 1 note, nothing to do: `{:#}` lists it)"), "{text}");
    /// assert!(format!("{report:#}").contains("note: tool `tally`"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lints.is_empty() {
            return f.write_str("no lints");
        }
        let mut lines = 0;
        let mut line = |f: &mut fmt::Formatter<'_>, lint: &Lint| -> fmt::Result {
            if lines > 0 {
                f.write_str("\n")?;
            }
            lines += 1;
            // One line each, whatever a message holds.
            let text = lint.to_string();
            if text.contains('\n') {
                f.write_str(&text.replace('\n', " "))
            } else {
                f.write_str(&text)
            }
        };
        for severity in [Severity::Error, Severity::Warning] {
            for lint in self.of(severity) {
                line(f, lint)?;
            }
        }
        let notes = self.of(Severity::Note).count();
        if f.alternate() {
            for lint in self.of(Severity::Note) {
                line(f, lint)?;
            }
        } else if notes > 0 {
            if lines > 0 {
                f.write_str("\n")?;
            }
            if notes == 1 {
                f.write_str("(and 1 note, nothing to do: `{:#}` lists it)")?;
            } else {
                write!(f, "(and {notes} notes, nothing to do: `{{:#}}` lists them)")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for LintReport {}
