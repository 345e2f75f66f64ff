use toolwright::tool;

/// Get the weather.
#[tool(unknown_args = "allow")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
