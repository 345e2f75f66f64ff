//! A tool's registered name, shared between its definition and every result of its calls.

use std::borrow::Cow;
use std::sync::Arc;

use super::text::reads_as_text;

/// A tool's name as it is registered (a [`ToolDefinition`](crate::ToolDefinition)'s, which a
/// toolset's prefix or [`with_name`](crate::ToolDefinition::with_name) may have made at run
/// time), as each [`ToolResult`](crate::ToolResult) names the tool that made it.
///
/// The text sits behind an `Arc` that the definition and its results share: a result takes it
/// without copying, whether the name was written in the source or made at run time, and it stays
/// 16 bytes, so a result is moved without a call to `memcpy` (BENCHMARKS.md). It reads like a
/// `&str` (it derefs to one, compares with `str`, `&str` and `String`, and serializes as a JSON
/// string).
///
/// ```
/// use toolwright::{ToolCall, ToolName, Toolbox};
///
/// #[toolwright::tool]
/// /// Adds two numbers.
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tools = Toolbox::new().with(AddTool).unwrap();
/// let result = tools.execute_blocking(&ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#), &());
/// assert_eq!(result.tool_name, "add");
/// let name: ToolName = "files_read".into();
/// assert_eq!(name.len(), 10);
/// ```
#[derive(Clone)]
pub struct ToolName(Arc<str>);

impl ToolName {
    /// The name as text.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

reads_as_text!(ToolName);

impl From<&str> for ToolName {
    fn from(name: &str) -> Self {
        ToolName(Arc::from(name))
    }
}

impl From<String> for ToolName {
    fn from(name: String) -> Self {
        ToolName(Arc::from(name))
    }
}

impl From<Cow<'_, str>> for ToolName {
    fn from(name: Cow<'_, str>) -> Self {
        ToolName(Arc::from(name))
    }
}

impl From<Arc<str>> for ToolName {
    /// Keeps the `Arc`, shared.
    fn from(name: Arc<str>) -> Self {
        ToolName(name)
    }
}

impl From<ToolName> for Arc<str> {
    fn from(name: ToolName) -> Self {
        name.0
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::Arc;

    use super::ToolName;

    #[test]
    fn reads_compares_and_shares_as_text() {
        let name = ToolName::from(Cow::Borrowed("files_read"));
        let copy = name.clone();
        assert!(std::ptr::eq(name.as_str(), copy.as_str()), "shared");
        assert_eq!(name, "files_read");
        assert_eq!("files_read", name);
        assert_eq!(name, String::from("files_read"));
        assert_eq!(name, ToolName::from(String::from("files_read")));
        assert_eq!(format!("{name} {name:?}"), r#"files_read "files_read""#);
        assert_eq!(serde_json::to_value(&name).unwrap(), "files_read");
        assert_eq!(String::from(name.clone()), "files_read");
        let arc: Arc<str> = Arc::from("add");
        assert!(Arc::ptr_eq(
            &Arc::<str>::from(ToolName::from(Arc::clone(&arc))),
            &arc
        ));
        let (a, b) = (ToolName::from("a"), ToolName::from("b"));
        assert_eq!(a.cmp(&b), std::cmp::Ordering::Less);
    }
}
