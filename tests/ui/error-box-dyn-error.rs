use toolwright::tool;

/// Read a number.
#[tool]
fn parse(input: String) -> Result<i64, Box<dyn std::error::Error>> {
    Ok(input.parse()?)
}

fn main() {}
