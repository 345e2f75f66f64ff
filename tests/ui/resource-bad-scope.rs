use toolwright::mcp::resource;

/// The README.
#[resource(uri = "docs://readme", scopes = ["docs read"])]
fn readme() -> String {
    "# Notes".to_owned()
}

fn main() {}
