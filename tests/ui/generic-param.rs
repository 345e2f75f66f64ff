use toolwright::tool;

/// Echo a value.
#[tool]
fn echo<T: serde::Serialize>(value: T) -> T {
    value
}

fn main() {}
