//! Every execution setting, and a blocking tool that takes the context and its call info.

use std::sync::Arc;
use std::time::Duration;

use toolwright::{CallInfo, ToolCall, Toolbox, tool};

#[derive(Clone, Default)]
struct App {
    rows: Arc<Vec<String>>,
}

/// Count the rows, slowly.
#[tool(blocking, concurrent, timeout = "1.5s")]
fn count(#[tool(context)] app: &App, #[tool(call_info)] info: &CallInfo) -> String {
    format!("{} rows for {}", app.rows.len(), info.call_id())
}

/// Drop the table.
#[tool(needs_approval, destructive, blocking, timeout = "2m")]
fn drop_table(name: String) -> String {
    name
}

/// Look a row up.
#[tool(read_only, concurrent = false, timeout = "250ms")]
async fn row(index: usize, #[tool(context)] app: &App) -> Option<String> {
    app.rows.get(index).cloned()
}

fn main() {
    let tools = Toolbox::<App>::for_context()
        .with(CountTool)
        .unwrap()
        .with(DropTableTool)
        .unwrap()
        .with(RowTool)
        .unwrap();
    let count = tools.get("count").unwrap().definition();
    assert!(count.is_concurrent());
    assert_eq!(count.timeout(), Some(Duration::from_millis(1500)));
    let drop_table = tools.get("drop_table").unwrap().definition();
    assert!(drop_table.needs_approval());
    assert_eq!(drop_table.timeout(), Some(Duration::from_secs(120)));
    let row = tools.get("row").unwrap().definition();
    assert!(!row.is_concurrent());
    let app = App::default();
    let result = tools.execute_blocking(&ToolCall::new("c9", "count", "{}"), &app);
    assert_eq!(result.text(), "0 rows for c9");
}
