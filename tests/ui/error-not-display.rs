use toolwright::tool;

#[derive(Debug)]
struct Oops;

/// Try something.
#[tool]
fn attempt(input: String) -> Result<String, Oops> {
    if input.is_empty() { Err(Oops) } else { Ok(input) }
}

fn main() {}
