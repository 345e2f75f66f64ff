//! With the `inventory` feature, every `#[tool]` in the binary is collected.

use toolwright::{ToolCall, Toolbox, tool};

/// Add two integers.
#[tool]
fn plus(a: i64, b: i64) -> i64 {
    a + b
}

/// Negate an integer.
#[tool]
fn negate(value: i64) -> i64 {
    -value
}

struct Tenant {
    id: u32,
}

/// The tenant's id.
#[tool]
fn tenant_id(#[tool(context)] tenant: &Tenant) -> u32 {
    tenant.id
}

#[test]
fn collect_finds_every_tool_for_the_context() {
    let tools = Toolbox::<Tenant>::collect().unwrap();
    let names: Vec<&str> = tools.definitions().map(|d| d.name()).collect();
    assert_eq!(names, ["negate", "plus", "tenant_id"]);
    let result = tools.execute_blocking(&ToolCall::new("c1", "tenant_id", ""), &Tenant { id: 7 });
    assert_eq!(result.text(), "7");
    let result = tools.execute_blocking(
        &ToolCall::new("c2", "plus", r#"{"a": 1, "b": 2}"#),
        &Tenant { id: 7 },
    );
    assert_eq!(result.text(), "3");
}

#[test]
fn tools_for_another_context_are_left_out() {
    let tools = Toolbox::<()>::collect().unwrap();
    let names: Vec<&str> = tools.definitions().map(|d| d.name()).collect();
    assert_eq!(names, ["negate", "plus"]);
    assert_eq!(
        tools
            .execute_blocking(&ToolCall::new("c1", "negate", r#"{"value": 4}"#), &())
            .text(),
        "-4"
    );
}
