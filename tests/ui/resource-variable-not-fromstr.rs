use toolwright::mcp::resource;

/// A note, by its bytes.
#[resource(uri = "notes://{id}")]
fn note(id: Vec<u8>) -> String {
    format!("{id:?}")
}

fn main() {}
