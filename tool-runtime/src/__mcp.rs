//! What toolwright-mcp, the workspace's MCP crate, needs of this crate beyond its public API:
//! MCP's `structuredContent` rule (the same as the provider encoder's), a model-sent name shown
//! bounded, dispatch's lookup and stand-in names, and an error result with its detail. Not public
//! API: toolwright-mcp depends on this crate at exactly its own version (`=`), so nothing here
//! is bound by semver; the code `#[tool]` generates has its own door, `__private`.

use crate::call::ToolCall;
use crate::tool::ErasedTool;

pub use crate::providers::mcp::{schema_type, structured_content};
/// The duration histograms' bucket boundaries (the MCP conventions'), shared by the MCP ones.
#[cfg(feature = "otel")]
pub use crate::telemetry::metrics::BOUNDARIES as DURATION_BOUNDARIES;
pub use toolwright_json::echo::Name as EchoName;

/// The tool a call names, or the unknown-tool result (with its close matches) the toolbox
/// would give: the one lookup dispatch makes.
///
/// # Errors
/// The unknown-tool result.
#[expect(
    clippy::result_large_err,
    reason = "the error is the very result dispatch returns"
)]
pub fn lookup<'a, C: ?Sized + Sync + 'static>(
    toolbox: &'a crate::toolbox::Toolbox<C>,
    call: &ToolCall,
    caller: Option<&crate::caller::Caller>,
) -> Result<(usize, &'a std::sync::Arc<dyn ErasedTool<C>>), crate::result::ToolResult> {
    toolbox.lookup_for(call, caller)
}

/// A tool's name, shared (as its results carry it).
pub fn tool_name<C: ?Sized + Sync + 'static>(
    tool: &std::sync::Arc<dyn ErasedTool<C>>,
) -> crate::call::ToolName {
    tool.definition().shared_name()
}

/// `(name sent, tool name)` of every tool whose name `provider` cannot carry and that is sent
/// under a stand-in.
pub fn stand_ins<C: ?Sized + Sync + 'static>(
    toolbox: &crate::toolbox::Toolbox<C>,
    provider: crate::forms::Provider,
) -> Vec<(String, String)> {
    toolbox.stand_ins(provider)
}

/// An error result for a call, with its detail for the application.
pub fn error_result(
    call_id: &crate::call::CallId,
    tool_name: crate::call::ToolName,
    message: String,
    detail: crate::result::ResultDetail,
) -> crate::result::ToolResult {
    crate::result::ToolResult::error(call_id, tool_name, message, detail)
}

/// A fn's raw doc text (the `concat!` of its `#[doc]` attributes, as `#[tool]` hands it over)
/// as `#[resource]` and `#[prompt]` use it: the description, tidied as a tool's is, and the
/// descriptions of its `# Arguments` section, by name.
#[must_use]
pub fn doc_parts(raw: &str) -> (String, Vec<(String, String)>) {
    let docs = crate::docs::split(raw);
    (docs.description, docs.arguments)
}

/// A parameter's raw doc text, tidied as a description is.
#[must_use]
pub fn tidy_doc(raw: &str) -> String {
    crate::docs::tidy(raw)
}

/// Tool search on an MCP server: the search tool's `tools/list` entry, when the toolbox's
/// search is on.
pub fn search_entry<C: ?Sized + Sync + 'static>(
    toolbox: &crate::toolbox::Toolbox<C>,
) -> Option<&serde_json::Value> {
    toolbox.search_entry(crate::forms::Provider::Mcp)
}

/// Whether the toolbox's search defers the tool `name` (a `tools/list` leaves it out until the
/// session's search finds it).
pub fn is_deferred<C: ?Sized + Sync + 'static>(
    toolbox: &crate::toolbox::Toolbox<C>,
    name: &str,
) -> bool {
    toolbox.is_deferred(name)
}

/// Whether `call` is of the toolbox's search tool (answered by the toolbox, not a tool of it).
pub fn is_search_call<C: ?Sized + Sync + 'static>(
    toolbox: &crate::toolbox::Toolbox<C>,
    call: &ToolCall,
) -> bool {
    toolbox.is_search_call(call)
}

/// The `tools/list` entries of the tools a search result found (`None` for another result).
pub fn found_entries<C: ?Sized + Sync + 'static>(
    toolbox: &crate::toolbox::Toolbox<C>,
    result: &crate::result::ToolResult,
) -> Option<Vec<serde_json::Value>> {
    toolbox.found_entries(crate::forms::Provider::Mcp, result)
}

/// The elicitation (`elicitation/create`'s params, a form with one `approve` checkbox) that asks
/// a person to approve `call`, held for `message`: the MCP server asks it of a client, a task
/// keeps it as an input request.
pub fn approval_params(call: &ToolCall, message: &str) -> serde_json::Value {
    let arguments = serde_json::to_string(&call.arguments_as_map()).unwrap_or_default();
    serde_json::json!({
        "mode": "form",
        "message": format!(
            "The model wants to run `{}` with {arguments}: {message}. Approve?",
            call.name
        ),
        "requestedSchema": {
            "type": "object",
            "properties": {"approve": {"type": "boolean", "title": "Approve this call"}},
            "required": ["approve"],
        },
    })
}
