//! The one door the code `#[resource]` and `#[prompt]` generate comes in by. Not public API: the
//! generated code and this module change together, and nothing here is bound by semver.
//!
//! The generated code is only what depends on the fn itself (reading its parameters, calling
//! it); the facts of its declaration are a static record, turned into the value here.

use std::fmt;
use std::future::Future;
use std::str::FromStr;

use rmcp::model::{ErrorData, GetPromptResult};
use toolwright_runtime::__mcp::{doc_parts, tidy_doc};

use crate::server::{
    Prompt, PromptArguments, ReadResult, Resource, ResourceRead, ResourceTemplate,
};

/// A `#[resource]` fn's declaration.
pub struct MacroResource {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub mime_type: Option<&'static str>,
    /// The fn's doc attributes, joined by newlines, unprocessed.
    pub doc: &'static str,
    pub scopes: &'static [&'static str],
}

/// A `#[prompt]` fn's declaration.
pub struct MacroPrompt {
    pub name: &'static str,
    pub title: Option<&'static str>,
    /// The fn's doc attributes, joined by newlines, unprocessed.
    pub doc: &'static str,
    pub arguments: &'static [MacroArgument],
    pub scopes: &'static [&'static str],
}

/// One parameter of a `#[prompt]` fn.
pub struct MacroArgument {
    pub name: &'static str,
    /// The parameter's doc attributes, joined by newlines, unprocessed.
    pub doc: &'static str,
    /// Not an `Option`.
    pub required: bool,
}

/// Sets what a `#[resource]` declaration says beside its URI and name on a `Resource` or a
/// `ResourceTemplate` (the two share these builder methods, not a trait).
macro_rules! described {
    ($value:expr, $spec:expr) => {{
        let (mut value, spec) = ($value.scopes(spec_scopes($spec)), $spec);
        let (description, _) = doc_parts(spec.doc);
        if !description.is_empty() {
            value = value.description(description);
        }
        if let Some(title) = spec.title {
            value = value.title(title);
        }
        if let Some(mime_type) = spec.mime_type {
            value = value.mime_type(mime_type);
        }
        value
    }};
}

fn spec_scopes(spec: &MacroResource) -> impl Iterator<Item = &'static str> {
    spec.scopes.iter().copied()
}

/// A fixed resource: its URI has no variables.
pub fn resource<F, Fut>(spec: &MacroResource, read: F) -> Resource
where
    F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ReadResult> + Send + 'static,
{
    described!(Resource::new(spec.uri, spec.name, read), spec)
}

/// A template of resources: its URI has variables, one per parameter of the fn.
pub fn template<F, Fut>(spec: &MacroResource, read: F) -> ResourceTemplate
where
    F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ReadResult> + Send + 'static,
{
    described!(ResourceTemplate::new(spec.uri, spec.name, read), spec)
}

/// A prompt, its arguments described by their parameters' doc comments or, failing those, the
/// fn's `# Arguments` section.
pub fn prompt<F, Fut>(spec: &MacroPrompt, get: F) -> Prompt
where
    F: Fn(PromptArguments) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult, ErrorData>> + Send + 'static,
{
    let mut prompt = Prompt::new(spec.name, get).scopes(spec.scopes.iter().copied());
    let (description, argument_docs) = doc_parts(spec.doc);
    if !description.is_empty() {
        prompt = prompt.description(description);
    }
    if let Some(title) = spec.title {
        prompt = prompt.title(title);
    }
    for argument in spec.arguments {
        let own = tidy_doc(argument.doc);
        let description = if own.is_empty() {
            argument_docs
                .iter()
                .find(|(name, _)| name == argument.name)
                .map(|(_, doc)| doc.clone())
        } else {
            Some(own)
        };
        prompt = prompt.argument_entry(argument.name, description, argument.required);
    }
    prompt
}

/// The arguments of one `prompts/get`, read as the parameters' types.
pub struct Arguments<'a> {
    pub arguments: &'a PromptArguments,
    pub prompt: &'static str,
}

impl Arguments<'_> {
    /// The argument `name`, which the prompt requires, as the parameter's type.
    ///
    /// # Errors
    /// Invalid params, naming the argument: it is missing, or not a `T`.
    pub fn required<T>(&self, name: &str) -> Result<T, ErrorData>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        match self.optional(name)? {
            Some(value) => Ok(value),
            None => Err(ErrorData::invalid_params(
                format!("prompt `{}` needs the argument `{name}`", self.prompt),
                None,
            )),
        }
    }

    /// The argument `name`, which may be left out, as the parameter's type.
    ///
    /// # Errors
    /// Invalid params, naming the argument: it is not a `T`.
    pub fn optional<T>(&self, name: &str) -> Result<Option<T>, ErrorData>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        self.arguments
            .get(name)
            .map(|value| {
                value.parse().map_err(|error| {
                    ErrorData::invalid_params(
                        format!(
                            "the argument `{name}` of prompt `{}` is not valid: {error}",
                            self.prompt
                        ),
                        None,
                    )
                })
            })
            .transpose()
    }
}
