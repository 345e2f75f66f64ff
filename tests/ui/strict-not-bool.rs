use toolwright::tool;

/// Get the weather.
#[tool(strict = "yes")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
