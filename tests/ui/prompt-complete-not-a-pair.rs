use toolwright::mcp::prompt;

/// Asks for a review.
#[prompt(complete(language))]
fn review(language: String) -> String {
    language
}

fn main() {}
