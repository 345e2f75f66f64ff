//! What a tool body returns, and what it becomes.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::content::{Content, ContentPart};
use crate::fixes::Fixes;
use crate::native::Native;
use serde_json::{Map, Value};

/// What a result rarely has: display text, provider options, and the fixes its arguments
/// needed.
#[derive(Debug, Default, Clone)]
pub(crate) struct Extra {
    pub(crate) display_text: Option<String>,
    pub(crate) options: Map<String, Value>,
    pub(crate) fixes: Fixes,
    pub(crate) hook_failures: Vec<HookFailure>,
}

/// A [`Hook`](crate::exec::Hook) that panicked in `after`, recorded on the result it was given
/// ([`ToolResult::hook_failures`](crate::ToolResult::hook_failures)). The call's outcome is
/// kept as it was: the tool did run, and telling the model otherwise could make it repeat an
/// action that took effect.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookFailure {
    /// The hook's position among the toolbox's hooks, in the order they were added.
    pub hook: usize,
    /// The panic message, when it was a string.
    pub message: Option<String>,
}

/// An explicit tool result: content for the model, a processed native value for the application,
/// and provider options.
///
/// ```
/// use toolwright::ToolOutput;
///
/// struct Invoice { total: u32 }
/// let output = ToolOutput::text("SUCCESS").with_native(Invoice { total: 12 });
/// assert_eq!(output.text_content(), "SUCCESS");
/// ```
#[derive(Default)]
pub struct ToolOutput {
    pub(crate) content: Content,
    pub(crate) native: Option<Native>,
    /// Display text and options: rarely set, so boxed (a result is moved several times).
    pub(crate) extra: Option<Box<Extra>>,
    pub(crate) is_error: bool,
}

impl fmt::Debug for ToolOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolOutput")
            .field("content", &self.content)
            .field("native", &self.native.as_ref().map(|_| ".."))
            .field("extra", &self.extra)
            .field("is_error", &self.is_error)
            .finish()
    }
}

impl ToolOutput {
    /// Text for the model.
    #[inline]
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: Content::text_part(text),
            ..ToolOutput::default()
        }
    }

    /// Content parts for the model (text, images).
    pub fn parts(content: impl Into<Content>) -> Self {
        ToolOutput {
            content: content.into(),
            ..ToolOutput::default()
        }
    }

    /// A value for the model as JSON text (a JSON string as-is), and kept as the native value.
    ///
    /// # Errors
    /// When the value cannot be serialized.
    #[inline]
    pub fn json<T: Serialize + Send + Sync + 'static>(value: T) -> Result<Self, serde_json::Error> {
        // Built whole rather than through the builder methods: a result is on the hot path, and
        // each by-value builder step moves it.
        Ok(ToolOutput {
            content: Content::text_part(json_text(&value)?),
            native: Some(Native::new(value)),
            extra: None,
            is_error: false,
        })
    }

    /// An error for the model: the call failed, and this says why.
    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput {
            is_error: true,
            ..ToolOutput::text(text)
        }
    }

    /// Keeps a processed native value for the application; the model does not see it.
    #[must_use]
    #[inline]
    pub fn with_native<T: Any + Send + Sync>(mut self, native: T) -> Self {
        self.native = Some(Native::new(native));
        self
    }

    /// Attaches a provider option (e.g. Anthropic's `cache_control`).
    #[must_use]
    pub fn with_option(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra
            .get_or_insert_with(Box::default)
            .options
            .insert(key.into(), value);
        self
    }

    /// Sets text for a user interface.
    #[must_use]
    pub fn with_display_text(mut self, text: impl Into<String>) -> Self {
        self.extra.get_or_insert_with(Box::default).display_text = Some(text.into());
        self
    }

    /// The text parts, joined.
    pub fn text_content(&self) -> String {
        self.content.text()
    }

    /// The content parts.
    pub fn content(&self) -> &Content {
        &self.content
    }
}

/// A value as the model sees it: JSON text, a JSON string as-is.
pub(crate) fn json_text<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let text = serde_json::to_string(value)?;
    // Serialized straight to text (no intermediate Value); only a JSON string is decoded again.
    if text.starts_with('"') {
        serde_json::from_str(&text)
    } else {
        Ok(text)
    }
}

/// A pause for human review: the call produced no result yet.
///
/// A toolbox raises one for a call that needs approval
/// ([`ToolDefinition::needs_approval`](crate::ToolDefinition::needs_approval),
/// [`Toolbox::needs_approval_when`](crate::Toolbox::needs_approval_when)); a tool body may return
/// one itself. The application answers with [`Toolbox::approve`](crate::Toolbox::approve) or
/// [`Toolbox::reject`](crate::Toolbox::reject), which give the call's final result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interrupt {
    /// What to show the person asked to review.
    pub message: String,
    /// Data for the review (for an approval: the arguments as the tool will get them).
    pub data: Value,
    /// Who asked for the review.
    #[serde(default)]
    pub kind: InterruptKind,
}

/// Who paused a call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum InterruptKind {
    /// The tool's body returned the interrupt; approving the call runs the body again, which
    /// then sees [`CallInfo::is_approved`](crate::CallInfo::is_approved).
    #[default]
    Tool,
    /// The toolbox held the call back before it ran, because it needs approval.
    Approval,
}

impl Interrupt {
    /// An interrupt with a display message and data, as a tool body returns it.
    pub fn new(message: impl Into<String>, data: Value) -> Self {
        Interrupt {
            message: message.into(),
            data,
            kind: InterruptKind::Tool,
        }
    }
}

/// What a tool body's return value becomes.
pub enum Outcome {
    /// Content for the model, maybe a native value for the application.
    Output(ToolOutput),
    /// The tool failed: a message for the model, the typed error for the application.
    Error {
        /// The error's `Display`, sent to the model.
        message: String,
        /// The typed error (shared: results are `Clone`).
        error: Arc<dyn Any + Send + Sync>,
    },
    /// Paused for human review.
    Interrupt(Box<Interrupt>),
}

impl fmt::Debug for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Output(output) => f.debug_tuple("Output").field(output).finish(),
            Outcome::Error { message, .. } => f
                .debug_struct("Error")
                .field("message", message)
                .finish_non_exhaustive(),
            Outcome::Interrupt(interrupt) => f.debug_tuple("Interrupt").field(interrupt).finish(),
        }
    }
}

impl Outcome {
    /// A serializable value: JSON text for the model (a string as-is), the value kept as native.
    /// A value that fails to serialize becomes an error outcome.
    #[inline]
    pub fn from_serialize<T: Serialize + Send + Sync + 'static>(value: T) -> Self {
        match ToolOutput::json(value) {
            Ok(output) => Outcome::Output(output),
            Err(error) => Outcome::Error {
                message: format!("the tool's result could not be serialized: {error}"),
                error: Arc::new(error),
            },
        }
    }

    /// A typed error: its `Display` for the model, the value for the application.
    pub fn from_error<E: fmt::Display + Send + Sync + 'static>(error: E) -> Self {
        Outcome::Error {
            message: error.to_string(),
            error: Arc::new(error),
        }
    }
}

/// Types a tool body can return explicitly, beyond any `T: Serialize` and `Result<T, E>`.
///
/// Implement it for your own result types to control exactly what the model and the application
/// get.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of a tool",
    label = "not a tool result",
    note = "return a type that implements `serde::Serialize`, `Result<T, E>` with `T: Serialize` and `E: Display`, `ToolOutput`, or `Interrupt`"
)]
pub trait IntoOutcome {
    /// Converts the value.
    fn into_outcome(self) -> Outcome;
}

impl IntoOutcome for Outcome {
    fn into_outcome(self) -> Outcome {
        self
    }
}

impl IntoOutcome for ToolOutput {
    fn into_outcome(self) -> Outcome {
        Outcome::Output(self)
    }
}

impl IntoOutcome for Interrupt {
    fn into_outcome(self) -> Outcome {
        Outcome::Interrupt(Box::new(self))
    }
}

impl IntoOutcome for String {
    fn into_outcome(self) -> Outcome {
        Outcome::Output(ToolOutput::text(self.clone()).with_native(self))
    }
}

impl IntoOutcome for Value {
    fn into_outcome(self) -> Outcome {
        Outcome::from_serialize(self)
    }
}

impl<T: IntoOutcome, E: fmt::Display + Send + Sync + 'static> IntoOutcome for Result<T, E> {
    fn into_outcome(self) -> Outcome {
        match self {
            Ok(value) => value.into_outcome(),
            Err(error) => Outcome::from_error(error),
        }
    }
}
