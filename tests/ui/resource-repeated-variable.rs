use toolwright::mcp::resource;

/// A note.
#[resource(uri = "notes://{id}/{id}")]
fn note(id: String) -> String {
    id
}

fn main() {}
