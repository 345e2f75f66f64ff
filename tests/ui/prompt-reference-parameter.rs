use toolwright::mcp::prompt;

/// Asks for a review.
#[prompt]
fn review(code: &str) -> String {
    code.to_owned()
}

fn main() {}
