use toolwright::{ToolCall, Toolbox, tool};

#[doc = include_str!("echo-description.txt")]
#[tool(display = "Echo", tags = ["demo", "text"], read_only, destructive = false)]
#[deprecated(since = "0.2.0", note = "use `say` instead")]
fn echo(
    #[doc = concat!("The text ", "to echo.")]
    text: String,
    #[tool(default = 1)] times: u32,
) -> String {
    text.repeat(times as usize)
}

#[allow(deprecated)]
fn main() {
    let tools = Toolbox::new().with(EchoTool).unwrap();
    let def = tools.get("echo").unwrap().definition();
    assert_eq!(def.description(), "Repeat the text you are given.");
    assert_eq!(def.parameters()["properties"]["text"]["description"], "The text to echo.");
    assert_eq!(def.display_text(), Some("Echo"));
    assert_eq!(def.tags(), ["demo", "text"]);
    assert_eq!(def.deprecated().unwrap().note.as_deref(), Some("use `say` instead"));
    assert_eq!(def.annotations().destructive, Some(false));
    let result = tools.execute_blocking(&ToolCall::new("1", "echo", r#"{"text":"ab"}"#), &());
    assert_eq!(result.text(), "ab");
}
