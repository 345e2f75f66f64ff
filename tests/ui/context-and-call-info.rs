use toolwright::tool;

/// Which call is this.
#[tool]
fn which(#[tool(context, call_info)] info: &toolwright::CallInfo) -> String {
    info.call_id().to_owned()
}

fn main() {}
