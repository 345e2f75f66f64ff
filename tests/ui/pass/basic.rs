use toolwright::{Tool, ToolCall, Toolbox, tool};

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Add two integers, later.
#[tool(name = "add_async")]
async fn add_later(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let tools = Toolbox::new().with(AddTool).unwrap().with(AddLaterTool).unwrap();
    let result = tools.execute_blocking(&ToolCall::new("1", "add_async", r#"{"a":1,"b":2}"#), &());
    assert_eq!(result.text(), "3");
    assert_eq!(add(1, 2), 3);
    // The typed arguments are reachable through the handle.
    type AddArgs = <AddTool as Tool>::Args;
    let args = AddArgs { a: 1, b: 2 };
    assert_eq!(args.a + args.b, 3);
}
