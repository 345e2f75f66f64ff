use std::borrow::Cow;

use toolwright::tool;

/// Greet someone.
#[tool]
fn greet<'a>(name: Cow<'a, str>) -> String {
    format!("hello {name}")
}

fn main() {}
