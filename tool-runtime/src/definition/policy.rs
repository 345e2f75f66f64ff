//! What a definition says of its arguments' handling, over the toolbox's [`ArgumentPolicy`]:
//! repair, coercion, arguments cut off.

use super::ToolDefinition;
use crate::policy::{ArgumentPolicy, CutOff};

impl ToolDefinition {
    /// Whether this tool repairs broken JSON: `Some` when it says so itself, `None` when the
    /// toolbox's [`ArgumentPolicy`] decides.
    pub fn repair(&self) -> Option<bool> {
        self.repair
    }

    /// Whether this tool coerces values toward its schema: `Some` when it says so itself.
    pub fn coercion(&self) -> Option<bool> {
        self.coerce
    }

    /// The policy this tool's arguments are handled under: the toolbox's, with the tool's own
    /// settings on top.
    pub fn argument_policy(&self, toolbox: &ArgumentPolicy) -> ArgumentPolicy {
        let mut policy = *toolbox;
        policy.repair = self.repair.unwrap_or(toolbox.repair);
        policy.coerce = self.coerce.unwrap_or(toolbox.coerce);
        // Resolved for this tool: `Run` or `Refuse`.
        policy.cut_off = if self.runs_cut_off(toolbox) {
            CutOff::Run
        } else {
            CutOff::Refuse
        };
        policy
    }

    /// What this tool does with arguments that ended early: `Some` when it says so itself
    /// (`#[tool(cut_off = "run")]`), `None` when the toolbox's [`ArgumentPolicy`] decides.
    pub fn cut_off(&self) -> Option<CutOff> {
        self.cut_off
    }

    /// Whether a call of this tool whose arguments ended early runs under the toolbox's
    /// policy: by the tool's own rule or the toolbox's, and, for [`CutOff::ReadOnly`], its
    /// read-only annotation.
    pub fn runs_cut_off(&self, toolbox: &ArgumentPolicy) -> bool {
        self.cut_off
            .unwrap_or(toolbox.cut_off)
            .runs(self.annotations.read_only == Some(true))
    }

    /// Sets what this tool does with arguments that ended early, whatever the toolbox says
    /// ([`CutOff`]).
    #[must_use]
    pub fn with_cut_off(mut self, rule: CutOff) -> Self {
        self.cut_off = Some(rule);
        self
    }

    /// Turns JSON repair on or off for this tool, whatever the toolbox says.
    #[must_use]
    pub fn with_repair(mut self, on: bool) -> Self {
        self.repair = Some(on);
        self
    }

    /// Turns coercion on or off for this tool, whatever the toolbox says.
    #[must_use]
    pub fn with_coercion(mut self, on: bool) -> Self {
        self.coerce = Some(on);
        self
    }

    /// Whether the tool runs as a task where tasks are on (`toolwright::tasks`): its call
    /// answers at once with a task handle and its body runs in the background, its result kept in
    /// the task store. Set by `#[tool(task)]` or [`with_task`](Self::with_task); a
    /// [`TaskRule`](crate::tasks::TaskRule) can make other tools tasks too.
    pub fn runs_as_task(&self) -> bool {
        self.task
    }

    /// Makes the tool run as a task where tasks are on, or not
    /// ([`runs_as_task`](Self::runs_as_task)).
    #[must_use]
    pub fn with_task(mut self, on: bool) -> Self {
        self.task = on;
        self
    }
}
