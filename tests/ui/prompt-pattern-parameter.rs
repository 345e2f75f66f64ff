use toolwright::mcp::prompt;

/// Asks for a review.
#[prompt]
fn review((code, language): (String, String)) -> String {
    format!("{code} {language}")
}

fn main() {}
