use toolwright::{Toolbox, tool};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let _ = Toolbox::<()>::new().with(add);
}
