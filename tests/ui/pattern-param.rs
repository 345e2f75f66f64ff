use toolwright::tool;

/// Add a pair.
#[tool]
fn add_pair((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
