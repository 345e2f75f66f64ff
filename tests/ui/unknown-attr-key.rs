use toolwright::tool;

/// Get the weather.
#[tool(nme = "weather")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
