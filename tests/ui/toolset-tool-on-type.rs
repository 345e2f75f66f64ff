use toolwright::toolset;

struct Service;

// An associated type in an inherent impl is itself unstable (rustc says so too); the
// attribute is told first.
#[toolset]
impl Service {
    /// The key type.
    #[tool]
    type Key = String;

    /// Look a key up.
    #[tool]
    fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}
