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
///
/// `#[tool]` fns and [`ToolDefinition::from_params`](crate::ToolDefinition::from_params) refuse
/// them unless told otherwise (`#[tool(unknown_args = "ignore")]`). A schema given at run time
/// ([`ToolDefinition::new`](crate::ToolDefinition::new)) is the contract as written: with
/// `additionalProperties: false` (or `unevaluatedProperties: false`) at its root it refuses
/// them ([`Reject`](Self::Reject)); without, JSON Schema allows them and so does toolwright
/// ([`Allow`](Self::Allow): they reach the tool, checked against `additionalProperties` when
/// that is a schema). [`ToolDefinition::with_unknown_args`](crate::ToolDefinition::with_unknown_args)
/// chooses otherwise, and writes the choice into the schema the model is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownArgs {
    /// Refuse the call, naming each unknown argument and its close match (the default of
    /// `#[tool]`). The schema says `additionalProperties: false`.
    #[default]
    Reject,
    /// Drop unknown arguments before the tool sees them, each recorded as a coercion
    /// (`CoercionKind::DroppedUnknown`). The schema allows additional properties.
    Ignore,
    /// Pass unknown arguments to the tool, as the schema allows: a run-time schema that closes
    /// nothing. Only a tool whose arguments are a map (a [`DynamicTool`](crate::DynamicTool), say)
    /// sees them.
    Allow,
}

impl UnknownArgs {
    /// What a parameters schema says of undeclared arguments: [`Reject`](Self::Reject) when its
    /// root closes them (`additionalProperties: false` or `unevaluatedProperties: false`),
    /// [`Allow`](Self::Allow) otherwise.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::dynamic::UnknownArgs;
    ///
    /// let open = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    /// assert_eq!(UnknownArgs::of_schema(&open), UnknownArgs::Allow);
    /// let closed = json!({"type": "object", "additionalProperties": false});
    /// assert_eq!(UnknownArgs::of_schema(&closed), UnknownArgs::Reject);
    /// ```
    pub fn of_schema(schema: &serde_json::Value) -> Self {
        let closes = |keyword| schema.get(keyword) == Some(&serde_json::Value::Bool(false));
        if closes("additionalProperties") || closes("unevaluatedProperties") {
            UnknownArgs::Reject
        } else {
            UnknownArgs::Allow
        }
    }
}
