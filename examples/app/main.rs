//! A small application written against toolwright as a user would write one: a shop's back
//! office whose tools are the methods of its service (`#[toolset] impl Shop` in `shop.rs`: an
//! in-memory store of orders and stock, and a root of documents on disk), plus a free tool that
//! reads the per-request session. Twelve tools: nested structs with formats and ranges, an
//! internally tagged and an untagged enum, a map, defaults and renames, thiserror and anyhow
//! errors, an async call with a timeout, a blocking one, an approval, a deprecated tool.
//!
//! It runs one OpenAI Chat turn and one Anthropic turn, from responses in the shapes the
//! providers send (`turns/`): each response is read, its calls run as one batch, the held
//! cancellations decided by a "person" (approved while the order has not shipped) with
//! `resolve_interrupts`, and the results encoded as the provider's next message. It prints JSON
//! lines: the tools it offers, each decision, each turn's encoded results, the orders at the end.
//!
//! ```text
//! cargo run --example app
//! ```

mod shop;

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};
use toolwright::provider::Provider;
use toolwright::{ToolCall, ToolResult, Toolbox, exec::Decision, schema::Form};

use shop::{Session, Shop, Status, WhoamiTool};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let root = std::env::temp_dir().join(format!("toolwright-app-{}", std::process::id()));
    let outcome = run(root.clone()).await;
    let _ = std::fs::remove_dir_all(&root);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`cargo run --example app | head`): done, quietly.
        Err(error)
            if error
                .downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("app: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(root: std::path::PathBuf) -> Result<(), Box<dyn std::error::Error>> {
    let shop = Arc::new(Shop::open(root)?);
    // The shop's tools and a free one, registered together: all or none, every clash told.
    let tools = Toolbox::<Session>::for_context()
        .with_all(Arc::clone(&shop).toolset())?
        .with(WhoamiTool)?;

    // What the providers are offered. `restock` takes a map, which OpenAI's strict mode cannot
    // say: the lint says so first, and the tools go out non-strict (the runtime checks every
    // call either way).
    let lint = tools.lint([
        Form::strict(Provider::OpenAiChat),
        Form::new(Provider::Anthropic),
    ]);
    let offered = tools.tools_for(Provider::OpenAiChat)?;
    emit(&json!({
            "event": "tools",
            "names": tools.definitions().map(toolwright::ToolDefinition::name).collect::<Vec<_>>(),
            "openai_entries": offered.entries().len(),
            // A deprecated tool is still offered, and the model told.
            "revenue": offered.entries().iter().find(|e| e["function"]["name"] == "revenue").map(|e| &e["function"]["description"]),
            "strict_lint_errors": lint.errors().map(|l| format!("{} {}", l.tool, l.path)).collect::<Vec<_>>(),
    }))?;

    let session = Session {
        user: "ops@shop.example".into(),
    };

    for (name, provider, body) in [
        (
            "openai",
            Provider::OpenAiChat,
            include_str!("turns/openai.json"),
        ),
        (
            "anthropic",
            Provider::Anthropic,
            include_str!("turns/anthropic.json"),
        ),
    ] {
        let response: Value = serde_json::from_str(body)?;
        let turn = tools.read_response(provider, &response)?;
        let mut results = tools.execute_all(&turn.calls, &session).await;
        report_fixes(name, &turn.calls, &results)?;

        // A person decides on each held call; the results are resolved in place, in call order.
        let mut decisions = Vec::new();
        tools
            .resolve_interrupts(&turn.calls, &mut results, &session, |call, interrupt| {
                let shipped = interrupt.data["id"].as_u64().is_none_or(|id| {
                    shop.orders()
                        .iter()
                        .any(|o| o.id == id && o.status == Status::Shipped)
                });
                let decision = if shipped {
                    Decision::Reject(
                        "the order has shipped; a person will call the customer".into(),
                    )
                } else {
                    Decision::Approve
                };
                decisions.push(json!({
                    "event": "decision",
                    "turn": name,
                    "call_id": call.call_id,
                    "tool": call.name,
                    "approved": decision == Decision::Approve,
                }));
                Some(decision)
            })
            .await;
        for decision in decisions {
            emit(&decision)?;
        }

        let next = tools.encode_results(provider, &turn.calls, &results)?;
        emit(
            &json!({"event": "results", "turn": name, "stop_reason": turn.stop_reason, "message": next}),
        )?;
    }

    let orders: Vec<Value> = shop
        .orders()
        .iter()
        .map(|o| json!({"id": o.id, "customer": o.customer.name, "status": o.status, "total_cents": o.total_cents}))
        .collect();
    emit(&json!({"event": "orders", "orders": orders}))?;
    Ok(())
}

/// One line of output; a reader gone away is an error the caller ends on, after cleaning up.
fn emit(event: &Value) -> io::Result<()> {
    writeln!(io::stdout().lock(), "{event}")
}

/// The calls whose arguments needed repair or coercion: what the model got wrong and toolwright
/// took as meant.
fn report_fixes(turn: &str, calls: &[ToolCall], results: &[ToolResult]) -> io::Result<()> {
    for (call, result) in calls.iter().zip(results) {
        if let Some(fixes) = result.fixes().filter(|f| !f.is_empty()) {
            emit(&json!({
                    "event": "fixed",
                    "turn": turn,
                    "call_id": call.call_id,
                    "repairs": fixes.repairs.len(),
                    "coercions": fixes.coercions.len(),
            }))?;
        }
    }
    Ok(())
}
