use toolwright::tool;

struct App;

/// Who is asking.
#[tool]
fn whoami(#[tool(context)] app: App) -> String {
    let _ = app;
    String::new()
}

fn main() {
    // Registered as usual: the error above is the only one.
    let tools = toolwright::Toolbox::<App>::for_context().with(WhoamiTool).unwrap();
    let _ = tools.execute_blocking(&toolwright::ToolCall::new("1", "whoami", "{}"), &App);
}
