//! What a definition says for tool search: whether the tool is deferred (sent only once a
//! search finds it), and the namespace it is grouped in where a provider groups tools.

use std::sync::Arc;

use super::ToolDefinition;

/// A group of tools a provider shows the model as one entry until a search opens it (OpenAI
/// Responses' `namespace` tool): a name and a description of what its tools do. A
/// [`Toolset`](crate::Toolset) gives its tools one with
/// [`Toolset::namespace`](crate::Toolset::namespace).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Namespace {
    name: String,
    description: String,
}

impl Namespace {
    /// A namespace called `name` (as the provider's names are: letters, digits, `_` and `-`),
    /// described by `description`.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Namespace {
            name: name.into(),
            description: description.into(),
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What its tools do, as the model is told.
    pub fn description(&self) -> &str {
        &self.description
    }
}

impl ToolDefinition {
    /// Whether the tool is deferred: with the toolbox's tool search on
    /// ([`Toolbox::with_tool_search`](crate::Toolbox::with_tool_search)), a request sends it in
    /// full only once a search has found it (`#[tool(defer)]`).
    pub fn is_deferred(&self) -> bool {
        self.deferred
    }

    /// Defers the tool, or not ([`is_deferred`](Self::is_deferred)).
    #[must_use]
    pub fn with_deferred(mut self, on: bool) -> Self {
        self.deferred = on;
        self
    }

    /// The namespace the tool is grouped in, if any.
    pub fn namespace(&self) -> Option<&Namespace> {
        self.namespace.as_deref()
    }

    /// Groups the tool in `namespace` (or in none).
    #[must_use]
    pub fn with_namespace(mut self, namespace: Option<Namespace>) -> Self {
        self.namespace = namespace.map(Arc::new);
        self
    }

    pub(crate) fn set_namespace(&mut self, namespace: Option<Arc<Namespace>>) {
        self.namespace = namespace;
    }
}
