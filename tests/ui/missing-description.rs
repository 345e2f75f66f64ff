use toolwright::tool;

#[tool]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
