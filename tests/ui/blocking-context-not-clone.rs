use toolwright::tool;

struct Db {
    rows: Vec<String>,
}

/// Scan the table.
#[tool(blocking)]
fn scan(#[tool(context)] db: &Db) -> usize {
    db.rows.len()
}

fn main() {
    let tools = toolwright::Toolbox::<Db>::for_context().with(ScanTool).unwrap();
    let _ = tools.execute_blocking(&toolwright::ToolCall::new("1", "scan", "{}"), &Db { rows: Vec::new() });
}
