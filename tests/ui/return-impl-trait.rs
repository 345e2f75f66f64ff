use toolwright::tool;

/// Say hello.
#[tool]
fn hello(name: String) -> impl serde::Serialize {
    format!("hello {name}")
}

fn main() {}
