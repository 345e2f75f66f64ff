use toolwright::mcp::resource;

/// The README, in a language.
#[resource(uri = "docs://readme")]
fn readme(language: String) -> String {
    language
}

fn main() {}
