use toolwright::mcp::resource;

/// A value.
#[resource(uri = "values://{key}")]
fn value<K: std::str::FromStr + ToString>(key: K) -> String {
    key.to_string()
}

fn main() {}
