//! The agent hook that gives toolwright the argument text rig would not hand a tool.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use rig_agent::agent::{AgentHook, HookContext};
use rig_agent::run::policy::{
    InvalidToolCallAction, InvalidToolCallContext, InvalidToolCallReason,
};

use super::Runner;
use crate::call::ToolCall;

/// Runs, through the toolbox, the calls of a [`RigTools`](super::RigTools)' tools whose
/// arguments rig could not read as a JSON object: add it to the agent with
/// `AgentBuilder::add_hook` (or [`AgentBuilderExt::toolwright`](super::AgentBuilderExt::toolwright)).
///
/// A call toolwright reads (repairs included) runs, and the model reads its result; one it
/// refuses (unreadable text, a cut-off text for a tool that does not run on one) is answered
/// with toolwright's feedback. Calls of other tools, and every other invalid call (an unknown
/// tool, one the tool choice does not allow), are left to rig and the hooks after this one.
pub struct RepairHook<C: Send + Sync + 'static> {
    runner: Arc<Runner<C>>,
    /// The name rig's model knows each tool by, and the toolbox's.
    names: HashMap<String, String>,
}

impl<C: Send + Sync + 'static> fmt::Debug for RepairHook<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RepairHook")
            .field("tools", &self.names.len())
            .finish_non_exhaustive()
    }
}

impl<C: Send + Sync + 'static> RepairHook<C> {
    pub(super) fn new(runner: Arc<Runner<C>>, names: HashMap<String, String>) -> Self {
        RepairHook { runner, names }
    }
}

impl<C: Send + Sync + 'static> AgentHook for RepairHook<C> {
    fn name(&self) -> Option<String> {
        Some("toolwright::RepairHook".to_owned())
    }

    async fn on_invalid_tool_call(
        &self,
        _ctx: &HookContext,
        event: &InvalidToolCallContext,
    ) -> Option<InvalidToolCallAction> {
        if !matches!(
            event.reason,
            InvalidToolCallReason::MalformedArguments { .. }
        ) {
            return None;
        }
        let name = self.names.get(&event.tool_name)?;
        let raw = event.args.as_deref()?;
        let id = event
            .tool_call_id
            .as_ref()
            .map_or_else(|| "rig".to_owned(), ToString::to_string);
        let result = self
            .runner
            .execute(&ToolCall::new(id, name.as_str(), raw))
            .await;
        let text = result.text();
        Some(if result.is_error || result.is_interrupt() {
            // Answered as an error result: the model reads toolwright's words and calls again.
            InvalidToolCallAction::retry(text)
        } else {
            // The call ran: its result is what the model reads.
            InvalidToolCallAction::Skip { reason: text }
        })
    }
}
