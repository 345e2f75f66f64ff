use toolwright::mcp::resource;

/// The README.
#[resource(uri = "docs://readme", mimetype = "text/markdown")]
fn readme() -> String {
    "# Notes".to_owned()
}

fn main() {}
