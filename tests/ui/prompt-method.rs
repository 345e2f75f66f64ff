use toolwright::mcp::prompt;

struct Reviewer;

impl Reviewer {
    /// Asks for a review.
    #[prompt]
    fn review(&self, code: String) -> String {
        code
    }
}

fn main() {}
