//! One `tools/call` served: approval asked of the client (elicitation) where a call is held,
//! progress forwarded, cancellation heeded, the result written as MCP's.

use std::sync::{Mutex, PoisonError};

use rmcp::Peer;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ElicitRequestParams, ElicitationAction,
    ErrorData, ProgressNotificationParam, ProgressToken, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolwright_runtime::__mcp::{error_result, lookup, structured_content};
use toolwright_runtime::{
    Arguments, ContentPart, ResultDetail, ToolCall, ToolName, ToolResult, Toolbox,
    exec::{BatchOptions, Cancellation, Progress, ProgressSink},
};

use super::{CANCEL_GRACE, McpServer};

/// The error result of a call that needs approval nobody could give.
fn not_approved(call: &ToolCall, message: String) -> ToolResult {
    error_result(
        &call.call_id,
        ToolName::from(call.name.as_str()),
        message,
        ResultDetail::Denied,
    )
}

/// Whether the client can be asked: it offers form elicitation on a session that negotiated a
/// protocol revision with server-to-client requests (before 2026-07-28).
fn can_elicit(context: &RequestContext<RoleServer>) -> bool {
    let Some(info) = context.peer.peer_info() else {
        return false;
    };
    let legacy = info.protocol_version.as_str() < ProtocolVersion::V_2026_07_28.as_str();
    legacy
        && info
            .capabilities
            .elicitation
            .as_ref()
            .is_some_and(|modes| modes.form.is_some() || modes.url.is_none())
}

/// The JSON-RPC error for a call of a tool the server does not have: `-32602`, with the
/// toolbox's own unknown-tool message (the close matches, the tools there are) and the close
/// matches in `data`.
fn unknown_tool(result: &ToolResult) -> ErrorData {
    let matches = match &result.detail {
        ResultDetail::UnknownTool { suggestions } => suggestions.to_vec(),
        _ => Vec::new(),
    };
    ErrorData::invalid_params(result.text(), Some(json!({"closeMatches": matches})))
}

/// A sink whose reports go, in order, to the client as `notifications/progress`. The task that
/// sends them starts at the first report (most calls report none), on the runtime the call
/// arrived on (a blocking tool reports from a thread of its own), and ends when the sink is
/// dropped.
fn progress_forwarder(peer: Peer<RoleServer>, token: ProgressToken) -> ProgressSink {
    let runtime = tokio::runtime::Handle::current();
    let sender: Mutex<Option<mpsc::UnboundedSender<Progress>>> = Mutex::new(None);
    ProgressSink::new(move |report| {
        let mut sender = sender.lock().unwrap_or_else(PoisonError::into_inner);
        let sender = sender.get_or_insert_with(|| {
            let (sender, mut receiver) = mpsc::unbounded_channel::<Progress>();
            let (peer, token) = (peer.clone(), token.clone());
            runtime.spawn(async move {
                while let Some(report) = receiver.recv().await {
                    let mut param = ProgressNotificationParam::new(token.clone(), report.progress);
                    param.total = report.total;
                    param.message = report.message;
                    if peer.notify_progress(param).await.is_err() {
                        break;
                    }
                }
            });
            sender
        });
        let _ = sender.send(report);
    })
}

/// The `CallToolResult` for a result, as [`Toolbox::encode_result`]
/// writes it for MCP (`structuredContent` by the same rule), built straight into rmcp's type.
fn into_call_tool_result(result: &ToolResult, output_schema: Option<&Value>) -> CallToolResult {
    let content = result
        .content
        .iter()
        .map(|part| match part {
            ContentPart::Text { text } => ContentBlock::text(text.clone()),
            ContentPart::Image { data, mime_type } => {
                ContentBlock::image(data.clone(), mime_type.clone())
            }
            // A kind of part added to toolwright later: its JSON, as text, rather than nothing.
            other => ContentBlock::text(serde_json::to_string(other).unwrap_or_default()),
        })
        .collect();
    // Both constructors set `resultType: complete`, required from revision 2026-07-28 on; rmcp
    // clears it for clients on older ones.
    let mut encoded = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    encoded.structured_content = structured_content(result, output_schema);
    encoded.meta = result
        .option("_meta")
        .and_then(|meta| serde_json::from_value(meta.clone()).ok());
    encoded
}

impl<C: Send + Sync + 'static> McpServer<C> {
    pub(super) async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let listing = self.listing();
        let toolbox = &*listing.toolbox;
        let name = listing
            .stand_ins
            .get(request.name.as_ref())
            .map_or(request.name.as_ref(), String::as_str);
        let arguments = match request.arguments {
            Some(arguments) => Arguments::Json(Value::Object(arguments)),
            None => Arguments::default(),
        };
        let mut call = ToolCall::new(context.id.to_string(), name, arguments);
        // A tool the caller may not call is unknown to it, answered in the same words.
        let caller = super::caller_of(&context);
        let output_schema = match lookup(toolbox, &call, caller.as_ref()) {
            Ok((_, tool)) => tool.definition().output_schema().cloned(),
            Err(unknown) => return Err(unknown_tool(&unknown)),
        };
        if let Some(meta) = request.meta.as_ref()
            && let Ok(meta) = serde_json::to_value(meta)
            && !meta.as_object().is_some_and(serde_json::Map::is_empty)
        {
            call.metadata.insert("_meta".into(), meta);
        }
        let ctx = (self.shared.context)(&context);
        let calls = [call];
        let mut options = BatchOptions::new();
        if let Some(caller) = caller {
            options = options.on_behalf_of(caller);
        }
        if let Some(token) = context.meta.get_progress_token() {
            options = options.progress(progress_forwarder(context.peer.clone(), token));
        }
        let stop = Cancellation::new();
        // The HTTP request's own signal: its client gone, or the server shutting down.
        let gone = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<super::RequestGone>())
            .map_or_else(|| Cancellation::never().clone(), |gone| gone.0.clone());
        let batch = toolbox.execute_all_with(&calls, &ctx, options.stop_signal(stop.clone()));
        let mut batch = std::pin::pin!(batch);
        let result = tokio::select! {
            mut results = &mut batch => results.pop(),
            () = context.ct.cancelled() => {
                // The tool sees its call cancelled and may wind down for a while; then it is
                // dropped. rmcp sends no response to a cancelled request.
                stop.cancel();
                let _ = tokio::time::timeout(CANCEL_GRACE, &mut batch).await;
                return Err(ErrorData::internal_error("the request was cancelled", None));
            }
            () = gone.cancelled() => {
                stop.cancel();
                let _ = tokio::time::timeout(CANCEL_GRACE, &mut batch).await;
                return Err(ErrorData::internal_error(
                    "the call was cancelled: its client went away, or the server is shutting down",
                    None,
                ));
            }
        };
        let Some(mut result) = result else {
            return Err(ErrorData::internal_error("the call gave no result", None));
        };
        if let Some(interrupt) = result.interrupt() {
            let message = interrupt.message.clone();
            result = self
                .decide(toolbox, &calls[0], &ctx, message, &context)
                .await;
        }
        Ok(into_call_tool_result(&result, output_schema.as_ref()))
    }

    /// A call that needs approval: asks the client's user (elicitation) where the session
    /// allows it, else answers that approval is needed.
    async fn decide(
        &self,
        toolbox: &Toolbox<C>,
        call: &ToolCall,
        ctx: &C,
        message: String,
        context: &RequestContext<RoleServer>,
    ) -> ToolResult {
        if !can_elicit(context) {
            return not_approved(
                call,
                format!(
                    "not run: this call needs a person's approval ({message}), and this MCP client \
                     cannot ask for it"
                ),
            );
        }
        let arguments = serde_json::to_string(&call.arguments_as_map()).unwrap_or_default();
        let request = json!({
            "mode": "form",
            "message": format!(
                "The model wants to run `{}` with {arguments}: {message}. Approve?",
                call.name
            ),
            "requestedSchema": {
                "type": "object",
                "properties": {"approve": {"type": "boolean", "title": "Approve this call"}},
                "required": ["approve"],
            },
        });
        let answer = match serde_json::from_value::<ElicitRequestParams>(request) {
            Ok(params) => context.peer.create_elicitation(params).await.ok(),
            Err(_) => None,
        };
        match answer {
            Some(answer)
                if answer.action == ElicitationAction::Accept
                    && answer
                        .content
                        .as_ref()
                        .and_then(|content| content.get("approve"))
                        == Some(&Value::Bool(true)) =>
            {
                match super::caller_of(context) {
                    Some(caller) => toolbox.approve_for(call, ctx, &caller).await,
                    None => toolbox.approve(call, ctx).await,
                }
            }
            Some(_) => toolbox.reject(call, ""),
            None => not_approved(
                call,
                format!(
                    "not run: this call needs a person's approval ({message}), and the client \
                     gave no answer"
                ),
            ),
        }
    }
}
