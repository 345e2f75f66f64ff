use toolwright::tool;

// Every mistake in this fn is reported in one build, and the fn and its handle still exist, so
// the rest of the crate compiles.
#[tool(nme = "x", unknown_args = "maybe")]
fn broken(name: &str, (a, b): (u8, u8), #[tool(context)] app: String) -> String {
    format!("{name}{a}{b}{app}")
}

fn main() {
    let _still_callable = broken("x", (1, 2), String::new());
    let _handle = BrokenTool;
}
