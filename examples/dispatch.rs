//! A line-oriented driver over the demo toolbox.
//!
//! Each stdin line is a JSON tool call `{"id": .., "name": .., "arguments": <string or object>}`;
//! for each, one line `{"call_id": .., "name": .., "is_error": bool, "content": ".."}` is printed,
//! in input order. A line that is not a call gets an error line too, so output lines pair with
//! input lines one to one (blank lines are skipped).
//!
//! ```text
//! echo '{"id":"c1","name":"add","arguments":"{\"a\":2,\"b\":3}"}' | cargo run --example dispatch
//! ```

mod demo;

use std::io::{self, BufRead, BufWriter, Write};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwright::{Arguments, ToolCall};

/// One input line.
#[derive(Deserialize)]
struct CallLine {
    id: Option<Value>,
    name: String,
    #[serde(default)]
    arguments: Option<Arguments>,
}

/// One output line; fields in this order.
#[derive(Serialize)]
struct ResultLine<'a> {
    call_id: Value,
    name: Value,
    is_error: bool,
    content: &'a str,
}

fn id_text(id: Option<Value>) -> String {
    match id {
        Some(Value::String(id)) => id,
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn main() -> io::Result<()> {
    let tools = demo::toolbox();
    let ctx = demo::context();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (index, line) in io::stdin().lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let printed = match serde_json::from_str::<CallLine>(&line) {
            Ok(input) => {
                let call_id = id_text(input.id);
                let call = ToolCall::new(
                    call_id,
                    input.name,
                    input.arguments.unwrap_or(Arguments::Json(Value::Null)),
                )
                .with_index(index);
                let result = tools.execute_blocking(&call, &ctx);
                serde_json::to_string(&ResultLine {
                    call_id: Value::from(result.call_id.as_str()),
                    name: Value::from(result.tool_name.as_ref()),
                    is_error: result.is_error,
                    content: &result.text(),
                })
            }
            Err(error) => serde_json::to_string(&ResultLine {
                call_id: Value::Null,
                name: Value::Null,
                is_error: true,
                content: &format!(
                    "not a tool call line ({error}); expected {{\"id\": .., \"name\": .., \"arguments\": ..}}"
                ),
            }),
        };
        writeln!(out, "{}", printed.map_err(io::Error::other)?)?;
    }
    out.flush()
}
