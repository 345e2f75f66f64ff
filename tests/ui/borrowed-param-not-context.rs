use toolwright::tool;

struct Config {
    greeting: String,
}

/// Greet someone.
#[tool]
fn greet(config: &Config, name: String) -> String {
    format!("{} {name}", config.greeting)
}

fn main() {}
