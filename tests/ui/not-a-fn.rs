use toolwright::tool;

/// A thing.
#[tool]
struct Thing {
    name: String,
}

fn main() {}
