use toolwright::toolset;

struct Store<T> {
    items: Vec<T>,
}

#[toolset]
impl<T: Send + Sync + 'static> Store<T> {
    /// How many items there are.
    #[tool]
    fn len(&self) -> usize {
        self.items.len()
    }
}

fn main() {}
