use toolwright::tool;

struct Db {
    rows: Vec<String>,
}

/// Scan the table.
#[tool(blocking)]
fn scan(#[tool(context)] db: &Db) -> usize {
    db.rows.len()
}

fn main() {}
