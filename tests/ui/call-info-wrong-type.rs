use toolwright::tool;

/// Which call is this.
#[tool]
fn which(#[tool(call_info)] info: &String) -> String {
    info.clone()
}

fn main() {}
