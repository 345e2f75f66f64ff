use toolwright::toolset;

struct Files;

#[toolset]
impl Files {
    /// Read a file.
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }

    /// Read a file, all of it.
    #[tool(name = "read")]
    fn read_all(&self, path: String) -> String {
        path
    }
}

fn main() {}
