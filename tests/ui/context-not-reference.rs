use toolwright::tool;

struct App;

/// Who is asking.
#[tool]
fn whoami(#[tool(context)] app: App) -> String {
    let _ = app;
    String::new()
}

fn main() {}
