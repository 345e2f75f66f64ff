use toolwright::tool;

/// Get the weather.
#[tool(unknown_args = "allow", read_only = "yes", timeout = "5")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
