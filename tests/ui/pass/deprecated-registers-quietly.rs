// A deprecated tool is registered without a warning (the application keeps offering it while it
// goes away), and every provider form tells the model; calling the fn itself still warns.
#![deny(deprecated)]

use toolwright::{Toolbox, provider::Provider, tool};

/// Repeat the text.
#[tool]
#[deprecated(since = "0.2.0", note = "use `say` instead")]
fn echo(text: String) -> String {
    text
}

/// Say the text.
#[tool]
#[deprecated]
fn shout(text: String) -> String {
    text.to_uppercase()
}

fn main() {
    let tools = Toolbox::<()>::new()
        .with(EchoTool)
        .unwrap()
        .with(ShoutTool)
        .unwrap();
    for (format, json_schema) in [
        (Provider::OpenAiChat, false),
        (Provider::OpenAiResponses, false),
        (Provider::Anthropic, false),
        (Provider::Gemini, false),
        (Provider::Gemini, true),
        (Provider::Mcp, false),
    ] {
        let tools = tools.clone().with_gemini_json_schema(json_schema);
        let list = serde_json::to_value(tools.tools_for(format).unwrap()).unwrap();
        let text = list.to_string();
        assert!(
            text.contains("Deprecated since 0.2.0: use `say` instead. Repeat the text."),
            "{format:?}: {text}"
        );
        assert!(text.contains("Deprecated. Say the text."), "{format:?}: {text}");
    }
    // The definition keeps the description as written, and the deprecation beside it.
    let def = tools.get("echo").unwrap().definition();
    assert_eq!(def.description(), "Repeat the text.");
    assert_eq!(def.deprecated().unwrap().since.as_deref(), Some("0.2.0"));
}
