use toolwright::mcp::prompt;

/// Asks for a review of some files.
#[prompt]
fn review(files: Option<Vec<String>>) -> String {
    format!("{files:?}")
}

fn main() {}
