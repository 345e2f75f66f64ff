//! Which tools run as tasks besides those whose definitions say so.

use std::time::Duration;

use crate::definition::ToolDefinition;

/// Which tools of a toolbox run as tasks, besides those marked `#[tool(task)]`
/// ([`ToolDefinition::runs_as_task`]): every tool, those named, or those whose timeout is above
/// a length (a tool given minutes is a long-running one).
///
/// ```
/// use std::time::Duration;
/// use toolwright::ToolDefinition;
/// use toolwright::tasks::TaskRule;
///
/// let rule = TaskRule::none()
///     .tool("import")
///     .timeout_above(Duration::from_secs(30));
/// let object = serde_json::json!({"type": "object"});
/// let slow = ToolDefinition::new("build", "Builds.", object.clone())
///     .unwrap()
///     .with_timeout(Duration::from_secs(600));
/// assert!(rule.matches(&slow));
/// let add = ToolDefinition::new("add", "Adds.", object.clone()).unwrap();
/// assert!(!rule.matches(&add));
/// let import = ToolDefinition::new("import", "Imports.", object).unwrap();
/// assert!(rule.matches(&import));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskRule {
    all: bool,
    names: Vec<String>,
    timeout_above: Option<Duration>,
}

impl TaskRule {
    /// Only the tools whose definitions say so.
    pub fn none() -> Self {
        TaskRule::default()
    }

    /// Every tool.
    pub fn all() -> Self {
        TaskRule {
            all: true,
            ..TaskRule::default()
        }
    }

    /// The tool `name` too.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>) -> Self {
        self.names.push(name.into());
        self
    }

    /// Every tool whose timeout is longer than `limit` too.
    #[must_use]
    pub fn timeout_above(mut self, limit: Duration) -> Self {
        self.timeout_above = Some(limit);
        self
    }

    /// Whether the tool `definition` describes runs as a task.
    pub fn matches(&self, definition: &ToolDefinition) -> bool {
        self.all
            || definition.runs_as_task()
            || self.names.iter().any(|name| name == definition.name())
            || self
                .timeout_above
                .zip(definition.timeout())
                .is_some_and(|(limit, timeout)| timeout > limit)
    }
}
