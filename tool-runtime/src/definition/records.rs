//! The small records a definition holds: behaviour hints, deprecation, what to do with
//! undeclared arguments.

use serde::{Deserialize, Serialize};

/// Hints about a tool's behaviour, as in MCP's `ToolAnnotations`. `None` leaves a hint unsaid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    #[serde(rename = "readOnlyHint", skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(rename = "destructiveHint", skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    #[serde(rename = "idempotentHint", skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// The tool reaches an open world of external entities (the web, say).
    #[serde(rename = "openWorldHint", skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// A deprecated tool's `#[deprecated]` attribute.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deprecation {
    /// `since = ".."`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// `note = ".."`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What to do with arguments a tool does not declare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownArgs {
    /// Refuse the call, naming each unknown argument and its close match (the default). The
    /// schema says `additionalProperties: false`.
    #[default]
    Reject,
    /// Drop unknown arguments silently. The schema allows additional properties.
    Ignore,
}
