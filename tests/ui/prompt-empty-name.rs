use toolwright::mcp::prompt;

/// Asks for a review.
#[prompt(name = "")]
fn review(code: String) -> String {
    code
}

fn main() {}
