use toolwright::toolset;

struct Service;

#[toolset]
impl Service {
    /// Use the service up.
    #[tool]
    fn finish(self) -> String {
        "done".into()
    }
}

fn main() {}
