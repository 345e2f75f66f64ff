//! Tool search from the toolbox's side ([`search`](crate::search)): its setting, the index over
//! its definitions (built on first use, kept up to date as tools come and go), a request's
//! deferred tools in each provider's form, and the answers to its search tool's calls.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use crate::args::ArgumentError;
use crate::call::{Arguments, CallKind, CallStatus, ToolCall, ToolName};
use crate::caller::Caller;
use crate::definition::{Namespace, ProviderTools, ToolDefinition};
use crate::forms::Provider;
use crate::providers::spec;
use crate::result::{ResultDetail, ToolResult};
use crate::search::{ToolIndex, ToolSearch, UnloadedCalls};
use crate::task::Conversation;
use crate::tool::ErasedTool;
use crate::toolbox::{RegisterError, Toolbox};
use crate::wire::request::ToolRequest;
use toolwright_json::echo;

/// The longest text a search call's arguments may be.
const MAX_ARGUMENTS: usize = 16 * 1024;

/// A toolbox's tool search: the setting, and the search tool's own definition.
#[derive(Debug)]
pub(crate) struct SearchSetup {
    pub(crate) config: ToolSearch,
    pub(crate) definition: ToolDefinition,
}

/// The search over a toolbox's definitions, built on first use.
#[derive(Debug, Default)]
pub(crate) struct Index(OnceLock<ToolIndex>);

impl Clone for Index {
    fn clone(&self) -> Self {
        let copy = OnceLock::new();
        if let Some(index) = self.0.get() {
            let _ = copy.set(index.clone());
        }
        Index(copy)
    }
}

impl Index {
    /// Keeps a built index up to date with a tool added.
    pub(crate) fn added(&mut self, definition: &ToolDefinition) {
        if let Some(index) = self.0.get_mut() {
            index.insert(
                definition.name(),
                definition.description(),
                definition.parameters(),
            );
        }
    }

    /// Keeps a built index up to date with a tool removed.
    pub(crate) fn removed(&mut self, name: &str) {
        if let Some(index) = self.0.get_mut() {
            index.remove(name);
        }
    }
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// Turns tool search on ([`search`](crate::search)): the tools it defers go out in full only
    /// once a search has found them, and the toolbox answers its search tool's calls (in
    /// [`execute`](Self::execute) and batches) with the tools found.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::provider::{Provider, ToolRequest};
    /// use toolwright::search::ToolSearch;
    /// use toolwright::{ToolCall, Toolbox, tool};
    ///
    /// /// The weather in a city.
    /// #[tool(defer)]
    /// fn get_weather(city: String) -> String {
    ///     format!("Sunny in {city}")
    /// }
    ///
    /// /// The time in a timezone.
    /// #[tool]
    /// fn get_time(timezone: String) -> String {
    ///     format!("12:00 in {timezone}")
    /// }
    ///
    /// let tools = Toolbox::new()
    ///     .with_all((GetWeatherTool, GetTimeTool))
    ///     .unwrap()
    ///     .with_tool_search(ToolSearch::new())
    ///     .unwrap();
    /// // OpenAI Chat has no deferral: `get_weather` waits, `search_tools` finds it.
    /// let fields = tools.request_fields(Provider::OpenAiChat, ToolRequest::default()).unwrap();
    /// let names: Vec<_> = fields.get("tools").unwrap().as_array().unwrap().iter()
    ///     .map(|t| t["function"]["name"].as_str().unwrap()).collect();
    /// assert_eq!(names, ["get_time", "search_tools"]);
    ///
    /// let search = ToolCall::new("call_1", "search_tools", r#"{"query": "weather in Paris"}"#);
    /// let result = tools.execute_blocking(&search, &());
    /// assert!(result.text().contains("get_weather"));
    /// ```
    ///
    /// # Errors
    /// When a tool of the toolbox has the search tool's name.
    pub fn with_tool_search(mut self, search: ToolSearch) -> Result<Self, RegisterError> {
        if let Some(taken) = self
            .definitions()
            .find(|d| sent_as(d.name(), search.name()))
        {
            return Err(RegisterError::DuplicateName(taken.name().to_owned()));
        }
        let definition = ToolDefinition::new(
            search.name().to_owned(),
            "Search the tools available beyond those listed, by what they do; the tools found \
             can be called from then on.",
            json!({
                "type": "object",
                "properties": {"query": {
                    "type": "string",
                    "description": "What the tool should do, in a few words: the action, the \
                                    things it acts on, the service.",
                }},
                "required": ["query"],
            }),
        )
        .map_err(|e| RegisterError::UnknownTool(e.to_string()))?
        .with_annotations(crate::definition::ToolAnnotations {
            read_only: Some(true),
            ..Default::default()
        });
        self.search = Some(Arc::new(SearchSetup {
            config: search,
            definition,
        }));
        Ok(self)
    }

    /// The toolbox's tool search setting, if it is on.
    pub fn tool_search(&self) -> Option<&ToolSearch> {
        self.search.as_ref().map(|setup| &setup.config)
    }

    /// The toolbox's tools that best match `query`, best first, at most `k` of them: the ranked
    /// search its search tool answers with ([`ToolIndex::search`]), over every tool.
    pub fn search(&self, query: &str, k: usize) -> Vec<&ToolDefinition> {
        self.index()
            .search(query, k)
            .into_iter()
            .filter_map(|hit| self.get(hit.name).map(|tool| tool.definition()))
            .collect()
    }

    /// The search over the toolbox's definitions, built on first use.
    pub fn search_index(&self) -> &ToolIndex {
        self.index()
    }

    fn index(&self) -> &ToolIndex {
        self.index.0.get_or_init(|| {
            let mut index = ToolIndex::new();
            index.insert_all(
                self.definitions()
                    .map(|d| (d.name(), d.description(), d.parameters())),
            );
            index
        })
    }

    /// The search tool's entry in `provider`'s plain form, when search is on.
    pub(crate) fn search_entry(&self, provider: Provider) -> Option<&Value> {
        let setup = self.search.as_deref()?;
        Some(setup.definition.provider_entry(self.form(provider, false)))
    }

    /// Whether `call` is of the search tool, when search is on.
    pub(crate) fn is_search_call(&self, call: &ToolCall) -> bool {
        self.search
            .as_deref()
            .is_some_and(|setup| is_search_call(setup, call))
    }

    /// Whether the toolbox's search defers the tool `name` (by its rule and the tool's
    /// definition; a request may say otherwise).
    pub(crate) fn is_deferred(&self, name: &str) -> bool {
        match (self.search.as_deref(), self.index_of(name)) {
            (Some(setup), Some(at)) => self.deferred_in(setup, &ToolRequest::default(), at),
            _ => false,
        }
    }

    /// Whether the tool at `at` is deferred in `request`: by the request, its definition or
    /// the toolbox's rule, unless the request pins it.
    pub(crate) fn deferred_in(
        &self,
        setup: &SearchSetup,
        request: &ToolRequest,
        at: usize,
    ) -> bool {
        let definition = self.tools[at].definition();
        let name = definition.name();
        if request.pin.iter().any(|n| n == name) {
            return false;
        }
        request.defer.iter().any(|n| n == name)
            || setup.config.defers(name, definition.is_deferred())
    }

    /// The `tools` of a request with deferred tools, in the provider's form; `pinned` are sent
    /// in full whatever the rules say (the tools the tool choice names).
    pub(crate) fn deferred_list(
        &self,
        provider: Provider,
        list: &ProviderTools<'_>,
        request: &ToolRequest,
        pinned: &[usize],
    ) -> Option<Value> {
        let setup = self.search.as_deref()?;
        let deferred: Vec<bool> = (0..self.tools.len())
            .map(|at| !pinned.contains(&at) && self.deferred_in(setup, request, at))
            .collect();
        if !deferred.contains(&true) {
            return None;
        }
        let spec = spec(provider);
        let search_entry = self.search_entry(provider)?;
        let Some(native) = spec.defer else {
            // No deferral: the tools found in the conversation go, and the search function.
            let loaded = request.conversation.as_ref();
            let mut entries: Vec<&Value> = list
                .entries()
                .iter()
                .enumerate()
                .filter(|(at, _)| {
                    !deferred[*at]
                        || loaded.is_some_and(|c| c.is_loaded(self.tools[*at].definition().name()))
                })
                .map(|(_, entry)| *entry)
                .collect();
            entries.push(search_entry);
            return Some(ProviderTools::of(provider, entries).to_value());
        };
        let mut out: Vec<Value> = Vec::with_capacity(list.entries().len() + 1);
        for (at, entry) in list.entries().iter().enumerate() {
            let mut entry = (*entry).clone();
            if !deferred[at] {
                out.push(entry);
                continue;
            }
            if let Value::Object(map) = &mut entry {
                map.insert("defer_loading".into(), Value::Bool(true));
            }
            let namespace = self.tools[at].definition().namespace();
            place(&mut out, entry, namespace.filter(|_| native.namespaces));
        }
        out.push((native.search_entry)(setup.config.searcher, search_entry));
        Some(Value::Array(out))
    }

    /// The tools a search result found, as the provider's result carries them: each tool's entry
    /// in the provider's form (in its namespace, where the provider groups them).
    pub(crate) fn found_entries(
        &self,
        provider: Provider,
        result: &ToolResult,
    ) -> Option<Vec<Value>> {
        let ResultDetail::Found { tools } = &result.detail else {
            return None;
        };
        let namespaces = spec(provider).defer.is_some_and(|native| native.namespaces);
        let mut out: Vec<Value> = Vec::with_capacity(tools.len());
        for name in tools {
            let Some(tool) = self.get(name) else { continue };
            let definition = tool.definition();
            let form = self.form(provider, definition.strict().unwrap_or(self.strict));
            let entry = definition.provider_entry(form).clone();
            place(
                &mut out,
                entry,
                definition.namespace().filter(|_| namespaces),
            );
        }
        Some(out)
    }

    /// A call's tool, with the toolbox's search on: the search tool's calls answered, and a
    /// deferred tool's call refused when the conversation has not found it and the setting says
    /// so.
    #[cold]
    #[inline(never)]
    #[expect(
        clippy::result_large_err,
        reason = "the error is the very result execution returns; boxing it would only cost the caller"
    )]
    pub(crate) fn lookup_searching(
        &self,
        setup: &SearchSetup,
        call: &ToolCall,
        caller: Option<&Caller>,
        conversation: Option<&Conversation>,
    ) -> Result<(usize, &Arc<dyn ErasedTool<C>>), ToolResult> {
        if is_search_call(setup, call) {
            // Arguments cut off are read as any read-only tool's are (the search is one).
            if call.status == CallStatus::Incomplete && !setup.definition.runs_cut_off(&self.policy)
            {
                return Err(ToolResult::invalid_arguments(
                    call,
                    ToolName::from(call.name.as_str()),
                    ArgumentError::IncompleteCall,
                ));
            }
            let result = self.answer_search(setup, call, caller);
            if let (Some(conversation), ResultDetail::Found { tools }) =
                (conversation, &result.detail)
            {
                conversation.load(tools.iter());
            }
            return Err(result);
        }
        let (at, tool) = self.lookup_for(call, caller)?;
        let unloaded = setup.config.unloaded == UnloadedCalls::Refuse
            && setup
                .config
                .defers(tool.definition().name(), tool.definition().is_deferred())
            && conversation.is_some_and(|c| !c.is_loaded(tool.definition().name()));
        if unloaded {
            return Err(ToolResult::error(
                &call.call_id,
                tool.definition().shared_name(),
                format!(
                    "the tool {} is not loaded yet: call {} with what you need it for first, then call the tool it finds",
                    echo::Name(&call.name),
                    echo::Name(setup.config.name()),
                ),
                ResultDetail::Denied,
            ));
        }
        Ok((at, tool))
    }

    /// The search tool's answer to `call`: the deferred tools found for its `query` (or, for a
    /// Responses client search sent with its default arguments, the tools named in `paths`),
    /// among those `caller` may call.
    fn answer_search(
        &self,
        setup: &SearchSetup,
        call: &ToolCall,
        caller: Option<&Caller>,
    ) -> ToolResult {
        let name = ToolName::from(call.name.as_str());
        // The deferred tools the caller may call: the others are in every request already.
        let found = self.find(setup, call).map(|found| {
            found
                .filter(|definition| self.is_deferred(definition.name()))
                .filter(|definition| caller.is_none_or(|caller| self.permits(caller, definition)))
                .take(setup.config.limit)
                .collect::<Vec<_>>()
        });
        let found = match found {
            Ok(found) => found,
            Err(message) => {
                return ToolResult::error(
                    &call.call_id,
                    name,
                    message,
                    ResultDetail::Found {
                        tools: Box::new([]),
                    },
                );
            }
        };
        let listed: Vec<Value> = found
            .iter()
            .map(|d| json!({"name": d.name(), "description": d.description()}))
            .collect();
        let text = if listed.is_empty() {
            "No tool matched; try other words.".to_owned()
        } else {
            Value::Array(listed).to_string()
        };
        let mut result = ToolResult::error(
            &call.call_id,
            name,
            text,
            ResultDetail::Found {
                tools: found.iter().map(|d| d.shared_name()).collect(),
            },
        );
        result.is_error = false;
        result
    }

    /// Every tool a search call finds, best first; or what is wrong with the call, for the
    /// model. It takes `pattern` (a regular expression, as Anthropic's regex tool), `query`, the
    /// strings of whatever else the model was given to fill (a Responses client search the
    /// application declared: `goal`, say), or `paths` (Responses' default client arguments).
    fn find<'a>(
        &'a self,
        setup: &SearchSetup,
        call: &ToolCall,
    ) -> Result<Box<dyn Iterator<Item = &'a ToolDefinition> + 'a>, String> {
        // A search's arguments are a few words: longer text is refused before it is read
        // (serde_json's depth limit bounds the rest).
        if let Arguments::Text(text) = &call.arguments
            && text.len() > MAX_ARGUMENTS
        {
            return Err(format!(
                "the search's arguments are {} bytes long, over {MAX_ARGUMENTS}: say in a few words what the tool should do",
                text.len()
            ));
        }
        let read;
        let arguments: &Map<String, Value> = match &call.arguments {
            Arguments::Json(Value::Object(map)) => map,
            Arguments::Text(text) => {
                read = match serde_json::from_str(text) {
                    Ok(Value::Object(map)) => map,
                    _ => Map::new(),
                };
                &read
            }
            Arguments::Json(_) => {
                read = Map::new();
                &read
            }
        };
        let definition = |name: &str| self.get(name).map(|tool| tool.definition());
        if let Some(pattern) = arguments.get("pattern").and_then(Value::as_str) {
            let names = self
                .index()
                .regex(pattern, self.len())
                .map_err(|error| format!("{error}; write a shorter or simpler pattern"))?;
            return Ok(Box::new(names.into_iter().filter_map(definition)));
        }
        let query = if let Some(query) = arguments.get("query").and_then(Value::as_str) {
            Some(query.to_owned())
        } else {
            let words: Vec<&str> = arguments
                .iter()
                .filter(|(key, _)| key.as_str() != "paths")
                .filter_map(|(_, value)| value.as_str())
                .collect();
            (!words.is_empty()).then(|| words.join(" "))
        };
        if let Some(query) = query {
            let hits = self.index().search(&query, self.len());
            return Ok(Box::new(
                hits.into_iter().filter_map(move |hit| definition(hit.name)),
            ));
        }
        if let Some(Value::Array(paths)) = arguments.get("paths") {
            // A tool's name, or a namespace's path to it (`mail.send_email`).
            let found: Vec<&ToolDefinition> = paths
                .iter()
                .filter_map(Value::as_str)
                .filter_map(|path| {
                    definition(path)
                        .or_else(|| path.rsplit_once('.').and_then(|(_, name)| definition(name)))
                })
                .collect();
            return Ok(Box::new(found.into_iter()));
        }
        Err(format!(
            "{} takes {{\"query\": \"...\"}}: say in a few words what the tool should do (or {{\"pattern\": \"...\"}}, a regular expression)",
            echo::Name(setup.config.name())
        ))
    }
}

/// Puts a tool's entry in a list: in its namespace's group (made where the namespace's first tool
/// stands), or on its own.
fn place(out: &mut Vec<Value>, entry: Value, namespace: Option<&Namespace>) {
    let Some(namespace) = namespace else {
        out.push(entry);
        return;
    };
    let group = out
        .iter_mut()
        .find(|group| group["type"] == "namespace" && group["name"] == namespace.name());
    match group.and_then(|group| group.get_mut("tools")) {
        Some(Value::Array(tools)) => tools.push(entry),
        _ => out.push(json!({
            "type": "namespace",
            "name": namespace.name(),
            "description": namespace.description(),
            "tools": [entry],
        })),
    }
}

/// Whether `call` is of the search tool: the toolbox's function, or a Responses
/// `tool_search_call` the client runs.
fn is_search_call(setup: &SearchSetup, call: &ToolCall) -> bool {
    match call.kind {
        CallKind::Function => call.name == setup.config.name(),
        CallKind::Builtin => call.name == "tool_search",
        CallKind::Server => false,
    }
}

/// Whether a tool named `name` goes to some provider as `search`, the search tool's name (its
/// own name, or a stand-in: `search.tools` is sent as `search_tools`).
pub(crate) fn sent_as(name: &str, search: &str) -> bool {
    name == search || Provider::ALL.iter().any(|p| p.wire_name(name) == search)
}
