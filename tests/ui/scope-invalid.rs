use toolwright::tool;

/// Write a note.
#[tool(scopes = ["notes:read", "notes write"])]
fn write_note(text: String) -> String {
    text
}

fn main() {}
