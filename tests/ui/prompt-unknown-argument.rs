use toolwright::mcp::prompt;

/// Asks for a review.
#[prompt(description = "Asks for a review")]
fn review(code: String) -> String {
    code
}

fn main() {}
