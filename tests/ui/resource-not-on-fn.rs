use toolwright::mcp::resource;

#[resource(uri = "docs://readme")]
struct Readme;

fn main() {}
