//! Hooks around each call: observe, rewrite or deny a call before it runs, observe or rewrite its
//! result after.

use crate::call::{Arguments, ToolCall};
use crate::definition::ToolDefinition;
use crate::result::ToolResult;

/// What a [`Hook::before`] decides about a call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Before {
    /// Run the call as it is.
    Continue,
    /// Run the call with these arguments instead (later hooks see them).
    Rewrite(Arguments),
    /// Do not run the call: its result is an error carrying this message for the model.
    Deny(String),
}

/// Code run around every call of a known tool, in the order the hooks were added
/// ([`Toolbox::with_hook`](crate::Toolbox::with_hook)): for audit logs, policies, redaction.
///
/// `before` runs first, before any approval check; `after` sees every result of the tool,
/// including argument errors, denials, interrupts and timeouts. Calls of unknown tools have no
/// definition, so hooks do not see them. A `before` that panics fails the call (an error result,
/// the tool not run), not the batch. An `after` that panics leaves the call's result as it was
/// (the tool did run) and is recorded on it ([`ToolResult::hook_failures`]) and logged.
///
/// ```
/// use serde_json::json;
/// use toolwright::{DynamicTool, ToolCall, ToolDefinition, ToolResult, Toolbox, exec::{Before, Hook}};
///
/// struct NoDeletes;
///
/// impl<C: ?Sized> Hook<C> for NoDeletes {
///     fn before(&self, definition: &ToolDefinition, _call: &ToolCall, _ctx: &C) -> Before {
///         if definition.name().starts_with("delete") {
///             Before::Deny("deleting is switched off in this session".to_owned())
///         } else {
///             Before::Continue
///         }
///     }
/// }
///
/// let def = ToolDefinition::new("delete_file", "Delete a file.", json!({})).unwrap();
/// let tools = Toolbox::new()
///     .with(DynamicTool::new(def, |_, _: &()| "deleted".to_owned()))
///     .unwrap()
///     .with_hook(NoDeletes);
/// let result = tools.execute_blocking(&ToolCall::new("c1", "delete_file", "{}"), &());
/// assert!(result.is_error);
/// assert_eq!(result.text(), "deleting is switched off in this session");
/// ```
pub trait Hook<C: ?Sized>: Send + Sync + 'static {
    /// Sees a call before it runs: lets it through, rewrites its arguments, or denies it.
    fn before(&self, definition: &ToolDefinition, call: &ToolCall, ctx: &C) -> Before {
        let _ = (definition, call, ctx);
        Before::Continue
    }

    /// Sees a call's result before it is returned, and may change it (the content the model
    /// sees, say).
    fn after(
        &self,
        definition: &ToolDefinition,
        call: &ToolCall,
        ctx: &C,
        result: &mut ToolResult,
    ) {
        let _ = (definition, call, ctx, result);
    }
}
