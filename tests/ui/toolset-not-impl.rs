use toolwright::toolset;

/// Look a key up.
#[toolset]
fn lookup(key: String) -> String {
    key
}

fn main() {}
