// `Toolbox::new()` with nothing else to say what the context is: a toolbox without one, as
// `HashMap::new()` is a map with the default hasher.
use toolwright::{Toolbox, tool};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let tools = Toolbox::new().with(AddTool).unwrap();
    assert_eq!(tools.len(), 1);
    let empty = Toolbox::new();
    assert!(empty.is_empty());
}
