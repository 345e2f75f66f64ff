use toolwright::tool;

/// Print something.
#[tool]
fn show(value: impl std::fmt::Display) -> String {
    value.to_string()
}

fn main() {}
