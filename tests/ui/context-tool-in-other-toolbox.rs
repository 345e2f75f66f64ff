use toolwright::{Toolbox, tool};

struct App {
    user: String,
}

/// Who is asking.
#[tool]
fn whoami(#[tool(context)] app: &App) -> String {
    app.user.clone()
}

fn main() {
    let mut tools: Toolbox<()> = Toolbox::new();
    tools.register(WhoamiTool).unwrap();
}
