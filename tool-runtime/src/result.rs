//! The result of one tool call.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::call::{CallId, ToolCall, ToolName};
use crate::error::ArgumentError;
use crate::fixes::Fixes;
use crate::native::Native;
use crate::output::{Content, Extra, HookFailure, Interrupt, Outcome};

/// What the application gets beside the content the model sees.
#[non_exhaustive]
pub enum ResultDetail {
    /// The tool ran; its native (processed) value, if it produced one.
    Value(Option<Native>),
    /// The tool returned an error; the typed error (shared by the result's clones).
    ToolError(Arc<dyn Any + Send + Sync>),
    /// The arguments were rejected before the tool ran.
    Arguments(Box<ArgumentError>),
    /// No tool has the called name.
    UnknownTool {
        /// Registered names close to the called one, best first.
        suggestions: Box<[String]>,
    },
    /// The tool, or its argument parser, panicked; the panic payload. (A clone of the result
    /// holds the payload's message, as a `String`: a payload is not shareable.)
    Panic(Box<dyn Any + Send>),
    /// The call is paused for human review.
    Interrupt(Box<Interrupt>),
    /// The call did not finish in time; whatever it does later is discarded.
    TimedOut {
        /// The time it had.
        after: Duration,
    },
    /// The call's batch was cancelled (or dropped) before the call finished.
    Cancelled,
    /// A person rejected the call ([`Toolbox::reject`](crate::Toolbox::reject)).
    Rejected {
        /// Why, as the model is told. (Boxed: a result is moved on its way out, and this
        /// variant would otherwise make every result larger.)
        reason: Box<str>,
    },
    /// A hook denied the call before it ran; the content says why.
    Denied,
    /// The call is not one of the toolbox's functions to run: the provider runs it itself
    /// ([`CallKind::Server`](crate::CallKind::Server)), or it is a provider's built-in tool the
    /// application carries out ([`CallKind::Builtin`](crate::CallKind::Builtin)).
    NotLocal {
        /// The call's kind.
        kind: crate::call::CallKind,
    },
    /// The toolbox's search tool answered the call ([`search`](crate::search)): the tools it
    /// found, best first.
    Found {
        /// Their names.
        tools: Box<[ToolName]>,
    },
    /// The arguments were rejected, and the model has now sent invalid arguments to this tool
    /// as many times in a row as the toolbox's retry budget allows
    /// ([`Toolbox::with_retry_budget`](crate::Toolbox::with_retry_budget)): an agent loop should
    /// stop rather than ask the model again.
    BudgetExhausted {
        /// Invalid calls of the tool in a row, this one included.
        failures: u32,
        /// This call's argument error.
        error: Box<ArgumentError>,
    },
}

impl Clone for ResultDetail {
    /// A copy that shares the native value and the typed error; a panic's payload is copied as
    /// its message (a `String`), the one part no clone can share.
    fn clone(&self) -> Self {
        match self {
            ResultDetail::Value(native) => ResultDetail::Value(native.clone()),
            ResultDetail::ToolError(error) => ResultDetail::ToolError(Arc::clone(error)),
            ResultDetail::Arguments(error) => ResultDetail::Arguments(error.clone()),
            ResultDetail::UnknownTool { suggestions } => ResultDetail::UnknownTool {
                suggestions: suggestions.clone(),
            },
            ResultDetail::Panic(payload) => ResultDetail::Panic(Box::new(
                panic_message(payload.as_ref())
                    .unwrap_or("a panic whose payload is not text")
                    .to_owned(),
            )),
            ResultDetail::Interrupt(interrupt) => ResultDetail::Interrupt(interrupt.clone()),
            ResultDetail::TimedOut { after } => ResultDetail::TimedOut { after: *after },
            ResultDetail::Cancelled => ResultDetail::Cancelled,
            ResultDetail::Found { tools } => ResultDetail::Found {
                tools: tools.clone(),
            },
            ResultDetail::Rejected { reason } => ResultDetail::Rejected {
                reason: reason.clone(),
            },
            ResultDetail::Denied => ResultDetail::Denied,
            ResultDetail::NotLocal { kind } => ResultDetail::NotLocal { kind: *kind },
            ResultDetail::BudgetExhausted { failures, error } => ResultDetail::BudgetExhausted {
                failures: *failures,
                error: error.clone(),
            },
        }
    }
}

impl fmt::Debug for ResultDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResultDetail::Value(native) => f
                .debug_tuple("Value")
                .field(&native.as_ref().map(|_| ".."))
                .finish(),
            ResultDetail::ToolError(_) => f.write_str("ToolError(..)"),
            ResultDetail::Arguments(error) => f.debug_tuple("Arguments").field(error).finish(),
            ResultDetail::UnknownTool { suggestions } => f
                .debug_struct("UnknownTool")
                .field("suggestions", suggestions)
                .finish(),
            ResultDetail::Panic(payload) => f
                .debug_tuple("Panic")
                .field(&panic_message(payload.as_ref()))
                .finish(),
            ResultDetail::Interrupt(interrupt) => {
                f.debug_tuple("Interrupt").field(interrupt).finish()
            }
            ResultDetail::TimedOut { after } => {
                f.debug_struct("TimedOut").field("after", after).finish()
            }
            ResultDetail::Cancelled => f.write_str("Cancelled"),
            ResultDetail::Found { tools } => f.debug_struct("Found").field("tools", tools).finish(),
            ResultDetail::Rejected { reason } => {
                f.debug_struct("Rejected").field("reason", reason).finish()
            }
            ResultDetail::Denied => f.write_str("Denied"),
            ResultDetail::NotLocal { kind } => {
                f.debug_struct("NotLocal").field("kind", kind).finish()
            }
            ResultDetail::BudgetExhausted { failures, error } => f
                .debug_struct("BudgetExhausted")
                .field("failures", failures)
                .field("error", error)
                .finish(),
        }
    }
}

/// The result of one tool call: content for the model and detail for the application.
///
/// Cloning shares the native value and the typed error (they sit behind an `Arc`); see
/// [`ResultDetail`]'s `Clone` for the one part that is copied as text.
#[derive(Debug, Clone)]
pub struct ToolResult {
    /// The call's id, to pair the result with its call (a short one copied inline, a long one
    /// shared with the call: see [`CallId`]).
    pub call_id: CallId,
    /// The called tool's name.
    pub tool_name: ToolName,
    /// Content for the model.
    pub content: Content,
    /// Whether the model is told the call failed.
    pub is_error: bool,
    /// Typed detail for the application.
    pub detail: ResultDetail,
    /// Display text and provider options: rarely set, so boxed (a result is moved several times
    /// on its way out, and is smaller for it).
    extra: Option<Box<Extra>>,
}

// A result is moved several times on its way out; within 128 bytes a move is inline stores, past
// them a call to `memcpy` (measured: 136 bytes cost `add` 64 instructions a call).
const _: () = assert!(size_of::<ToolResult>() <= 128);

impl ToolResult {
    pub(crate) fn error(
        call_id: &CallId,
        tool_name: ToolName,
        message: String,
        detail: ResultDetail,
    ) -> Self {
        ToolResult {
            call_id: call_id.clone(),
            tool_name,
            content: Content::text_part(message),
            is_error: true,
            detail,
            extra: None,
        }
    }

    #[inline(always)]
    pub(crate) fn from_outcome(call_id: &CallId, tool_name: ToolName, outcome: Outcome) -> Self {
        match outcome {
            Outcome::Output(output) => ToolResult {
                call_id: call_id.clone(),
                tool_name,
                content: output.content,
                is_error: output.is_error,
                detail: ResultDetail::Value(output.native),
                extra: output.extra,
            },
            Outcome::Error { message, error } => {
                ToolResult::error(call_id, tool_name, message, ResultDetail::ToolError(error))
            }
            Outcome::Interrupt(interrupt) => ToolResult {
                call_id: call_id.clone(),
                tool_name,
                content: Content::text_part(interrupt.message.clone()),
                is_error: false,
                extra: Some(Box::new(Extra {
                    display_text: Some(interrupt.message.clone()),
                    ..Extra::default()
                })),
                detail: ResultDetail::Interrupt(interrupt),
            },
        }
    }

    /// The result of a call of the tool `tool` whose arguments were rejected.
    pub(crate) fn invalid_arguments(call: &ToolCall, tool: ToolName, error: ArgumentError) -> Self {
        let message = format!("invalid arguments for tool `{tool}`: {error}");
        ToolResult::error(
            &call.call_id,
            tool,
            message,
            ResultDetail::Arguments(Box::new(error)),
        )
    }

    /// The text the model sees: the text parts, joined by newlines.
    pub fn text(&self) -> String {
        self.content.text()
    }

    /// Text for a user interface.
    pub fn display_text(&self) -> Option<&str> {
        self.extra.as_ref()?.display_text.as_deref()
    }

    /// Sets the text for a user interface.
    pub fn set_display_text(&mut self, text: impl Into<String>) {
        self.extra.get_or_insert_with(Box::default).display_text = Some(text.into());
    }

    /// The repairs and coercions the call's arguments needed before the tool could take them;
    /// `None` when they needed none.
    ///
    /// ```
    /// use toolwright::args::RepairKind;
    /// use toolwright::{ToolCall, Toolbox, ToolDefinition, DynamicTool};
    ///
    /// let def = ToolDefinition::new("echo", "Echo.", serde_json::json!({
    ///     "type": "object", "properties": {"n": {"type": "integer"}},
    /// })).unwrap();
    /// let echo = DynamicTool::new(def, |args: serde_json::Map<String, serde_json::Value>, _: &()| {
    ///     args["n"].to_string()
    /// });
    /// let tools = Toolbox::new().with(echo).unwrap();
    /// let result = tools.execute_blocking(&ToolCall::new("c1", "echo", "{'n': '4',}"), &());
    /// assert_eq!(result.text(), "4");
    /// let fixes = result.fixes().unwrap();
    /// assert!(fixes.repairs.iter().any(|r| r.kind == RepairKind::TrailingComma));
    /// assert_eq!(fixes.coercions.len(), 1);
    /// ```
    pub fn fixes(&self) -> Option<&Fixes> {
        self.extra
            .as_ref()
            .map(|extra| &extra.fixes)
            .filter(|fixes| !fixes.is_empty())
    }

    /// Records the repairs and coercions the call's arguments needed.
    #[inline(always)]
    pub fn set_fixes(&mut self, fixes: Fixes) {
        if !fixes.is_empty() || self.extra.is_some() {
            self.extra.get_or_insert_with(Box::default).fixes = fixes;
        } else {
            fixes.discard_empty();
        }
    }

    /// The hooks that panicked in `after` while seeing this result (the result is kept as the
    /// call left it; see [`HookFailure`]).
    pub fn hook_failures(&self) -> &[HookFailure] {
        self.extra
            .as_ref()
            .map_or(&[], |extra| extra.hook_failures.as_slice())
    }

    pub(crate) fn push_hook_failure(&mut self, failure: HookFailure) {
        self.extra
            .get_or_insert_with(Box::default)
            .hook_failures
            .push(failure);
    }

    /// A provider option (e.g. Anthropic's `cache_control`).
    pub fn option(&self, key: &str) -> Option<&Value> {
        self.extra.as_ref()?.options.get(key)
    }

    /// The provider options, in the order they were set.
    pub fn options(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.extra
            .iter()
            .flat_map(|extra| extra.options.iter().map(|(k, v)| (k.as_str(), v)))
    }

    /// Sets a provider option.
    pub fn set_option(&mut self, key: impl Into<String>, value: Value) {
        self.extra
            .get_or_insert_with(Box::default)
            .options
            .insert(key.into(), value);
    }

    /// The native value the tool produced, if it is a `T`.
    ///
    /// ```
    /// use serde_json::{Map, Value};
    /// use toolwright::{DynamicTool, ToolCall, ToolDefinition, ToolOutput, Toolbox};
    ///
    /// let def = ToolDefinition::new("count", "Count the keys.", serde_json::json!({})).unwrap();
    /// let count = DynamicTool::new(def, |args: Map<String, Value>, _: &()| {
    ///     ToolOutput::text("counted").with_native(args.len())
    /// });
    /// let tools = Toolbox::new().with(count).unwrap();
    /// let result = tools.execute_blocking(&ToolCall::new("c1", "count", "{}"), &());
    /// assert_eq!(result.native::<usize>(), Some(&0));
    /// ```
    pub fn native<T: Any>(&self) -> Option<&T> {
        match &self.detail {
            ResultDetail::Value(Some(native)) => native.downcast_ref(),
            _ => None,
        }
    }

    /// The typed error the tool returned, if it is an `E`.
    pub fn tool_error<E: Any>(&self) -> Option<&E> {
        match &self.detail {
            ResultDetail::ToolError(error) => error.downcast_ref(),
            _ => None,
        }
    }

    /// The argument error, when the arguments were rejected.
    pub fn argument_error(&self) -> Option<&ArgumentError> {
        match &self.detail {
            ResultDetail::Arguments(error) | ResultDetail::BudgetExhausted { error, .. } => {
                Some(error)
            }
            _ => None,
        }
    }

    /// When the model has spent the tool's retry budget on this call: how many invalid calls
    /// of the tool came in a row. The agent loop should stop asking the model.
    pub fn budget_exhausted(&self) -> Option<u32> {
        match &self.detail {
            ResultDetail::BudgetExhausted { failures, .. } => Some(*failures),
            _ => None,
        }
    }

    /// Whether the call is paused for human review (and so has no final result yet).
    pub fn is_interrupt(&self) -> bool {
        matches!(self.detail, ResultDetail::Interrupt(_))
    }

    /// A result the application made itself for `call`: for a call it carried out without the
    /// toolbox, as a provider's built-in tool ([`CallKind::Builtin`](crate::CallKind::Builtin)),
    /// whose result [`Toolbox::encode_results`](crate::Toolbox::encode_results) then writes as
    /// the item the API expects.
    ///
    /// ```
    /// use toolwright::{ToolCall, ToolOutput, ToolResult};
    ///
    /// let call = ToolCall::new("call_1", "shell", "{}");
    /// let result = ToolResult::for_call(&call, ToolOutput::text("done"));
    /// assert_eq!(result.call_id, "call_1");
    /// assert_eq!(result.text(), "done");
    /// ```
    pub fn for_call(call: &ToolCall, output: crate::output::ToolOutput) -> Self {
        ToolResult::from_outcome(
            &call.call_id,
            ToolName::from(call.name.as_str()),
            Outcome::Output(output),
        )
    }

    /// A result for a call that was cancelled before it finished: for an application that
    /// dropped a batch and must still answer every call the model made.
    pub fn cancelled(call: &ToolCall) -> Self {
        ToolResult::error(
            &call.call_id,
            ToolName::from(call.name.as_str()),
            format!(
                "the call of `{}` was cancelled before it finished; it may or may not have taken effect",
                call.name
            ),
            ResultDetail::Cancelled,
        )
    }

    /// The panic message, when the tool panicked with a string payload.
    pub fn panic_message(&self) -> Option<&str> {
        match &self.detail {
            ResultDetail::Panic(payload) => panic_message(payload.as_ref()),
            _ => None,
        }
    }

    /// The interrupt, when the call paused for human review.
    pub fn interrupt(&self) -> Option<&Interrupt> {
        match &self.detail {
            ResultDetail::Interrupt(interrupt) => Some(interrupt),
            _ => None,
        }
    }
}

pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&'static str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}
