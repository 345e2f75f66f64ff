use toolwright::mcp::resource;

/// A file, its path with slashes.
#[resource(uri = "files://{+path}")]
fn file(path: String) -> String {
    path
}

fn main() {}
