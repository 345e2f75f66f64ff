use toolwright::tool;

struct App;
struct Db;

/// Who is asking.
#[tool]
fn whoami(#[tool(context)] app: &App, #[tool(context)] db: &Db) -> String {
    let _ = (app, db);
    String::new()
}

fn main() {}
