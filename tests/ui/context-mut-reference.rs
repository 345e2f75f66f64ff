use toolwright::tool;

struct App {
    calls: u32,
}

/// Count calls.
#[tool]
fn count(#[tool(context)] app: &mut App) -> u32 {
    app.calls += 1;
    app.calls
}

fn main() {
    // Registered as usual: the error above is the only one.
    let tools = toolwright::Toolbox::<App>::for_context().with(CountTool).unwrap();
    let _ = tools.execute_blocking(&toolwright::ToolCall::new("1", "count", "{}"), &App { calls: 0 });
}
