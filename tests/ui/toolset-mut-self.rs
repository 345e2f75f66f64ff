use toolwright::toolset;

struct Counter {
    count: u64,
}

#[toolset]
impl Counter {
    /// Count one more.
    #[tool]
    fn bump(&mut self) -> u64 {
        self.count += 1;
        self.count
    }
}

fn main() {}
