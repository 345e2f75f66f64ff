use toolwright::mcp::resource;

const URI: &str = "docs://readme";

/// The README.
#[resource(uri = URI)]
fn readme() -> String {
    "# Notes".to_owned()
}

fn main() {}
