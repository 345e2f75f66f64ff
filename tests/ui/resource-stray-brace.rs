use toolwright::mcp::resource;

/// A note.
#[resource(uri = "notes://id}")]
fn note() -> String {
    String::new()
}

fn main() {}
