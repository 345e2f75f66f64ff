use toolwright::toolset;

struct Service;

#[toolset]
impl Service {
    /// Echo a value.
    #[tool]
    fn echo<T: serde::de::DeserializeOwned>(&self, value: T) -> String {
        let _ = value;
        String::new()
    }
}

fn main() {}
