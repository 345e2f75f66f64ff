//! [`Toolset`]: the tools of one service, as `#[toolset]` makes them, registered together.

use std::fmt;
use std::sync::Arc;

use crate::definition::Namespace;
use crate::tool::{ErasedTool, ToolDefinition};
use crate::toolbox::IntoTools;

/// Makes one tool of a set, its definition as the set says ([`Member`]).
type Make<C> = Box<dyn FnOnce(Member) -> Arc<dyn ErasedTool<C>> + Send>;

/// What a set changes in the definition of each of its tools: the name (the set's prefix) and
/// the scopes the set requires. The generated constructor of a toolset's tool takes it.
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub struct Member {
    name: Option<String>,
    scopes: Arc<[String]>,
    deferred: bool,
    namespace: Option<Arc<Namespace>>,
}

impl Member {
    /// The tool's definition as the set has it, or `None` when the set changes nothing (the
    /// static definition is then used, and nothing is copied).
    pub(crate) fn definition(self, definition: &ToolDefinition) -> Option<Box<ToolDefinition>> {
        if self.name.is_none()
            && self.scopes.is_empty()
            && !self.deferred
            && self.namespace.is_none()
        {
            return None;
        }
        let mut definition = definition.clone();
        if let Some(name) = self.name {
            definition = definition.with_name(name);
        }
        if self.deferred {
            definition = definition.with_deferred(true);
        }
        if self.namespace.is_some() {
            definition.set_namespace(self.namespace);
        }
        Some(Box::new(
            definition.with_scopes(self.scopes.iter().cloned()),
        ))
    }
}

/// The tools of one service, each holding a share of it: what `Service::toolset` gives for a
/// `#[toolset] impl Service`. Register them together with
/// [`Toolbox::with_all`](crate::Toolbox::with_all) (all or none, every clash told at once);
/// several toolsets and free tools compose into one toolbox.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolwright::{ToolCall, Toolbox, tool, toolset};
///
/// struct Notes {
///     lines: Mutex<Vec<String>>,
/// }
///
/// #[toolset]
/// impl Notes {
///     /// Add a line to the notes.
///     #[tool]
///     fn add(&self, line: String) -> usize {
///         let mut lines = self.lines.lock().unwrap();
///         lines.push(line);
///         lines.len()
///     }
///
///     /// Count the lines.
///     #[tool(read_only)]
///     fn count(&self) -> usize {
///         self.lines.lock().unwrap().len()
///     }
/// }
///
/// let notes = Arc::new(Notes { lines: Mutex::new(Vec::new()) });
/// let tools = Toolbox::new()
///     .with_all(Arc::clone(&notes).toolset().prefixed("notes_"))
///     .unwrap();
/// assert_eq!(tools.definitions().map(|d| d.name()).collect::<Vec<_>>(), ["notes_add", "notes_count"]);
///
/// let result = tools.execute_blocking(&ToolCall::new("1", "notes_add", r#"{"line": "hi"}"#), &());
/// assert_eq!(result.text(), "1");
/// assert_eq!(notes.count(), 1); // the methods stay callable as written
/// ```
pub struct Toolset<C: ?Sized = ()> {
    service: &'static str,
    prefix: String,
    scopes: Vec<String>,
    deferred: bool,
    namespace: Option<Arc<Namespace>>,
    tools: Vec<(&'static str, Make<C>)>,
}

impl<C: ?Sized> Toolset<C> {
    #[doc(hidden)]
    /// An empty set for `service` (its type, as written): generated code fills it.
    pub fn new(service: &'static str) -> Self {
        Toolset {
            service,
            prefix: String::new(),
            scopes: Vec::new(),
            deferred: false,
            namespace: None,
            tools: Vec::new(),
        }
    }

    #[doc(hidden)]
    /// Adds the tool `name`, made by `make` with the definition the set gives it.
    pub fn push(&mut self, name: &'static str, make: Make<C>) {
        self.tools.push((name, make));
    }

    /// Gives every tool of the set the name `prefix` + its own (`files_` + `read`:
    /// `files_read`), so that two services' tools of one name can share a toolbox. Prefixing
    /// again puts the new prefix in front.
    #[must_use]
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.prefix.insert_str(0, prefix);
        self
    }

    /// Requires `scopes` of every caller for every tool of the set, besides each tool's own
    /// (`#[tool(scopes = [..])]`): a caller without them does not see the set's tools and
    /// cannot call them (see [`Caller`](crate::exec::Caller)).
    #[must_use]
    pub fn require_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Defers every tool of the set: with tool search on, a request sends them in full only
    /// once a search has found them ([`ToolDefinition::is_deferred`]).
    #[must_use]
    pub fn deferred(mut self) -> Self {
        self.deferred = true;
        self
    }

    /// Groups the set's tools in one namespace, described by `description`: where a provider
    /// groups tools (OpenAI Responses' `namespace`, with tool search), the model is shown the
    /// namespace and opens it by searching.
    #[must_use]
    pub fn namespace(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.namespace = Some(Arc::new(Namespace::new(name, description)));
        self
    }

    /// The tools' names, with the prefix, in the order they are declared.
    pub fn names(&self) -> impl ExactSizeIterator<Item = String> + '_ {
        self.tools
            .iter()
            .map(|(name, _)| format!("{}{name}", self.prefix))
    }

    /// Keeps only the tools `keep` says yes to, by their names without the prefix: a set
    /// registered in part (`toolset().retain(|name| name != "delete")`).
    #[must_use]
    pub fn retain(mut self, mut keep: impl FnMut(&str) -> bool) -> Self {
        self.tools.retain(|(name, _)| keep(name));
        self
    }

    /// How many tools the set has.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the set has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl<C: ?Sized + Sync + 'static> IntoTools<C> for Toolset<C> {
    fn into_tools(self) -> Vec<Arc<dyn ErasedTool<C>>> {
        let (prefix, scopes): (String, Arc<[String]>) = (self.prefix, self.scopes.into());
        let (deferred, namespace) = (self.deferred, self.namespace);
        self.tools
            .into_iter()
            .map(|(name, make)| {
                make(Member {
                    name: (!prefix.is_empty()).then(|| format!("{prefix}{name}")),
                    scopes: Arc::clone(&scopes),
                    deferred,
                    namespace: namespace.clone(),
                })
            })
            .collect()
    }
}

impl<C: ?Sized> fmt::Debug for Toolset<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolset")
            .field("service", &self.service)
            .field("prefix", &self.prefix)
            .field("scopes", &self.scopes)
            .field("deferred", &self.deferred)
            .field("namespace", &self.namespace)
            .field(
                "tools",
                &self.tools.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish()
    }
}
