use toolwright::tool;

/// Fetch a page.
#[tool(timeout = "0s")]
async fn fetch(url: String) -> String {
    url
}

fn main() {}
