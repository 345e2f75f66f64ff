use toolwright::tool;

/// Get the weather.
#[tool]
fn get_weather(#[tool(renam = "town")] city: String) -> String {
    city
}

fn main() {}
