use toolwright::tool;

/// Write a note.
#[tool(scopes = ["notes:write"], scopes = ["admin"])]
fn write_note(text: String) -> String {
    text
}

fn main() {}
