use toolwright::tool;

/// Fetch a page.
#[tool(timeout = 5)]
async fn fetch(url: String) -> String {
    url
}

fn main() {}
