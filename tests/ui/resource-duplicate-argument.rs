use toolwright::mcp::resource;

/// The README.
#[resource(uri = "docs://readme", uri = "docs://intro")]
fn readme() -> String {
    "# Notes".to_owned()
}

fn main() {}
