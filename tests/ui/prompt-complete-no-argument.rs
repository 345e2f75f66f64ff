use std::collections::HashMap;

use toolwright::mcp::prompt;

fn languages(_: &str, _: &HashMap<String, String>) -> Vec<String> {
    Vec::new()
}

/// Asks for a review.
#[prompt(complete(lang = languages))]
fn review(language: String) -> String {
    language
}

fn main() {}
