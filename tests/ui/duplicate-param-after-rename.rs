use toolwright::tool;

/// Copy a file.
#[tool]
fn copy(#[tool(rename = "to")] from: String, to: String) -> String {
    format!("{from} -> {to}")
}

fn main() {}
