//! Asking the client during a call (elicitation, sampling), whatever the connection: a request
//! on the session before protocol revision 2026-07-28, a round of MRTR (SEP-2322: the call is
//! answered `input_required`, the client retries it with the answers) from it on, and a clear
//! error at once where neither can reach the client.

// Sampling and elicitation as server-to-client requests are deprecated from revision
// 2026-07-28 on (SEP-2577); clients before it are asked that way.
#![expect(
    deprecated,
    reason = "clients before revision 2026-07-28 are asked with server-to-client requests"
)]

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::Peer;
use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, InputRequest, InputRequests, InputResponses,
    ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use toolwright_runtime::tasks::TaskInput;

/// How a call's questions reach its client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// A server-to-client request on the session (revisions before 2026-07-28).
    Session,
    /// A round of MRTR: the call is answered `input_required` with the questions (2026-07-28).
    Rounds,
    /// Neither: a request before 2026-07-28 without a session (stateless HTTP).
    Unreachable,
    /// The call runs as a task: its questions are the task's input requests (`tasks/get`),
    /// answered by `tasks/update`, whatever the revision.
    Task,
}

/// Why the client could not be asked, or did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// The question goes to the client with the call's answer (MRTR): the call is answered
    /// `input_required`, and the client calls again with the answers. Return at once: whatever
    /// the tool returns now is not sent.
    #[error(
        "the client is asked with the call's answer (input_required), and calls again with the answers"
    )]
    InputRequired,
    /// The client cannot be asked on this connection.
    #[error("the client cannot be asked: {0}")]
    Unreachable(String),
    /// The client does not offer what the question needs.
    #[error("the client does not offer {0}")]
    NotOffered(&'static str),
    /// The client answered with an error, or its answer could not be read.
    #[error("the client's answer: {0}")]
    Failed(String),
}

/// Asks the client of the call being served for input, on any connection: elicitation (a form
/// for the user) and sampling (a completion from the client's model). An
/// [`McpServer`](crate::McpServer) puts one in each `tools/call`'s request context; the context
/// maker of [`with_context`](crate::McpServer::with_context) hands it to tools with
/// `AskClient::of(&request_context)`.
///
/// - Before revision 2026-07-28, on a session (stdio, stateful HTTP): a request to the client,
///   answered before the call goes on.
/// - From 2026-07-28 on, stateless included: MRTR. The first time a question is asked, it fails
///   with [`AskError::InputRequired`], and the call is answered `input_required` with the
///   question under its `key`; the client calls again with the answers, the tool runs again, and
///   this time the same question (same `key`) gets the client's answer. A tool should therefore
///   ask before it changes anything.
/// - Before 2026-07-28 without a session (stateless HTTP): [`AskError::Unreachable`] at once,
///   never a request that waits for an answer that cannot come.
#[derive(Clone)]
pub struct AskClient(Arc<Inner>);

struct Inner {
    peer: Peer<RoleServer>,
    route: Route,
    elicitation: bool,
    sampling: bool,
    round: Arc<Round>,
}

/// One round of a call's questions (MRTR): the answers its client brought, and the questions
/// asked that it has not answered yet. Every [`AskClient`] of the call shares it; the server
/// reads it when the call ends. (Kept apart from the asker, which is made only when someone asks
/// for it: most calls ask nothing, and reading the client's capabilities costs.)
#[derive(Default)]
pub(crate) struct Round {
    answers: InputResponses,
    asked: Mutex<InputRequests>,
    /// Set when the call runs as a task: where its questions go.
    pub(crate) task: OnceLock<TaskInput>,
}

impl Round {
    pub(crate) fn new(answers: InputResponses) -> Self {
        Round {
            answers,
            asked: Mutex::new(BTreeMap::new()),
            task: OnceLock::new(),
        }
    }

    /// The answers the client has given so far.
    pub(crate) fn answers(&self) -> &InputResponses {
        &self.answers
    }

    /// The questions asked this round that the client has not answered yet.
    pub(crate) fn unanswered(&self) -> InputRequests {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Whether a request on `version` is served as before protocol revision 2026-07-28: one that
/// names an earlier revision, or none (as rmcp reads it: a request without a version gets the
/// older shapes).
pub(crate) fn before_2026_07_28(version: Option<&ProtocolVersion>) -> bool {
    version.is_none_or(|version| version.as_str() < ProtocolVersion::V_2026_07_28.as_str())
}

impl fmt::Debug for AskClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AskClient")
            .field("route", &self.0.route)
            .field("answers", &self.0.round.answers.len())
            .finish_non_exhaustive()
    }
}

impl AskClient {
    /// The asker of the request `context` serves (the server's `tools/call` requests have one).
    pub fn of(context: &RequestContext<RoleServer>) -> Option<Self> {
        let round = Arc::clone(context.extensions.get::<Arc<Round>>()?);
        Some(AskClient::new(context, round))
    }

    /// The asker for a request, with the round its questions and answers go in.
    fn new(context: &RequestContext<RoleServer>, round: Arc<Round>) -> Self {
        let legacy = before_2026_07_28(context.protocol_version().as_ref());
        let parts = context.extensions.get::<http::request::Parts>();
        let has_session = parts.is_none_or(|parts| parts.headers.contains_key(&super::SESSION_ID));
        let route = match (legacy, has_session) {
            _ if round.task.get().is_some() => Route::Task,
            (false, _) => Route::Rounds,
            (true, true) => Route::Session,
            (true, false) => Route::Unreachable,
        };
        let capabilities = context.client_capabilities();
        let elicitation = capabilities
            .as_ref()
            .and_then(|capabilities| capabilities.elicitation.as_ref())
            .is_some_and(|modes| modes.form.is_some() || modes.url.is_none());
        let sampling = capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.sampling.is_some());
        AskClient(Arc::new(Inner {
            peer: context.peer.clone(),
            route,
            elicitation,
            sampling,
            round,
        }))
    }

    /// Asks the client's user to fill in a form (`params`), as question `key`.
    ///
    /// # Errors
    /// See [`AskError`]: the question goes with the call's answer (MRTR), the client cannot be
    /// reached or does not offer elicitation, or its answer failed.
    pub async fn elicit(
        &self,
        key: &str,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, AskError> {
        if self.0.route == Route::Unreachable {
            return Err(unreachable());
        }
        if !self.0.elicitation {
            return Err(AskError::NotOffered("elicitation"));
        }
        match self.0.route {
            Route::Session => self
                .0
                .peer
                .create_elicitation(params)
                .await
                .map_err(|error| AskError::Failed(error.to_string())),
            Route::Rounds => {
                let answer =
                    self.round(key, InputRequest::Elicitation(ElicitRequest::new(params)))?;
                serde_json::from_value(answer).map_err(|error| unreadable(key, &error))
            }
            Route::Task => {
                let question = InputRequest::Elicitation(ElicitRequest::new(params));
                let answer = self.in_task(key, &question).await?;
                serde_json::from_value(answer).map_err(|error| unreadable(key, &error))
            }
            Route::Unreachable => Err(unreachable()),
        }
    }

    /// Asks the client's model for a completion (`params`), as question `key`.
    ///
    /// # Errors
    /// As [`elicit`](Self::elicit), for sampling.
    pub async fn sample(
        &self,
        key: &str,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, AskError> {
        if self.0.route == Route::Unreachable {
            return Err(unreachable());
        }
        if !self.0.sampling {
            return Err(AskError::NotOffered("sampling"));
        }
        match self.0.route {
            Route::Session => self
                .0
                .peer
                .create_message(params)
                .await
                .map_err(|error| AskError::Failed(error.to_string())),
            Route::Rounds => {
                let question = InputRequest::CreateMessage(CreateMessageRequest::new(params));
                let answer = self.round(key, question)?;
                serde_json::from_value(answer).map_err(|error| unreadable(key, &error))
            }
            Route::Task => {
                let question = InputRequest::CreateMessage(CreateMessageRequest::new(params));
                let answer = self.in_task(key, &question).await?;
                serde_json::from_value(answer).map_err(|error| unreadable(key, &error))
            }
            Route::Unreachable => Err(unreachable()),
        }
    }

    /// A question of a call running as a task: the task waits `input_required` until
    /// `tasks/update` answers it.
    async fn in_task(
        &self,
        key: &str,
        question: &InputRequest,
    ) -> Result<serde_json::Value, AskError> {
        let input = self
            .0
            .round
            .task
            .get()
            .ok_or_else(|| AskError::Failed("no task".to_owned()))?;
        let question =
            serde_json::to_value(question).map_err(|error| AskError::Failed(error.to_string()))?;
        input
            .ask(key, question)
            .await
            .map_err(|error| AskError::Failed(error.to_string()))
    }

    /// A question of an MRTR round: its answer when the client's retry brought one, else the
    /// question noted for the call's `input_required` answer.
    fn round(&self, key: &str, question: InputRequest) -> Result<serde_json::Value, AskError> {
        if let Some(answer) = self.0.round.answers.get(key) {
            return Ok(answer.clone());
        }
        self.0
            .round
            .asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_owned(), question);
        Err(AskError::InputRequired)
    }
}

fn unreachable() -> AskError {
    AskError::Unreachable(
        "this request came without a session on a protocol revision before 2026-07-28 \
         (stateless HTTP), so a request to the client has no way back; serve with sessions, or \
         use a client on revision 2026-07-28, which is asked through MRTR"
            .to_owned(),
    )
}

/// Why the answer to question `key` could not be read.
fn unreadable(key: &str, error: &serde_json::Error) -> AskError {
    AskError::Failed(format!("the answer to `{key}` could not be read: {error}"))
}
