use toolwright::tool;

/// List the newest entries.
#[tool]
fn newest(#[tool(default = "ten")] size: u32) -> Vec<String> {
    vec![String::new(); size as usize]
}

fn main() {}
