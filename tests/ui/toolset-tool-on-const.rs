use toolwright::toolset;

struct Service;

#[toolset]
impl Service {
    /// The limit.
    #[tool]
    const LIMIT: usize = 10;

    /// Look a key up.
    #[tool]
    fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}
