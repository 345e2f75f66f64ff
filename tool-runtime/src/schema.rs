//! Schemas and the providers' forms of them: a tool's canonical JSON Schema ([`schema_for`],
//! [`canonical_parameters`]), a provider's form of a tool list with its options ([`Form`]: strict
//! mode, Gemini's JSON Schema field; the provider itself is
//! [`provider::Provider`](crate::provider::Provider)), the tool lists sent ([`ProviderTools`])
//! and what a form cannot say ([`Lint`], [`LintReport`]).

pub use crate::definition::{Downgrade, ProviderTools, StrictFallback};
pub use crate::forms::{
    Form, Lint, LintReport, Rule, SchemaError, Severity, canonical_parameters, schema_for,
};
pub use toolwright_schema::names::close_matches;
