//! A complete tool loop against a scripted model, offline: the model's responses are Anthropic
//! Messages responses read from `examples/data/agent_loop.json` (the first one recorded from a real
//! conversation, the rest written in the same shape). Each turn's calls run as one batch; what the
//! batch returns is encoded and sent back, and the scripted model checks every call got its result
//! before it answers.
//!
//! It shows a recovered argument error (the recorded call uses other parameter names than the
//! demo's `get_weather`), calls sharing the time (two weather lookups and three 250 ms sleeps in
//! about 250 ms), a call stopped by its timeout, and two calls held for approval, answered from the
//! script: one approved, one rejected.
//!
//! ```text
//! cargo run --example agent_loop
//! ```

mod demo;
mod output;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwright::provider::Provider;
use toolwright::{ToolCall, ToolResult, Toolbox, exec::BatchOptions, tool};

/// Fetch the sales report of a region.
// A slow backend: it takes five seconds, and the tool allows 150 ms.
#[tool(concurrent, timeout = "150ms")]
async fn fetch_report(
    /// The region, e.g. "emea".
    region: String,
) -> String {
    toolwright::exec::sleep(Duration::from_secs(5)).await;
    format!("{region}: sales up 4%")
}

/// Send a vendor its invoice.
#[tool(needs_approval, destructive)]
fn send_invoice(
    /// The vendor's name.
    vendor_name: String,
    /// The total amount, e.g. "120.50 EUR".
    total_amount: String,
) -> String {
    format!("invoice for {total_amount} sent to {vendor_name}")
}

/// Delete draft invoices older than some days.
#[tool(needs_approval, destructive)]
fn purge_drafts(
    /// Age in days above which drafts go.
    older_than_days: u32,
) -> String {
    format!("deleted drafts older than {older_than_days} days")
}

/// The model: answers with the next scripted response, as a provider would, after checking
/// that the conversation so far pairs every call with a result.
struct ScriptedModel {
    responses: VecDeque<Value>,
}

impl ScriptedModel {
    fn respond(&mut self, messages: &[Value]) -> Result<Value, String> {
        if let [.., Value::Object(asked), Value::Object(answered)] = messages
            && asked["role"] == "assistant"
        {
            let calls: Vec<&Value> = blocks(asked, "tool_use").map(|b| &b["id"]).collect();
            let results: Vec<&Value> = blocks(answered, "tool_result")
                .map(|b| &b["tool_use_id"])
                .collect();
            if calls != results {
                return Err(format!(
                    "tool_use ids {calls:?} were answered by tool_result ids {results:?}"
                ));
            }
        }
        self.responses
            .pop_front()
            .ok_or_else(|| "the script has no more responses".to_owned())
    }
}

fn blocks<'a>(
    message: &'a serde_json::Map<String, Value>,
    kind: &'a str,
) -> impl Iterator<Item = &'a Value> {
    message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |block| block["type"] == kind)
}

/// The first line of a result, for the transcript.
fn summary(result: &ToolResult) -> String {
    let text = result.text();
    let first = text.lines().next().unwrap_or_default();
    let mark = if result.is_interrupt() {
        "waits for approval"
    } else if result.is_error {
        "error"
    } else {
        "ok"
    };
    format!("{mark}: {first}")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let script: Value = serde_json::from_str(include_str!("data/agent_loop.json"))?;
    let mut tools: Toolbox<demo::DemoContext> = demo::toolbox();
    tools
        .register(FetchReportTool)?
        .register(SendInvoiceTool)?
        .register(PurgeDraftsTool)?;
    let ctx = demo::context();
    // A request asking for one call at a time would run them one at a time here too.
    let options = BatchOptions::for_request(&script["request"]);
    let approvals = &script["approvals"];
    let mut model = ScriptedModel {
        responses: script["responses"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into(),
    };

    let mut messages = vec![json!({"role": "user", "content": script["user"]})];
    output::say!("user: {}", script["user"].as_str().unwrap_or_default());
    for turn in 1.. {
        let response = model.respond(&messages)?;
        let reply = tools.read_response(Provider::Anthropic, &response)?;
        messages.push(json!({"role": "assistant", "content": response["content"]}));
        if !reply.text.is_empty() {
            output::say!("model: {}", reply.text);
        }
        let calls: Vec<ToolCall> = reply.local_calls().cloned().collect();
        if calls.is_empty() {
            output::say!(
                "done after {turn} turns ({})",
                reply.stop_reason.unwrap_or_default()
            );
            break;
        }

        let started = Instant::now();
        let mut results = tools.execute_all_with(&calls, &ctx, options.clone()).await;
        output::say!(
            "turn {turn}: {} calls in one batch, done in {} ms",
            calls.len(),
            started.elapsed().as_millis()
        );
        for (call, result) in calls.iter().zip(&mut results) {
            output::say!("  {} {} -> {}", call.name, arguments(call), summary(result));
            if result.is_interrupt() {
                let answer = &approvals[call.call_id.as_str()];
                *result = if answer["approve"] == true {
                    output::say!("  approved (from the script)");
                    tools.approve(call, &ctx).await
                } else {
                    let reason = answer["reject"].as_str().unwrap_or("no reason given");
                    output::say!("  rejected (from the script): {reason}");
                    tools.reject(call, reason)
                };
                output::say!("  {} -> {}", call.name, summary(result));
            }
            if let Some(failures) = result.budget_exhausted() {
                return Err(format!(
                    "the model sent bad arguments to `{}` {failures} times in a row; stopping",
                    call.name
                )
                .into());
            }
        }
        messages.push(tools.encode_results(Provider::Anthropic, &calls, &results)?);
    }
    Ok(())
}

/// A call's arguments as compact JSON, for the transcript.
fn arguments(call: &ToolCall) -> String {
    Value::Object(call.arguments_as_map()).to_string()
}
