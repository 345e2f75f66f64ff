use toolwright::tool;

struct Handle(u32);

/// Open something.
#[tool]
fn open(path: String) -> Handle {
    Handle(path.len() as u32)
}

fn main() {}
