//! The requests beside tools: resources (list, templates, read, subscribe, unsubscribe),
//! prompts (list, get), completion and `logging/setLevel`, answered from what the server
//! declares or by the application's own handler for the parts it serves.

// Logging is deprecated from protocol revision 2026-07-28 on (SEP-2577), and clients before it
// still set the level: `logging/setLevel` is served for them.
#![expect(
    deprecated,
    reason = "logging/setLevel is served for clients before revision 2026-07-28"
)]

use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ErrorData, GetPromptRequestParams,
    GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    LoggingLevel, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, SetLevelRequestParams, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use toolwright_runtime::__mcp::EchoName;
use toolwright_runtime::exec::{Caller, LogLevel};

use super::delegate::Delegate;
use super::offer::{PromptArguments, ResourceRead};
use super::{McpServer, caller_of};
use crate::content::to_contents;

/// The parts of the protocol an application's handler may serve instead.
#[derive(Clone, Copy)]
enum Area {
    Resources,
    Prompts,
    Completions,
    Logging,
}

/// Whether `caller` (none: anyone) holds every one of `scopes`.
fn permits(caller: Option<&Caller>, scopes: &[String]) -> bool {
    caller.is_none_or(|caller| caller.has_scopes(scopes))
}

/// One page of `items` from `cursor`: the page and the next page's cursor.
pub(super) fn page<T: Clone>(
    items: &[&T],
    cursor: Option<String>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|at| *at <= items.len())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!(
                        "invalid cursor {}: use the `nextCursor` of the page before",
                        EchoName(&cursor)
                    ),
                    None,
                )
            })?,
    };
    let end = start.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((
        items[start..end].iter().map(|&item| item.clone()).collect(),
        next,
    ))
}

pub(super) fn log_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

/// rmcp's level for `level`.
pub(super) fn logging_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        _ => LoggingLevel::Emergency,
    }
}

/// A prompt's arguments as the client sent them: strings as they are, any other JSON as its
/// text.
fn prompt_arguments(arguments: Option<serde_json::Map<String, Value>>) -> PromptArguments {
    arguments
        .into_iter()
        .flatten()
        .map(|(name, value)| {
            let value = match value {
                Value::String(text) => text,
                other => other.to_string(),
            };
            (name, value)
        })
        .collect()
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// The application's handler, when it serves `area`.
    fn delegate(&self, area: Area) -> Option<&Arc<dyn Delegate>> {
        let handler = self.handler.as_ref()?;
        let capabilities = handler.capabilities();
        let serves = match area {
            Area::Resources => capabilities.resources.is_some(),
            Area::Prompts => capabilities.prompts.is_some(),
            Area::Completions => capabilities.completions.is_some(),
            Area::Logging => capabilities.logging.is_some(),
        };
        serves.then_some(handler)
    }

    pub(super) async fn answer_list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if let Some(handler) = self.delegate(Area::Resources) {
            return handler.list_resources(request, context).await;
        }
        let offers = self.offers();
        let caller = caller_of(&context);
        let visible: Vec<_> = offers
            .resources
            .iter()
            .filter(|resource| permits(caller.as_ref(), &resource.scopes))
            .map(|resource| &resource.entry)
            .collect();
        let (items, next) = page(&visible, request.and_then(|r| r.cursor), self.page_size)?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(hinted!(self.cache_hints, result))
    }

    pub(super) async fn answer_list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        if let Some(handler) = self.delegate(Area::Resources) {
            return handler.list_resource_templates(request, context).await;
        }
        let offers = self.offers();
        let caller = caller_of(&context);
        let visible: Vec<_> = offers
            .templates
            .iter()
            .filter(|template| permits(caller.as_ref(), &template.scopes))
            .map(|template| &template.entry)
            .collect();
        let (items, next) = page(&visible, request.and_then(|r| r.cursor), self.page_size)?;
        let mut result = ListResourceTemplatesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(hinted!(self.cache_hints, result))
    }

    pub(super) async fn answer_read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if let Some(handler) = self.delegate(Area::Resources) {
            return handler.read_resource(request, context).await;
        }
        let offers = self.offers();
        let caller = caller_of(&context);
        let uri = request.uri;
        let found = offers
            .resources
            .iter()
            .find(|resource| resource.uri() == uri)
            .filter(|resource| permits(caller.as_ref(), &resource.scopes))
            .map(|resource| (Arc::clone(&resource.read), HashMap::new()))
            .or_else(|| {
                offers
                    .templates
                    .iter()
                    .filter(|template| permits(caller.as_ref(), &template.scopes))
                    .find_map(|template| {
                        let variables = template.matches(&uri)?;
                        Some((Arc::clone(&template.read), variables))
                    })
            });
        let Some((read, variables)) = found else {
            return Err(ErrorData::resource_not_found(
                format!("no resource at {}", EchoName(&uri)),
                Some(json!({"uri": uri})),
            ));
        };
        drop(offers);
        let contents = read(ResourceRead { uri, variables }).await?;
        let result = ReadResourceResult::new(contents.iter().map(to_contents).collect());
        Ok(hinted!(self.cache_hints, result).into())
    }

    pub(super) async fn answer_subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(handler) = self.delegate(Area::Resources) {
            return handler.subscribe(request, context).await;
        }
        // Updates go to a session: without one, nothing could ever reach the subscriber.
        let parts = context.extensions.get::<http::request::Parts>();
        if parts.is_some_and(|parts| !parts.headers.contains_key(&super::SESSION_ID)) {
            return Err(ErrorData::invalid_request(
                "resources/subscribe needs a session, and this request has none (stateless \
                 HTTP): updates could never reach you. Use a server with sessions, or \
                 subscriptions/listen (protocol revision 2026-07-28)",
                None,
            ));
        }
        let offers = self.offers();
        let caller = caller_of(&context);
        let uri = request.uri;
        let visible =
            offers.resources.iter().any(|resource| {
                resource.uri() == uri && permits(caller.as_ref(), &resource.scopes)
            }) || offers.templates.iter().any(|template| {
                template.matches(&uri).is_some() && permits(caller.as_ref(), &template.scopes)
            });
        if !visible {
            return Err(ErrorData::resource_not_found(
                format!("no resource at {} to subscribe to", EchoName(&uri)),
                Some(json!({"uri": uri})),
            ));
        }
        let mut subscriptions = self
            .session
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !subscriptions.contains(&uri) && subscriptions.len() >= self.max_subscriptions {
            return Err(ErrorData::invalid_params(
                format!(
                    "this session is subscribed to {} resources, the most allowed: unsubscribe \
                     from one first",
                    subscriptions.len()
                ),
                Some(json!({"limit": self.max_subscriptions})),
            ));
        }
        subscriptions.insert(uri);
        Ok(())
    }

    pub(super) async fn answer_unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(handler) = self.delegate(Area::Resources) {
            return handler.unsubscribe(request, context).await;
        }
        self.session
            .subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&request.uri);
        Ok(())
    }

    pub(super) async fn answer_list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        if let Some(handler) = self.delegate(Area::Prompts) {
            return handler.list_prompts(request, context).await;
        }
        let offers = self.offers();
        let caller = caller_of(&context);
        let visible: Vec<_> = offers
            .prompts
            .iter()
            .filter(|prompt| permits(caller.as_ref(), &prompt.scopes))
            .map(|prompt| &prompt.entry)
            .collect();
        let (items, next) = page(&visible, request.and_then(|r| r.cursor), self.page_size)?;
        let mut result = ListPromptsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(hinted!(self.cache_hints, result))
    }

    pub(super) async fn answer_get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if let Some(handler) = self.delegate(Area::Prompts) {
            return handler.get_prompt(request, context).await;
        }
        let offers = self.offers();
        let caller = caller_of(&context);
        let visible = |prompt: &&super::Prompt| permits(caller.as_ref(), &prompt.scopes);
        let Some(prompt) = offers
            .prompts
            .iter()
            .filter(visible)
            .find(|prompt| prompt.name() == request.name)
        else {
            let known: Vec<&str> = offers
                .prompts
                .iter()
                .filter(visible)
                .map(super::Prompt::name)
                .collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt {}. Prompts: {}",
                    EchoName(&request.name),
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known
                            .iter()
                            .map(|name| format!("`{name}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
                Some(json!({"name": request.name})),
            ));
        };
        let arguments = prompt_arguments(request.arguments);
        let missing = prompt.missing(&arguments);
        if !missing.is_empty() {
            return Err(ErrorData::invalid_params(
                format!(
                    "prompt `{}` needs the argument{} {}",
                    prompt.name(),
                    if missing.len() == 1 { "" } else { "s" },
                    missing
                        .iter()
                        .map(|name| format!("`{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Some(json!({"missing": missing})),
            ));
        }
        let get = Arc::clone(&prompt.get);
        drop(offers);
        Ok(get(arguments).await?.into())
    }

    pub(super) async fn answer_complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        if let Some(handler) = self.delegate(Area::Completions) {
            return handler.complete(request, context).await;
        }
        let offers = self.offers();
        let caller = caller_of(&context);
        let completer = match &request.r#ref {
            Reference::Prompt(reference) => offers
                .prompts
                .iter()
                .find(|prompt| {
                    prompt.name() == reference.name && permits(caller.as_ref(), &prompt.scopes)
                })
                .map(|prompt| prompt.completions.get(&request.argument.name)),
            Reference::Resource(reference) => offers
                .templates
                .iter()
                .find(|template| {
                    template.entry.uri_template == reference.uri
                        && permits(caller.as_ref(), &template.scopes)
                })
                .map(|template| template.completions.get(&request.argument.name)),
            _ => None,
        };
        let Some(completer) = completer else {
            return Err(ErrorData::invalid_params(
                "no such prompt or resource template to complete the arguments of",
                None,
            ));
        };
        let others = request
            .context
            .and_then(|context| context.arguments)
            .unwrap_or_default();
        let values = completer.map_or_else(Vec::new, |complete| {
            complete(&request.argument.value, &others)
        });
        let total = values.len();
        let mut values = values;
        values.truncate(CompletionInfo::MAX_VALUES);
        let mut completion = CompletionInfo::new(values).unwrap_or_default();
        completion.total = Some(u32::try_from(total).unwrap_or(u32::MAX));
        completion.has_more = Some(total > CompletionInfo::MAX_VALUES);
        Ok(CompleteResult::new(completion))
    }

    pub(super) async fn answer_set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.set_log_level(log_level(request.level));
        match self.delegate(Area::Logging) {
            Some(handler) => handler.set_level(request, context).await,
            None => Ok(()),
        }
    }
}
