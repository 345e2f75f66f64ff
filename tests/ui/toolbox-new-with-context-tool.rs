// A tool that takes a context, registered in `Toolbox::new()` (a toolbox without one): the
// error says how to make a toolbox for that context.
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
    let _tools = Toolbox::new().with(WhoamiTool).unwrap();
}
