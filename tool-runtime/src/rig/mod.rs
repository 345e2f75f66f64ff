//! A toolbox's tools in a rig agent (feature `rig`; rig-core and rig-agent 0.44).
//!
//! [`RigTools`] holds a toolbox and the context its tools run with, given once. It converts into
//! the runtime-defined tools rig's agent builder takes (`Vec<rig_core::tool::DynamicTool>`, for
//! `AgentBuilder::dynamic_tools`) and gives the agent hook that repairs broken argument text
//! ([`RepairHook`], for `AgentBuilder::add_hook`); [`AgentBuilderExt::toolwright`] does both. Each
//! call rig makes runs through the toolbox as any other call does: lenient arguments and coercion,
//! the schema checked with every problem in one message, hooks, approval, timeouts, panics caught.
//!
//! ```
//! use toolwright::rig::RigTools;
//! use toolwright::{Toolbox, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let tools = RigTools::new(Toolbox::new().with(AddTool).unwrap(), ());
//! // With rig-agent's builder: `AgentBuilder::new(model).toolwright(&tools).build()`
//! // (`toolwright::rig::AgentBuilderExt`), or by hand
//! // `.dynamic_tools(tools.tools()).add_hook(tools.hook())`.
//! let rig_tools = tools.tools(); // `Vec<rig_core::tool::DynamicTool>`
//! assert_eq!(rig_tools[0].name().as_str(), "add");
//! ```
//!
//! What rig sees of a toolwright result:
//!
//! | toolwright | rig |
//! | --- | --- |
//! | a result | a success: its text (images as image content) |
//! | bad arguments | `ToolExecutionError::invalid_args` whose model output is toolwright's feedback: the model reads it as the tool's answer and calls again |
//! | a timeout, an unknown or refused tool, a tool's error, a panic | an error of the matching kind, toolwright's text as its model output |
//! | a call that needs approval | a refusal (code `"approval_required"`) whose source is [`PendingApproval`]: the call to approve later with `Toolbox::approve` |
//!
//! **Broken JSON.** rig hands a tool only arguments that are a JSON object; text that is not
//! (a trailing comma, single quotes, a cut-off object) never reaches it, and rig allows no hook
//! to rewrite a turn that makes calls. The one place rig shows that text is the invalid-call
//! hook: [`RepairHook`] runs the call there, through the toolbox, on the text as the model sent
//! it. What toolwright repairs runs (a cut-off text only for a tool that runs on cut-off
//! arguments: a read-only one, by default) and the model reads its result; what it cannot read
//! is answered with toolwright's feedback instead of rig's. rig records such a call as one it
//! did not run itself: the result reaches the model as the call's answer, in text, marked as an
//! error where the provider's format has the mark (Anthropic's `is_error`).

mod hook;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};
use rig_core::message::{ImageMediaType, MimeType, ToolName, ToolResultContent};
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use serde_json::Value;

use crate::call::{Arguments, ToolCall};
use crate::caller::Caller;
use crate::content::{Content, ContentPart};
use crate::forms::{Form, Provider};
use crate::providers::spec;
use crate::result::{ResultDetail, ToolResult};
use crate::tool::ErasedTool;
use crate::toolbox::BatchOptions;
use crate::toolbox::Toolbox;

pub use self::hook::RepairHook;
// rig-core and rig-agent are not re-exported: rig-core re-exports serde and schemars, and the
// compiler would then name those traits through it in every message about a tool's types.

/// The code of the refusal rig gets for a call that waits for approval.
pub const APPROVAL_REQUIRED: &str = "approval_required";

/// A toolbox, the context its tools run with, and how they are shown to rig's model: what
/// converts into rig's tools and repair hook.
pub struct RigTools<C: Send + Sync + 'static = ()> {
    toolbox: Arc<Toolbox<C>>,
    ctx: Arc<C>,
    caller: Option<Caller>,
    form: Form,
}

impl<C: Send + Sync + 'static> Clone for RigTools<C> {
    fn clone(&self) -> Self {
        RigTools {
            toolbox: Arc::clone(&self.toolbox),
            ctx: Arc::clone(&self.ctx),
            caller: self.caller.clone(),
            form: self.form,
        }
    }
}

impl<C: Send + Sync + 'static> fmt::Debug for RigTools<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RigTools")
            .field("tools", &self.toolbox.len())
            .field("caller", &self.caller)
            .field("form", &self.form)
            .finish_non_exhaustive()
    }
}

impl<C: Send + Sync + 'static> RigTools<C> {
    /// Every tool of `toolbox`, run with `ctx`. The schemas rig sends are the tools' OpenAI Chat
    /// form (plain JSON Schema, definitions inlined); [`form`](Self::form) picks another.
    pub fn new(toolbox: impl Into<Arc<Toolbox<C>>>, ctx: impl Into<Arc<C>>) -> Self {
        RigTools {
            toolbox: toolbox.into(),
            ctx: ctx.into(),
            caller: None,
            form: Form::new(Provider::OpenAiChat),
        }
    }

    /// Only the tools `caller` has the scopes for, each call run on its behalf
    /// ([`BatchOptions::on_behalf_of`]).
    #[must_use]
    pub fn on_behalf_of(mut self, caller: Caller) -> Self {
        self.caller = Some(caller);
        self
    }

    /// The provider form whose schemas (and tool names) rig sends: the form of the provider the
    /// agent's model speaks (strict OpenAI, Gemini's subset, ...).
    #[must_use]
    pub fn form(mut self, form: impl Into<Form>) -> Self {
        self.form = form.into();
        self
    }

    /// The toolbox the tools run in.
    pub fn toolbox(&self) -> &Arc<Toolbox<C>> {
        &self.toolbox
    }

    /// The tools as rig's runtime-defined tools, for `AgentBuilder::dynamic_tools`.
    pub fn tools(&self) -> Vec<DynamicTool> {
        let runner = self.runner();
        self.permitted()
            .filter_map(|tool| {
                let definition = tool.definition();
                let entry = definition.provider_entry(self.form);
                let name = definition.name().to_owned();
                let wire = self.form.provider().wire_name(&name);
                // A toolbox's names are never empty, the one name rig refuses.
                let wire = ToolName::new(wire.as_ref())
                    .map_err(|error| tracing::error!(tool = %name, %error, "not given to rig"))
                    .ok()?;
                let runner = Arc::clone(&runner);
                Some(DynamicTool::new(
                    wire,
                    definition.description(),
                    parameters(self.form.provider(), entry)
                        .unwrap_or_else(|| definition.parameters().clone()),
                    move |arguments: Value| {
                        let runner = Arc::clone(&runner);
                        let name = name.clone();
                        Box::pin(async move { runner.run(name, Arguments::Json(arguments)).await })
                    },
                ))
            })
            .collect()
    }

    /// The hook that repairs broken argument text before rig runs a call of these tools.
    pub fn hook(&self) -> RepairHook<C> {
        let names = self
            .permitted()
            .map(|tool| {
                let name = tool.definition().name();
                (
                    self.form.provider().wire_name(name).into_owned(),
                    name.to_owned(),
                )
            })
            .collect();
        RepairHook::new(self.runner(), names)
    }

    fn permitted(&self) -> impl Iterator<Item = &Arc<dyn ErasedTool<C>>> {
        self.toolbox.iter().filter(|tool| {
            self.caller
                .as_ref()
                .is_none_or(|caller| self.toolbox.may_call(caller, tool.definition().name()))
        })
    }

    fn runner(&self) -> Arc<Runner<C>> {
        Arc::new(Runner {
            toolbox: Arc::clone(&self.toolbox),
            ctx: Arc::clone(&self.ctx),
            caller: self.caller.clone(),
            calls: AtomicU64::new(0),
        })
    }
}

impl<C: Send + Sync + 'static> From<RigTools<C>> for Vec<DynamicTool> {
    fn from(tools: RigTools<C>) -> Self {
        tools.tools()
    }
}

/// The toolbox's tools and repair hook on rig's agent builder in one step.
pub trait AgentBuilderExt: Sized {
    /// `dynamic_tools(tools.tools())` and `add_hook(tools.hook())`.
    fn toolwright<C: Send + Sync + 'static>(
        self,
        tools: &RigTools<C>,
    ) -> AgentBuilder<WithBuilderTools>;
}

impl AgentBuilderExt for AgentBuilder<NoToolConfig> {
    fn toolwright<C: Send + Sync + 'static>(
        self,
        tools: &RigTools<C>,
    ) -> AgentBuilder<WithBuilderTools> {
        self.add_hook(tools.hook()).dynamic_tools(tools.tools())
    }
}

impl AgentBuilderExt for AgentBuilder<WithBuilderTools> {
    fn toolwright<C: Send + Sync + 'static>(
        self,
        tools: &RigTools<C>,
    ) -> AgentBuilder<WithBuilderTools> {
        self.add_hook(tools.hook()).dynamic_tools(tools.tools())
    }
}

/// What every converted tool and the hook share: the toolbox, its context, the caller.
pub(crate) struct Runner<C: Send + Sync + 'static> {
    pub(crate) toolbox: Arc<Toolbox<C>>,
    pub(crate) ctx: Arc<C>,
    caller: Option<Caller>,
    calls: AtomicU64,
}

impl<C: Send + Sync + 'static> Runner<C> {
    /// One call through the toolbox, its result as rig takes it.
    async fn run(
        &self,
        name: String,
        arguments: Arguments,
    ) -> Result<ToolOutput, ToolExecutionError> {
        // rig does not hand a tool its call's id; toolwright's spans and results get one of
        // their own.
        let id = format!("rig-{}", self.calls.fetch_add(1, Ordering::Relaxed));
        let call = ToolCall::new(id, name, arguments);
        let result = self.execute(&call).await;
        into_rig(call, result)
    }

    /// One call through the toolbox, on the caller's behalf when there is one.
    pub(crate) async fn execute(&self, call: &ToolCall) -> ToolResult {
        match &self.caller {
            None => self.toolbox.execute(call, &self.ctx).await,
            Some(caller) => {
                let options = BatchOptions::new().on_behalf_of(caller.clone());
                let calls = std::slice::from_ref(call);
                let mut results = self
                    .toolbox
                    .execute_all_with(calls, &self.ctx, options)
                    .await;
                // A batch gives exactly one result per call.
                results.pop().unwrap_or_else(|| ToolResult::cancelled(call))
            }
        }
    }
}

/// A call that waits for approval: the source of the refusal rig gets for it. Approve it with
/// `Toolbox::approve` (or reject it with `Toolbox::reject`), as any paused call.
#[derive(Debug, Clone)]
pub struct PendingApproval {
    call: ToolCall,
    message: String,
}

impl PendingApproval {
    /// The call as it was made (its id is toolwright's own: rig does not give one).
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// What to show the person asked to approve it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for PendingApproval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` waits for approval: {}",
            self.call.name, self.message
        )
    }
}

impl std::error::Error for PendingApproval {}

/// A toolwright result as rig's: a success's content, or an error whose model output is
/// toolwright's text.
fn into_rig(call: ToolCall, result: ToolResult) -> Result<ToolOutput, ToolExecutionError> {
    if let Some(interrupt) = result.interrupt() {
        let message = interrupt.message.clone();
        return Err(ToolExecutionError::refused(result.text())
            .with_code(APPROVAL_REQUIRED)
            .with_source(PendingApproval { call, message }));
    }
    if !result.is_error {
        return Ok(output(result.content));
    }
    let text = result.text();
    Err(match result.detail {
        ResultDetail::Arguments(_) => ToolExecutionError::invalid_args(text),
        ResultDetail::TimedOut { .. } => ToolExecutionError::timeout(text),
        ResultDetail::Cancelled => ToolExecutionError::cancelled(text),
        ResultDetail::UnknownTool { .. } => ToolExecutionError::not_found(text),
        ResultDetail::Rejected { .. } | ResultDetail::Denied => ToolExecutionError::refused(text),
        _ => ToolExecutionError::other(text),
    })
}

fn output(content: Content) -> ToolOutput {
    if content
        .iter()
        .all(|part| matches!(part, ContentPart::Text { .. }))
    {
        // Joined as every provider's text is (`ToolResult::text`).
        return ToolOutput::text(content.text());
    }
    let content = content
        .into_vec()
        .into_iter()
        .map(|part| match part {
            ContentPart::Text { text } => ToolResultContent::text(text),
            ContentPart::Image { data, mime_type } => ToolResultContent::image_base64(
                data,
                ImageMediaType::from_mime_type(&mime_type),
                None,
            ),
            // rig's tool results carry text and images: anything else as its fallback text.
            other => {
                let text = other.fallback_text().unwrap_or_default();
                tracing::warn!(
                    target: "toolwright::lint",
                    provider = "rig",
                    "a tool result's part cannot go in a rig tool result; sent as text: {text}"
                );
                ToolResultContent::text(text)
            }
        })
        .collect();
    // Never empty here: a part that is not text was found above.
    ToolOutput::content(content).unwrap_or_else(|_| ToolOutput::text(String::new()))
}

/// The parameters schema in a provider's entry for a tool.
fn parameters(provider: Provider, entry: &Value) -> Option<Value> {
    (spec(provider).entry_fields)(entry).1.cloned()
}
