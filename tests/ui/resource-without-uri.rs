use toolwright::mcp::resource;

/// The README.
#[resource(mime_type = "text/markdown")]
fn readme() -> String {
    "# Notes".to_owned()
}

fn main() {}
