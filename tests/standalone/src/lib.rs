//! A crate that depends on toolwright alone: generated code must reach serde and schemars through
//! toolwright, never through the user's own dependencies.

use toolwright::{CallInfo, ToolOutput, tool};

/// Repeat a word.
#[tool]
pub fn repeat(
    /// The word.
    word: String,
    /// How many times; twice when omitted.
    times: Option<u32>,
    /// Separator between repetitions.
    #[tool(default = String::from(" "))]
    separator: String,
) -> Vec<String> {
    let _ = separator;
    vec![word; times.unwrap_or(2) as usize]
}

/// Say which call this is.
#[tool(read_only)]
pub async fn which(#[tool(call_info)] info: &CallInfo) -> ToolOutput {
    ToolOutput::text(info.call_id())
}

#[cfg(test)]
mod tests {
    use toolwright::{ToolCall, Toolbox};

    #[test]
    fn tools_of_a_toolwright_only_crate_work() {
        let tools = Toolbox::new()
            .with(super::RepeatTool)
            .and_then(|t| t.with(super::WhichTool))
            .unwrap();
        let result =
            tools.execute_blocking(&ToolCall::new("c1", "repeat", r#"{"word": "hi"}"#), &());
        assert_eq!(result.text(), r#"["hi","hi"]"#);
        assert_eq!(
            tools
                .execute_blocking(&ToolCall::new("c2", "which", ""), &())
                .text(),
            "c2"
        );
    }
}
