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

fn main() {}
