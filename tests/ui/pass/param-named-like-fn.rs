use toolwright::{ToolCall, Toolbox, tool};

/// Echo a text.
#[tool]
fn echo(echo: String) -> String {
    echo
}

/// Fetch a URL, later.
#[tool]
async fn url(url: String, #[tool(rename = "echo")] r#echo: Option<u8>) -> String {
    format!("{url} {}", r#echo.unwrap_or(0))
}

fn main() {
    let tools = Toolbox::new().with(EchoTool).unwrap().with(UrlTool).unwrap();
    let result = tools.execute_blocking(&ToolCall::new("1", "echo", r#"{"echo":"hi"}"#), &());
    assert_eq!(result.text(), "hi");
    let result = tools.execute_blocking(&ToolCall::new("2", "url", r#"{"url":"u","echo":3}"#), &());
    assert_eq!(result.text(), "u 3");
    assert_eq!(echo("x".to_owned()), "x");
}
