use toolwright::mcp::prompt;

#[prompt]
const REVIEW: &str = "Review this code.";

fn main() {}
