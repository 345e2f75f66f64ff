use toolwright::tool;

/// Hash a file.
#[tool(timeout = "5s")]
fn hash(path: String) -> String {
    path
}

fn main() {}
