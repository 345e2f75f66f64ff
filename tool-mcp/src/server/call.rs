//! One `tools/call` served: approval asked of the client (elicitation) where a call is held,
//! progress forwarded, cancellation heeded, the result written as MCP's.

// Logging is deprecated from protocol revision 2026-07-28 on (SEP-2577); clients before it
// still get a tool's log messages.
#![expect(
    deprecated,
    reason = "notifications/message is sent to clients before revision 2026-07-28"
)]

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use crate::content::into_block;
use rmcp::Peer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequestParams,
    ElicitationAction, ErrorData, InputRequests, InputRequiredResult, InputResponses,
    LoggingMessageNotificationParam, NumberOrString, ProgressNotificationParam, ProgressToken,
    ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolwright_runtime::__mcp::{
    approval_params, error_result, found_entries, is_search_call, lookup, schema_type,
    structured_content, tool_name,
};
use toolwright_runtime::tasks::TaskInput;
use toolwright_runtime::{
    Arguments, CallId, Content, ResultDetail, ToolCall, ToolName, ToolResult, Toolbox,
    exec::{
        BatchOptions, Caller, Cancellation, Listen, LogLevel, LogMessage, Progress, ProgressSink,
    },
};

use super::ask::{AskClient, AskError, Round, before_2026_07_28};
use super::requests::{log_level, logging_level};
use super::session::conversation_of;
use super::sessions::SseStream;
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

/// Whether a request on `version` is on a protocol revision before 2026-07-28 it names: a
/// session's, with server-to-client requests and a log level set for the session.
fn legacy(version: Option<&ProtocolVersion>) -> bool {
    version.is_some() && before_2026_07_28(version)
}

/// Whether a call's result may carry `structuredContent` of the tool's `output_schema` for a
/// request on `version`. Before 2026-07-28 (and without a version, as rmcp reads it) only an
/// object is sent (SEP-2106: rmcp drops any other value, and the text already holds it), so a
/// schema that says the output is not an object has nothing worth computing.
pub(super) fn takes_structured(version: Option<&ProtocolVersion>, output_schema: &Value) -> bool {
    !before_2026_07_28(version) || schema_type(output_schema).is_none_or(|kind| kind == "object")
}

/// The JSON-RPC error for a call of a tool the server does not have: `-32602`, with the
/// toolbox's own unknown-tool message (the close matches, the tools there are) and the close
/// matches in `data`.
/// A search's answer on MCP: the found tools' `tools/list` entries, as JSON text (a client that
/// lists no more tools still has their schemas, and calls them by name); and, on a session,
/// `notifications/tools/list_changed`, after which its `tools/list` holds them.
async fn found_tools<C: Send + Sync + 'static>(
    toolbox: &Toolbox<C>,
    result: &mut ToolResult,
    context: &RequestContext<RoleServer>,
    has_session: bool,
) {
    let Some(found) = found_entries(toolbox, result) else {
        return;
    };
    if found.is_empty() {
        return;
    }
    result.content = Content::text_part(json!({"tools": found}).to_string());
    if has_session {
        // A client that has gone misses nothing it could use.
        let _ = context.peer.notify_tool_list_changed().await;
    }
}

fn unknown_tool(result: &ToolResult) -> ErrorData {
    let matches = match &result.detail {
        ResultDetail::UnknownTool { suggestions } => suggestions.to_vec(),
        _ => Vec::new(),
    };
    ErrorData::invalid_params(result.text(), Some(json!({"closeMatches": matches})))
}

/// What a call learns from the HTTP request it came on (read in one place).
struct FromHttp {
    /// Whether the request is on a session: stdio's, or a Streamable HTTP one.
    has_session: bool,
    /// Who the request is made for, when an authenticating layer said.
    caller: Option<Caller>,
    /// The call's stop signal.
    stop: Cancellation,
}

/// What a running call tells its client besides its result.
enum Notice {
    Progress(Progress),
    Log(LogMessage),
}

/// The notifications of one call: its progress reports (when the request carried a progress
/// token) and its log messages (at the client's level or above), sent to the client in the order
/// the tool made them. The task that sends them starts at the first (most calls make none), on the
/// runtime the call arrived on (a blocking tool reports from a thread of its own);
/// [`flush`](Self::flush) waits for it to send the last before the call's result goes out.
struct Notices {
    state: Arc<NoticeState>,
}

/// What the sink's reports and messages need, in one allocation (every call with a progress
/// token or a log level makes one, and most report nothing): it is the sink's listener itself.
struct NoticeState {
    sender: Mutex<Option<Sender>>,
    /// Whether the task was started (after `flush`, a notice has no call to go before).
    started: std::sync::atomic::AtomicBool,
    runtime: tokio::runtime::Handle,
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    /// The least level of the log messages the client wants, when it wants any.
    logs: Option<LogLevel>,
    /// The tool's name, the `logger` of its messages (shared, not copied).
    logger: ToolName,
}

struct Sender {
    notices: mpsc::UnboundedSender<Notice>,
    task: tokio::task::JoinHandle<()>,
}

impl NoticeState {
    fn send(&self, notice: Notice) {
        let mut slot = self.sender.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            if self.started.swap(true, std::sync::atomic::Ordering::AcqRel) {
                return;
            }
            let (notices, mut receiver) = mpsc::unbounded_channel::<Notice>();
            let (peer, token) = (self.peer.clone(), self.token.clone());
            let logger = self.logs.map(|_| self.logger.to_string());
            let task = self.runtime.spawn(async move {
                while let Some(notice) = receiver.recv().await {
                    let sent = match notice {
                        Notice::Progress(report) => {
                            let Some(token) = &token else { continue };
                            let mut param =
                                ProgressNotificationParam::new(token.clone(), report.progress);
                            param.total = report.total;
                            param.message = report.message;
                            peer.notify_progress(param).await
                        }
                        Notice::Log(message) => {
                            let mut param = LoggingMessageNotificationParam::new(
                                logging_level(message.level),
                                message.data,
                            );
                            param.logger.clone_from(&logger);
                            peer.notify_logging_message(param).await
                        }
                    };
                    if sent.is_err() {
                        break;
                    }
                }
            });
            *slot = Some(Sender { notices, task });
        }
        if let Some(sender) = &*slot {
            let _ = sender.notices.send(notice);
        }
    }
}

impl Listen for NoticeState {
    fn progress(&self, report: Progress) -> bool {
        if self.token.is_none() {
            return false;
        }
        self.send(Notice::Progress(report));
        true
    }

    fn log(&self, message: LogMessage) -> bool {
        let Some(level) = self.logs else {
            return false;
        };
        if message.level >= level {
            self.send(Notice::Log(message));
        }
        true
    }
}

impl Notices {
    /// `logs`: the least level of the log messages the client wants, when it wants any;
    /// `logger`: the tool's name.
    fn new(
        peer: &Peer<RoleServer>,
        token: Option<ProgressToken>,
        logs: Option<LogLevel>,
        logger: ToolName,
    ) -> (Self, ProgressSink) {
        let state = Arc::new(NoticeState {
            sender: Mutex::new(None),
            started: std::sync::atomic::AtomicBool::new(false),
            runtime: tokio::runtime::Handle::current(),
            peer: peer.clone(),
            token,
            logs,
            logger,
        });
        let sink = ProgressSink::to(Arc::clone(&state) as Arc<dyn Listen>);
        (Notices { state }, sink)
    }

    /// Sends every notice made so far; those made later are dropped (their call has answered).
    async fn flush(self) {
        let sender = self
            .state
            .sender
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(Sender { notices, task }) = sender {
            drop(notices);
            let _ = task.await;
        }
    }
}

/// The `CallToolResult` for a result, as [`Toolbox::encode_result`]
/// writes it for MCP (`structuredContent` by the same rule), built straight into rmcp's type.
pub(super) fn into_call_tool_result(
    result: ToolResult,
    output_schema: Option<&Value>,
) -> CallToolResult {
    let structured = structured_content(&result, output_schema);
    let meta = result
        .option("_meta")
        .and_then(|meta| serde_json::from_value(meta.clone()).ok());
    let is_error = result.is_error;
    // The parts moved into rmcp's blocks, not copied.
    let content = result.content.into_parts().map(into_block).collect();
    // Both constructors set `resultType: complete`, required from revision 2026-07-28 on; rmcp
    // clears it for clients on older ones.
    let mut encoded = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    encoded.structured_content = structured;
    encoded.meta = meta;
    encoded
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// Serves one `tools/call`. A future made by hand (`async move`), as is `answer_call`'s: an
    /// `async fn` keeps its arguments twice, as they came and as its body's own (measured with
    /// `-Zprint-type-sizes`: 3.7 KB, which `call_tool` boxed and copied at every call).
    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn keeps its arguments twice in its future"
    )]
    pub(super) fn call(
        &self,
        mut request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        async move {
            // The answers the client brought (MRTR): this round's, and those of the rounds
            // before, which the server's `requestState` carried (the client answers them all,
            // so trusting its echo gives it nothing it could not give).
            let mut answers = request
                .request_state
                .take()
                .and_then(|state| serde_json::from_str::<InputResponses>(&state).ok())
                .unwrap_or_default();
            answers.extend(request.input_responses.take().unwrap_or_default());
            let round = Arc::new(Round::new(answers));
            context.extensions.insert(Arc::clone(&round));
            // What the HTTP request says, read once: whether the request has a session
            // (stdio's, where there is no HTTP request, or a Streamable HTTP one), who it is
            // made for, and its own stop signal.
            let parts = context.extensions.get::<http::request::Parts>();
            let header = parts.and_then(|parts| parts.headers.get(&super::SESSION_ID));
            let http = FromHttp {
                has_session: parts.is_none() || header.is_some(),
                caller: parts.and_then(|parts| parts.extensions.get::<Caller>().cloned()),
                // Its client gone, or the server shutting down: raising it for a cancelled
                // call tells no one else, as the request is the call's alone. Without HTTP
                // (stdio), a signal of the call's own.
                stop: parts
                    .and_then(|parts| parts.extensions.get::<super::RequestGone>())
                    .map_or_else(Cancellation::new, |gone| gone.0.clone()),
            };
            // The stream the response goes on, for a call that closes it (`SseStream::of`).
            let stream = self.sessions.as_ref().and_then(|sessions| {
                let session = header?.to_str().ok()?;
                Some(SseStream::new(
                    Arc::clone(sessions),
                    session.into(),
                    context.id.clone(),
                ))
            });
            if let Some(stream) = &stream {
                context.extensions.insert(stream.clone());
            }
            let answer = self.answer_call(request, &context, &round, http).await;
            if let (Some(stream), Some(sessions)) = (&stream, &self.sessions) {
                stream.answered(sessions);
            }
            answer
        }
    }

    #[expect(
        clippy::manual_async_fn,
        reason = "an async fn keeps its arguments twice in its future"
    )]
    fn answer_call<'a>(
        &'a self,
        request: CallToolRequestParams,
        context: &'a RequestContext<RoleServer>,
        round: &'a Round,
        http: FromHttp,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'a {
        async move {
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
            let mut calls = [ToolCall::new(call_id(&context.id), name, arguments)];
            // A tool the caller may not call is unknown to it, answered in the same words.
            let searching = is_search_call(toolbox, &calls[0]);
            let (output_schema, logger, as_task) =
                match lookup(toolbox, &calls[0], http.caller.as_ref()) {
                    Ok((_, tool)) => (
                        tool.definition().output_schema(),
                        tool_name(tool),
                        self.runs_as_task(tool.definition(), context),
                    ),
                    // The toolbox's search tool: the toolbox answers it.
                    Err(_) if searching => (None, ToolName::from(name), false),
                    Err(unknown) => return Err(unknown_tool(&unknown)),
                };
            // The request's `_meta`, moved as it came (no copy).
            if let Some(meta) = request.meta
                && !meta.0.0.is_empty()
            {
                calls[0]
                    .metadata
                    .insert("_meta".into(), Value::Object(meta.0.0));
            }
            // A call that runs as a task: its questions go to the task (`AskClient`), set before
            // the context is made.
            if as_task {
                let _ = round.task.set(TaskInput::new());
            }
            let ctx = (self.shared.context)(context);
            let conversation = conversation_of(
                &self.session,
                &self.shared.callers,
                http.has_session,
                http.caller.as_ref(),
            );
            if as_task {
                let [call] = calls;
                // Boxed: the rare task path stays out of every call's future.
                let started =
                    self.start_task(call, ctx, conversation, http.caller, output_schema, context);
                return Box::pin(started).await;
            }
            let mut options = BatchOptions::new().in_conversation(conversation);
            if let Some(caller) = http.caller {
                options = options.on_behalf_of(caller);
            }
            // Log messages the client wants: at the request's level (2026-07-28, where a
            // request without one wants none), else at the session's (everything until it
            // sets one).
            let version = context.protocol_version();
            let logs = match context.meta.log_level() {
                Some(level) => Some(log_level(level)),
                None if legacy(version.as_ref()) => {
                    Some(self.session.log_level().unwrap_or(LogLevel::Debug))
                }
                None => None,
            };
            let output_schema =
                output_schema.filter(|schema| takes_structured(version.as_ref(), schema));
            let token = context.meta.get_progress_token();
            let notices = if logs.is_some() || token.is_some() {
                let (notices, sink) = Notices::new(&context.peer, token, logs, logger);
                options = options.progress(sink);
                Some(notices)
            } else {
                None
            };
            let stop = http.stop;
            let batch = std::pin::pin!(toolbox.execute_all_with(
                &calls,
                &ctx,
                options.stop_signal(stop.clone())
            ));
            let result = run_until_stopped(batch, context, &stop).await?;
            // Every notification of the call goes out before its result: rmcp closes the
            // request's stream with the result, and a later one would be dropped.
            if let Some(notices) = notices {
                notices.flush().await;
            }
            let Some(mut result) = result else {
                return Err(ErrorData::internal_error("the call gave no result", None));
            };
            if searching {
                // Boxed, as `decide` is: inline, the search's future (1.2 KB) would make every
                // call's as large, and rmcp's task for each request, which is copied whole
                // several times a request (BENCHMARKS.md, "MCP cost").
                Box::pin(found_tools(toolbox, &mut result, context, http.has_session)).await;
            }
            if let Some(interrupt) = result.interrupt() {
                let message = interrupt.message.clone();
                // Boxed: asking the client and running the approved call make a future of
                // kilobytes, which inline would make every call's future as large (and
                // `call_tool`'s box copies it whole), for the few calls that need approval.
                if let Some(decided) =
                    Box::pin(self.decide(toolbox, &calls[0], &ctx, message, context)).await
                {
                    result = decided;
                }
            }
            // A question asked through MRTR (the approval's, or the tool's own): the call is
            // answered with it, and the client calls again with the answer.
            let asked = round.unanswered();
            if !asked.is_empty() {
                return Ok(input_required(round, asked));
            }
            Ok(into_call_tool_result(result, output_schema).into())
        }
    }

    /// A call that needs approval: asks the client's user (elicitation: on the session before
    /// revision 2026-07-28, through MRTR from it on), else answers that approval is needed.
    /// `None`: the question goes with the call's answer (`input_required`).
    async fn decide(
        &self,
        toolbox: &Toolbox<C>,
        call: &ToolCall,
        ctx: &C,
        message: String,
        context: &RequestContext<RoleServer>,
    ) -> Option<ToolResult> {
        let request = approval_params(call, &message);
        let answer = match (
            serde_json::from_value::<ElicitRequestParams>(request),
            AskClient::of(context),
        ) {
            (Ok(params), Some(ask)) => ask.elicit(APPROVAL, params).await,
            (Err(error), _) => Err(AskError::Failed(error.to_string())),
            (_, None) => Err(AskError::Unreachable("not a tools/call".to_owned())),
        };
        Some(match answer {
            Ok(answer)
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
            Ok(_) => toolbox.reject(call, ""),
            Err(AskError::InputRequired) => return None,
            Err(AskError::Failed(_)) => not_approved(
                call,
                format!(
                    "not run: this call needs a person's approval ({message}), and the client \
                     gave no answer"
                ),
            ),
            Err(_) => not_approved(
                call,
                format!(
                    "not run: this call needs a person's approval ({message}), and this MCP client \
                     cannot ask for it"
                ),
            ),
        })
    }
}

/// Runs a call's batch until it ends or a signal stops it: the request cancelled
/// (`notifications/cancelled`: its `context`'s token), or the call's `stop` signal raised (its client gone,
/// the server shutting down). A stopped call's tool sees it cancelled and may wind down for a
/// while; then it is dropped, and the call ends with an error (rmcp sends none for a cancelled
/// request).
async fn run_until_stopped(
    mut batch: Pin<&mut impl Future<Output = Vec<ToolResult>>>,
    context: &RequestContext<RoleServer>,
    stop: &Cancellation,
) -> Result<Option<ToolResult>, ErrorData> {
    let request = &context.ct;
    // The batch first (a call that ends at its first poll, as most do, waits on no signal), in
    // the order written (no random start, which costs each poll).
    let ran = tokio::select! {
        biased;
        mut results = batch.as_mut() => Some(results.pop()),
        () = request.cancelled() => None,
        () = stop.cancelled() => None,
    };
    // A signal raised before the batch ended ends the call, even when the tool saw it and made
    // a result of winding down: the client learns the call was cancelled.
    let message = if request.is_cancelled() {
        stop.cancel();
        "the request was cancelled"
    } else if stop.is_cancelled() {
        "the call was cancelled: its client went away, or the server is shutting down"
    } else {
        return Ok(ran.flatten());
    };
    if ran.is_none() {
        let _ = tokio::time::timeout(CANCEL_GRACE, batch).await;
    }
    Err(ErrorData::internal_error(message, None))
}

/// A request's id as a call's: a number written out on the stack (most clients number their
/// requests), with no string made for it first.
fn call_id(id: &NumberOrString) -> CallId {
    match id {
        NumberOrString::String(text) => CallId::from(&**text),
        NumberOrString::Number(number) => CallId::from(itoa::Buffer::new().format(*number)),
    }
}

/// The key of the approval question asked through MRTR.
const APPROVAL: &str = "toolwright/approval";

/// The `input_required` answer of a call with the questions `asked`: the answers so far ride in
/// `requestState`, so that a question answered in an earlier round stays answered.
fn input_required(round: &Round, asked: InputRequests) -> CallToolResponse {
    let state = serde_json::to_string(round.answers()).ok();
    CallToolResponse::InputRequired(InputRequiredResult::new(Some(asked), state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_is_the_call_id_as_written() {
        for (id, text) in [
            (NumberOrString::Number(0), "0"),
            (NumberOrString::Number(7), "7"),
            (NumberOrString::Number(1_234_567_890), "1234567890"),
            (NumberOrString::Number(-42), "-42"),
            (NumberOrString::Number(i64::MAX), "9223372036854775807"),
            (NumberOrString::Number(i64::MIN), "-9223372036854775808"),
            (NumberOrString::String("req-1".into()), "req-1"),
        ] {
            assert_eq!(call_id(&id), text);
            assert_eq!(call_id(&id), id.to_string());
        }
    }

    #[test]
    fn structured_content_is_left_out_only_where_rmcp_would_drop_it() {
        let (old, new) = (ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28);
        let integer = json!({"type": "integer"});
        let object = json!({"type": "object"});
        let untyped = json!({"anyOf": [{"type": "object"}, {"type": "null"}]});
        // Before 2026-07-28, and without a version: objects only.
        for version in [Some(&old), None] {
            assert!(!takes_structured(version, &integer));
            assert!(takes_structured(version, &object));
            // A schema that does not say: computed, and left to rmcp's rule.
            assert!(takes_structured(version, &untyped));
        }
        for schema in [&integer, &object, &untyped] {
            assert!(takes_structured(Some(&new), schema));
        }
    }
}
