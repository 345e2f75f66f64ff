use toolwright::mcp::resource;

/// A count.
#[resource(uri = "stats://count")]
fn count() -> u64 {
    7
}

fn main() {}
