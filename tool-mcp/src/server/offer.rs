//! What a server offers beside its tools: resources (fixed and templated) and prompts, as plain
//! Rust values, with the completion of their arguments.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;

use rmcp::model::{
    ErrorData, GetPromptResult, Icon, Prompt as McpPrompt, PromptArgument, PromptMessage,
    Resource as McpResource, ResourceTemplate as McpResourceTemplate,
};
use toolwright_runtime::exec::{BoxFuture, ResourceContents};

// Names the documentation links to.
#[cfg(doc)]
use toolwright_runtime::exec::Caller;

/// What reading a resource gives: its contents (one resource may hold several, a folder's
/// files, say), or the error the client gets (`ErrorData::resource_not_found` for an unknown
/// URI).
pub type ReadResult = Result<Vec<ResourceContents>, ErrorData>;

type Read = dyn Fn(ResourceRead) -> BoxFuture<'static, ReadResult> + Send + Sync;
type Get =
    dyn Fn(PromptArguments) -> BoxFuture<'static, Result<GetPromptResult, ErrorData>> + Send + Sync;
type Complete = dyn Fn(&str, &HashMap<String, String>) -> Vec<String> + Send + Sync;

/// A read of a resource: the URI the client asked for and, for a template's resource, the values
/// of the template's variables in it.
#[derive(Debug, Clone)]
pub struct ResourceRead {
    /// The URI read, as the client sent it.
    pub uri: String,
    /// The template's variables, by name (empty for a fixed resource).
    pub variables: HashMap<String, String>,
}

impl ResourceRead {
    /// The value of the template's variable `name` in the URI read, as a `T`: a `String`, a
    /// number, anything [`FromStr`].
    ///
    /// ```
    /// use toolwright::mcp::{ResourceRead, rmcp::model::ErrorCode};
    ///
    /// let read = ResourceRead {
    ///     uri: "notes://7".into(),
    ///     variables: [("id".to_owned(), "7".to_owned())].into(),
    /// };
    /// assert_eq!(read.variable::<u32>("id").unwrap(), 7);
    /// assert_eq!(read.variable::<bool>("id").unwrap_err().code, ErrorCode::RESOURCE_NOT_FOUND);
    /// ```
    ///
    /// # Errors
    /// The resource-not-found error (`-32002`) the client gets when the template has no such
    /// variable or its value is not a `T`: the URI names no resource.
    pub fn variable<T>(&self, name: &str) -> Result<T, ErrorData>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        let Some(value) = self.variables.get(name) else {
            return Err(ErrorData::resource_not_found(
                format!("`{}` has no `{name}` in it", self.uri),
                None,
            ));
        };
        value.parse().map_err(|error| {
            ErrorData::resource_not_found(
                format!(
                    "no resource at `{}`: its `{name}` is not valid ({error})",
                    self.uri
                ),
                None,
            )
        })
    }
}

/// The arguments of a `prompts/get`, by name, as the client sent them.
pub type PromptArguments = HashMap<String, String>;

/// A resource the server offers at a fixed URI: listed by `resources/list`, read by
/// `resources/read`, its readers told by `notifications/resources/updated` when
/// [`McpServer::resource_updated`](crate::McpServer::resource_updated) says it changed.
///
/// ```
/// use toolwright::mcp::{Resource, rmcp::model::ErrorData};
/// use toolwright::exec::ResourceContents;
///
/// // Contents fixed when it is declared:
/// let readme = Resource::text("docs://readme", "readme", "text/markdown", "# Notes\n")
///     .title("The README");
/// // Or read afresh every time:
/// let clock = Resource::new("time://now", "now", |read| async move {
///     let now = format!("{:?}", std::time::SystemTime::now());
///     Ok::<_, ErrorData>(vec![ResourceContents::text(read.uri, Some("text/plain"), now)])
/// });
/// # let _ = (readme, clock);
/// ```
#[derive(Clone)]
pub struct Resource {
    pub(crate) entry: McpResource,
    pub(crate) read: Arc<Read>,
    pub(crate) scopes: Vec<String>,
}

impl Resource {
    /// A resource at `uri`, called `name`, whose contents `read` gives at every read.
    pub fn new<F, Fut>(uri: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ReadResult> + Send + 'static,
    {
        Resource {
            entry: McpResource::new(uri, name),
            read: Arc::new(move |request| Box::pin(read(request))),
            scopes: Vec::new(),
        }
    }

    /// A resource whose contents are `text`, of type `mime_type`.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: &str,
        text: impl Into<String>,
    ) -> Self {
        let uri = uri.into();
        let contents = ResourceContents::text(uri.clone(), Some(mime_type), text);
        Resource::new(uri, name, move |_| {
            std::future::ready(Ok(vec![contents.clone()]))
        })
        .mime_type(mime_type)
    }

    /// A resource whose contents are bytes (`base64`), of type `mime_type`.
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: &str,
        base64: impl Into<String>,
    ) -> Self {
        let uri = uri.into();
        let contents = ResourceContents::blob(uri.clone(), Some(mime_type), base64);
        Resource::new(uri, name, move |_| {
            std::future::ready(Ok(vec![contents.clone()]))
        })
        .mime_type(mime_type)
    }

    /// Its title, for people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.entry.title = Some(title.into());
        self
    }

    /// What it is, for the model and for people.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.entry.description = Some(description.into());
        self
    }

    /// Its MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.entry.mime_type = Some(mime_type.into());
        self
    }

    /// Icons a client may show for it.
    #[must_use]
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.entry.icons = Some(icons);
        self
    }

    /// Scopes a caller needs to see and read it (an authorized request's [`Caller`]); a caller
    /// without them is told it does not exist, as for a tool.
    #[must_use]
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Its URI.
    pub fn uri(&self) -> &str {
        &self.entry.uri
    }
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.entry.uri)
            .field("name", &self.entry.name)
            .finish_non_exhaustive()
    }
}

/// Resources at every URI a template (RFC 6570, `{name}` variables) matches: listed by
/// `resources/templates/list`, read by `resources/read` with the variables' values, whose values
/// `completion/complete` can suggest.
///
/// ```
/// use toolwright::mcp::{ResourceTemplate, rmcp::model::ErrorData};
/// use toolwright::exec::ResourceContents;
///
/// let notes = ResourceTemplate::new("notes://{id}", "note", |read| async move {
///     let id = &read.variables["id"];
///     Ok::<_, ErrorData>(vec![ResourceContents::text(read.uri.clone(), Some("text/plain"), format!("note {id}"))])
/// })
/// .complete("id", |prefix, _| ["1", "2", "10"].iter().filter(|id| id.starts_with(prefix)).map(|id| id.to_string()).collect());
/// # let _ = notes;
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    pub(crate) entry: McpResourceTemplate,
    pattern: UriTemplate,
    pub(crate) read: Arc<Read>,
    pub(crate) completions: HashMap<String, Arc<Complete>>,
    pub(crate) scopes: Vec<String>,
}

impl ResourceTemplate {
    /// Resources at the URIs `uri_template` matches, called `name`, whose contents `read` gives.
    pub fn new<F, Fut>(uri_template: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ReadResult> + Send + 'static,
    {
        let uri_template = uri_template.into();
        ResourceTemplate {
            pattern: UriTemplate::parse(&uri_template),
            entry: McpResourceTemplate::new(uri_template, name),
            read: Arc::new(move |request| Box::pin(read(request))),
            completions: HashMap::new(),
            scopes: Vec::new(),
        }
    }

    /// Its title, for people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.entry.title = Some(title.into());
        self
    }

    /// What its resources are.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.entry.description = Some(description.into());
        self
    }

    /// Its resources' MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.entry.mime_type = Some(mime_type.into());
        self
    }

    /// Icons a client may show for it.
    #[must_use]
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.entry.icons = Some(icons);
        self
    }

    /// Suggests values of the variable `name` for `completion/complete`: `complete` gets what
    /// the user typed and the values of the other variables so far, and returns the
    /// suggestions (the first 100 are sent, with the total).
    #[must_use]
    pub fn complete(
        mut self,
        name: impl Into<String>,
        complete: impl Fn(&str, &HashMap<String, String>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completions.insert(name.into(), Arc::new(complete));
        self
    }

    /// Scopes a caller needs to see and read its resources.
    #[must_use]
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The variables' values in `uri`, when the template matches it.
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        self.pattern.matches(uri)
    }
}

impl fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("uri_template", &self.entry.uri_template)
            .field("name", &self.entry.name)
            .finish_non_exhaustive()
    }
}

/// A prompt the server offers: listed by `prompts/list` with its arguments, its messages made by
/// `prompts/get` from the arguments the client sends; `completion/complete` suggests argument
/// values.
///
/// ```
/// use toolwright::mcp::{Prompt, rmcp::model::{ErrorData, GetPromptResult, PromptMessage, Role}};
///
/// let review = Prompt::new("review", |args| async move {
///     let text = format!("Review this {} code.", args.get("language").map_or("", String::as_str));
///     Ok::<_, ErrorData>(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]))
/// })
/// .description("Asks for a code review")
/// .argument("language", "The code's language", true)
/// .complete("language", |prefix, _| {
///     ["rust", "python"].iter().filter(|l| l.starts_with(prefix)).map(|l| l.to_string()).collect()
/// });
/// # let _ = review;
/// ```
#[derive(Clone)]
pub struct Prompt {
    pub(crate) entry: McpPrompt,
    pub(crate) get: Arc<Get>,
    pub(crate) completions: HashMap<String, Arc<Complete>>,
    pub(crate) scopes: Vec<String>,
}

impl Prompt {
    /// A prompt called `name`, whose messages `get` makes from the arguments.
    pub fn new<F, Fut>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(PromptArguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ErrorData>> + Send + 'static,
    {
        Prompt {
            entry: McpPrompt::new(name.into(), None::<String>, None),
            get: Arc::new(move |arguments| Box::pin(get(arguments))),
            completions: HashMap::new(),
            scopes: Vec::new(),
        }
    }

    /// A prompt without arguments whose messages are always `messages`.
    pub fn fixed(name: impl Into<String>, messages: Vec<PromptMessage>) -> Self {
        Prompt::new(name, move |_| {
            std::future::ready(Ok(GetPromptResult::new(messages.clone())))
        })
    }

    /// Its title, for people.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.entry.title = Some(title.into());
        self
    }

    /// What it is for.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.entry.description = Some(description.into());
        self
    }

    /// An argument, in the order declared: its name, what it is, whether the client must send
    /// it (a `prompts/get` without a required argument is refused, naming it).
    #[must_use]
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.entry.arguments.get_or_insert_with(Vec::new).push(
            PromptArgument::new(name)
                .with_description(description)
                .with_required(required),
        );
        self
    }

    /// [`Prompt::argument`] with no description when it has none (not an empty one).
    pub(crate) fn argument_entry(
        mut self,
        name: &str,
        description: Option<String>,
        required: bool,
    ) -> Self {
        let mut argument = PromptArgument::new(name).with_required(required);
        argument.description = description;
        self.entry
            .arguments
            .get_or_insert_with(Vec::new)
            .push(argument);
        self
    }

    /// Icons a client may show for it.
    #[must_use]
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.entry.icons = Some(icons);
        self
    }

    /// Suggests values of the argument `name` for `completion/complete`: `complete` gets what
    /// the user typed and the other arguments so far.
    #[must_use]
    pub fn complete(
        mut self,
        name: impl Into<String>,
        complete: impl Fn(&str, &HashMap<String, String>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completions.insert(name.into(), Arc::new(complete));
        self
    }

    /// Scopes a caller needs to see and get it.
    #[must_use]
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    /// The required arguments `arguments` lacks.
    pub(crate) fn missing<'a>(&'a self, arguments: &PromptArguments) -> Vec<&'a str> {
        self.entry
            .arguments
            .iter()
            .flatten()
            .filter(|argument| argument.required == Some(true))
            .map(|argument| argument.name.as_str())
            .filter(|name| !arguments.contains_key(*name))
            .collect()
    }
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.entry.name)
            .finish_non_exhaustive()
    }
}

/// A URI template of RFC 6570's level 1: literal text and `{name}` variables, each matching one
/// or more characters up to the next literal text (never a `/`, unless the variable is the
/// last thing in the template).
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Literal(String),
    Variable(String),
}

#[derive(Debug, Clone, PartialEq)]
struct UriTemplate(Vec<Piece>);

impl UriTemplate {
    fn parse(template: &str) -> Self {
        let mut pieces = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|at| open + at) else {
                break;
            };
            if open > 0 {
                pieces.push(Piece::Literal(rest[..open].to_owned()));
            }
            pieces.push(Piece::Variable(rest[open + 1..close].to_owned()));
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Literal(rest.to_owned()));
        }
        UriTemplate(pieces)
    }

    fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        let mut variables = HashMap::new();
        let mut rest = uri;
        let mut pieces = self.0.iter().peekable();
        while let Some(piece) = pieces.next() {
            match piece {
                Piece::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Piece::Variable(name) => {
                    let end = match pieces.peek() {
                        Some(Piece::Literal(next)) => rest.find(next.as_str())?,
                        // Two variables in a row have no boundary between them: the first
                        // takes one segment.
                        Some(Piece::Variable(_)) => rest.find('/').unwrap_or(rest.len()),
                        None => rest.len(),
                    };
                    let value = &rest[..end];
                    let last = pieces.peek().is_none();
                    if value.is_empty() || (!last && value.contains('/')) {
                        return None;
                    }
                    variables.insert(name.clone(), value.to_owned());
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(variables)
    }
}

/// What the server offers beside its tools, in declaration order.
#[derive(Clone, Default)]
pub(crate) struct Offers {
    pub(crate) resources: Vec<Resource>,
    pub(crate) templates: Vec<ResourceTemplate>,
    pub(crate) prompts: Vec<Prompt>,
}

impl Offers {
    pub(crate) fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    /// Whether some resource or template is at `uri`.
    pub(crate) fn knows(&self, uri: &str) -> bool {
        self.resources.iter().any(|resource| resource.uri() == uri)
            || self
                .templates
                .iter()
                .any(|template| template.matches(uri).is_some())
    }

    pub(crate) fn has_completions(&self) -> bool {
        self.prompts
            .iter()
            .any(|prompt| !prompt.completions.is_empty())
            || self
                .templates
                .iter()
                .any(|template| !template.completions.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn templates_match_their_variables() {
        let template = UriTemplate::parse("test://template/{id}/data");
        assert_eq!(
            template.matches("test://template/42/data"),
            Some(vars(&[("id", "42")]))
        );
        assert_eq!(template.matches("test://template//data"), None);
        assert_eq!(template.matches("test://template/4/2/data"), None);
        assert_eq!(template.matches("test://template/42/datum"), None);
        assert_eq!(template.matches("test://other/42/data"), None);
        let tail = UriTemplate::parse("file:///{path}");
        assert_eq!(
            tail.matches("file:///a/b.txt"),
            Some(vars(&[("path", "a/b.txt")]))
        );
        let two = UriTemplate::parse("repo://{owner}/{name}");
        assert_eq!(
            two.matches("repo://ada/engine"),
            Some(vars(&[("owner", "ada"), ("name", "engine")]))
        );
        assert_eq!(
            UriTemplate::parse("plain://x").matches("plain://x"),
            Some(HashMap::new())
        );
    }
}
