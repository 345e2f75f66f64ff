use toolwright::mcp::prompt;

/// Asks for a review.
#[prompt]
fn review(code: String) -> Option<String> {
    Some(code)
}

fn main() {}
