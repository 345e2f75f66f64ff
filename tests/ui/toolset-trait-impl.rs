use toolwright::toolset;

trait Lookup {
    fn lookup(&self, key: String) -> String;
}

struct Service;

#[toolset]
impl Lookup for Service {
    /// Look a key up.
    #[tool]
    fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}
