use toolwright::tool;

/// Hash a file.
#[tool(blocking)]
async fn hash(path: String) -> String {
    path
}

fn main() {}
