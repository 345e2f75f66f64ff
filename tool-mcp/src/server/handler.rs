//! rmcp's handler: each request of the protocol answered by the server's part for it.

use std::sync::Arc;

use rmcp::ServerHandler;
#[expect(
    deprecated,
    reason = "logging is deprecated from revision 2026-07-28 on (SEP-2577); clients before it set the level"
)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, ErrorData, GetPromptRequestParams, GetPromptResponse, GetTaskParams,
    GetTaskResult, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, TASKS_EXTENSION_ID, Tool as McpTool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};

use super::requests::page;
use super::session::conversation_of;
use super::{Listener, McpServer, auth, caller_of};
use crate::telemetry::{Target, Traced, served};

impl<C: Send + Sync + 'static> ServerHandler for McpServer<C> {
    #[expect(
        deprecated,
        reason = "logging is deprecated from revision 2026-07-28 on (SEP-2577); clients before it use it"
    )]
    fn get_info(&self) -> ServerConfig {
        let offers = self.offers();
        let handler = self.handler.as_ref().map(|handler| handler.capabilities());
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_logging()
            .build();
        if self.tasks.is_some() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), serde_json::Map::default());
        }
        capabilities.resources = match &handler {
            Some(theirs) if theirs.resources.is_some() => theirs.resources.clone(),
            _ => offers.has_resources().then(|| {
                let mut resources = rmcp::model::ResourcesCapability::default();
                resources.subscribe = Some(true);
                resources.list_changed = Some(true);
                resources
            }),
        };
        capabilities.prompts = match &handler {
            Some(theirs) if theirs.prompts.is_some() => theirs.prompts.clone(),
            _ => (!offers.prompts.is_empty()).then(|| {
                let mut prompts = rmcp::model::PromptsCapability::default();
                prompts.list_changed = Some(true);
                prompts
            }),
        };
        capabilities.completions = match &handler {
            Some(theirs) if theirs.completions.is_some() => theirs.completions.clone(),
            _ => offers.has_completions().then(Default::default),
        };
        let mut config = (*self.init).clone();
        config.capabilities = capabilities;
        config
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let traced = Traced::server("tools/list", Target::None, &context);
        let answer = self.answer_list_tools(request, &context);
        served(traced, std::future::ready(answer), |_| false).await
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        // `name` is the name the client calls: the one in the list. rmcp asks outside a
        // request context (to check `Mcp-Param-*` headers against the tool's schema); the
        // caller comes from the authorization layer's task-local, so that a tool the caller may
        // not call is as absent here as in `tools/list`.
        let listing = self.listing();
        let (tool, toolbox_name) = listing
            .tools
            .iter()
            .zip(&listing.names)
            .find(|(tool, _)| tool.name == name)?;
        let hidden = auth::CALLER
            .try_with(|caller| !listing.toolbox.may_call(caller, toolbox_name))
            .unwrap_or(false);
        (!hidden).then(|| tool.clone())
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + rmcp::service::MaybeSendFuture + '_
    {
        // Not boxed, and no `async fn` around it (which would keep the request and its context
        // once more). rmcp spawns each request's handling with the future of whichever method
        // serves it inline, so the largest method future is what every request's task moves
        // around: the call's is kept at about 2 KB (`-Zprint-type-sizes`; its rare approval path
        // is boxed where it is taken), which grows rmcp's 7.3 KB task by 128 bytes, where a box
        // cost one more large allocation and copy per call (BENCHMARKS.md, "MCP cost").
        let traced = Traced::server("tools/call", Target::Tool(&request.name), &context);
        served(
            traced,
            self.call(request, context),
            |response| matches!(response, CallToolResponse::Complete(result) if result.is_error == Some(true)),
        )
    }

    fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<InitializeResult, ErrorData>> + rmcp::service::MaybeSendFuture + '_
    {
        let traced = Traced::server("initialize", Target::None, &context);
        // rmcp's own `initialize`, traced.
        context.peer.set_peer_info(request.clone());
        served(
            traced,
            std::future::ready(self.negotiate_initialize(&request)),
            |_| false,
        )
    }

    fn ping(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + rmcp::service::MaybeSendFuture + '_ {
        let traced = Traced::server("ping", Target::None, &context);
        served(traced, std::future::ready(Ok(())), |()| false)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let traced = Traced::server("tasks/get", Target::None, &context);
        served(traced, self.answer_get_task(request, &context), |_| false).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let traced = Traced::server("tasks/update", Target::None, &context);
        served(traced, self.answer_update_task(request, &context), |()| {
            false
        })
        .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let traced = Traced::server("tasks/cancel", Target::None, &context);
        served(traced, self.answer_cancel_task(request, &context), |()| {
            false
        })
        .await
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.listen_to(Listener::Session(context.peer, Arc::clone(&self.session)));
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let traced = Traced::server("resources/list", Target::None, &context);
        served(
            traced,
            Box::pin(self.answer_list_resources(request, context)),
            |_| false,
        )
        .await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let traced = Traced::server("resources/templates/list", Target::None, &context);
        served(
            traced,
            Box::pin(self.answer_list_resource_templates(request, context)),
            |_| false,
        )
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let traced = Traced::server("resources/read", Target::Resource(&request.uri), &context);
        served(
            traced,
            Box::pin(self.answer_read_resource(request, context)),
            |_| false,
        )
        .await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let traced = Traced::server(
            "resources/subscribe",
            Target::Resource(&request.uri),
            &context,
        );
        served(
            traced,
            Box::pin(self.answer_subscribe(request, context)),
            |()| false,
        )
        .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let traced = Traced::server(
            "resources/unsubscribe",
            Target::Resource(&request.uri),
            &context,
        );
        served(
            traced,
            Box::pin(self.answer_unsubscribe(request, context)),
            |()| false,
        )
        .await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let traced = Traced::server("prompts/list", Target::None, &context);
        served(
            traced,
            Box::pin(self.answer_list_prompts(request, context)),
            |_| false,
        )
        .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let traced = Traced::server("prompts/get", Target::Prompt(&request.name), &context);
        served(
            traced,
            Box::pin(self.answer_get_prompt(request, context)),
            |_| false,
        )
        .await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let traced = Traced::server("completion/complete", Target::None, &context);
        served(
            traced,
            Box::pin(self.answer_complete(request, context)),
            |_| false,
        )
        .await
    }

    #[expect(
        deprecated,
        reason = "logging is deprecated from revision 2026-07-28 on (SEP-2577); clients before it set the level"
    )]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let traced = Traced::server("logging/setLevel", Target::None, &context);
        served(
            traced,
            Box::pin(self.answer_set_level(request, context)),
            |()| false,
        )
        .await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let offers = self.offers();
        let mut accepted = SubscriptionFilter::builder().tools_list_changed();
        if !offers.prompts.is_empty() {
            accepted = accepted.prompts_list_changed();
        }
        if offers.has_resources() {
            accepted = accepted.resources_list_changed();
        }
        let mut accepted = accepted.build();
        // Each resource asked for that exists, up to the subscription limit.
        if offers.has_resources() {
            accepted.resource_subscriptions =
                requested.resource_subscriptions.as_ref().map(|uris| {
                    uris.iter()
                        .filter(|uri| offers.knows(uri))
                        .take(self.max_subscriptions)
                        .cloned()
                        .collect()
                });
        }
        Some(accepted)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        let id = sink.id().clone();
        self.listen_to(Listener::Subscription(sink));
        context.cancelled().await;
        self.forget_subscription(&id);
        Ok(())
    }
}

impl<C: Send + Sync + 'static> McpServer<C> {
    fn answer_list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listing = self.listing();
        let caller = caller_of(context);
        // With tool search on, the deferred tools wait until the session's search finds them.
        let conversation = listing.search.as_ref().map(|_| {
            let parts = context.extensions.get::<http::request::Parts>();
            let has_session =
                parts.is_none_or(|parts| parts.headers.contains_key(&super::SESSION_ID));
            conversation_of(
                &self.session,
                &self.shared.callers,
                has_session,
                caller.as_ref(),
            )
        });
        // A caller sees only the tools it may call.
        let mut visible: Vec<&McpTool> = listing
            .tools
            .iter()
            .zip(&listing.names)
            .zip(&listing.deferred)
            .filter(|((_, name), deferred)| {
                !**deferred || conversation.as_ref().is_some_and(|c| c.is_loaded(name))
            })
            .filter(|((_, name), _)| {
                caller
                    .as_ref()
                    .is_none_or(|caller| listing.toolbox.may_call(caller, name))
            })
            .map(|((tool, _), _)| tool)
            .collect();
        visible.extend(listing.search.as_ref());
        let (tools, next) = page(&visible, request.and_then(|r| r.cursor), self.page_size)?;
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next;
        Ok(hinted!(self.cache_hints, result))
    }
}
