use toolwright::tool;

/// Delete a file.
#[tool(cut_off = "repair")]
fn delete_file(path: String) -> String {
    path
}

fn main() {}
