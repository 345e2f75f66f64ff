// A blocking tool whose context is not `Clone` runs in a toolbox of `Arc<Db>`, beside tools
// that take `&Db` too.
use std::sync::Arc;

use toolwright::{ToolCall, Toolbox, tool};

struct Db {
    rows: Vec<String>,
}

/// Scan the table.
#[tool(blocking)]
fn scan(#[tool(context)] db: &Db) -> usize {
    db.rows.len()
}

/// The first row.
#[tool]
async fn first(#[tool(context)] db: &Db) -> Option<String> {
    db.rows.first().cloned()
}

fn main() {
    let tools = Toolbox::<Arc<Db>>::for_context()
        .with_all((ScanTool, FirstTool))
        .unwrap();
    let db = Arc::new(Db {
        rows: vec!["a".into(), "b".into()],
    });
    assert_eq!(
        tools.execute_blocking(&ToolCall::new("1", "scan", "{}"), &db).text(),
        "2"
    );
    assert_eq!(
        tools.execute_blocking(&ToolCall::new("2", "first", "{}"), &db).text(),
        "a"
    );
}
