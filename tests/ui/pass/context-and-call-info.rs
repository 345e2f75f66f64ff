use toolwright::{CallInfo, ToolCall, Toolbox, tool};

struct App {
    user: String,
}

/// Who is asking.
#[tool]
async fn whoami(#[tool(context)] app: &App, #[tool(call_info)] info: &CallInfo) -> String {
    format!("{} in {}", app.user, info.call_id())
}

/// A tool without context works in any toolbox.
#[tool]
fn ping() -> &'static str {
    "pong"
}

fn main() {
    let tools = Toolbox::<App>::for_context().with(WhoamiTool).unwrap().with(PingTool).unwrap();
    let app = App { user: "ada".into() };
    let result = tools.execute_blocking(&ToolCall::new("c7", "whoami", ""), &app);
    assert_eq!(result.text(), "ada in c7");
    let result = tools.execute_blocking(&ToolCall::new("c8", "ping", ""), &app);
    assert_eq!(result.text(), "pong");
}
