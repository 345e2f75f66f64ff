use std::collections::HashMap;

use toolwright::mcp::resource;

fn ids(_: &str, _: &HashMap<String, String>) -> Vec<String> {
    Vec::new()
}

/// A note.
#[resource(uri = "notes://{id}", complete(identifier = ids))]
fn note(id: String) -> String {
    id
}

fn main() {}
