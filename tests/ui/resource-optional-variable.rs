use toolwright::mcp::resource;

/// A note.
#[resource(uri = "notes://{id}")]
fn note(id: Option<u32>) -> String {
    format!("{id:?}")
}

fn main() {}
