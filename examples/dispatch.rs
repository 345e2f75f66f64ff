//! A line-oriented driver over the demo toolbox.
//!
//! Each stdin line is a JSON tool call `{"id": .., "name": .., "arguments": <string or object>}`;
//! for each, one line `{"call_id": .., "name": .., "is_error": bool, "content": ".."}` is printed,
//! in input order. A line that is not a call gets an error line too (with whatever id and name it
//! had), so output lines pair with input lines one to one; blank lines are skipped.
//!
//! ```text
//! echo '{"id":"c1","name":"add","arguments":"{\"a\":2,\"b\":3}"}' | cargo run --example dispatch
//! ```
//!
//! With `--batch`, every call on stdin runs as one batch (`Toolbox::execute_all`): calls of tools
//! safe to run concurrently (`sleep`, the read-only tools) share the time, the others run alone in
//! call order; the lines are printed once all calls are done, still in input order.
//!
//! ```text
//! for i in 1 2 3; do echo '{"id":"s'$i'","name":"sleep","arguments":{"ms":300}}'; done |
//!     cargo run --example dispatch -- --batch
//! ```
//!
//! Lines are separate cases, not a conversation, so the toolbox keeps no retry budget here: every
//! invalid call gets the plain argument error.

mod demo;
mod output;

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use serde::Serialize;
use serde_json::{Map, Value};
use toolwright::{Arguments, ToolCall, ToolResult};

/// One output line; fields in this order.
#[derive(Serialize)]
struct ResultLine<'a> {
    call_id: Value,
    name: Value,
    is_error: bool,
    content: &'a str,
}

/// A line that holds no call: the id and name it had, if any, and why.
struct BadLine {
    call_id: Value,
    name: Value,
    message: String,
}

fn bad(call_id: Value, name: Value, message: String) -> Box<BadLine> {
    Box::new(BadLine {
        call_id,
        name,
        message,
    })
}

/// The call on one input line, or why there is none.
fn read_call(line: &[u8], index: usize) -> Result<ToolCall, Box<BadLine>> {
    let expected = r#"expected {"id": .., "name": .., "arguments": ..}"#;
    let text = std::str::from_utf8(line).map_err(|e| {
        bad(
            Value::Null,
            Value::Null,
            format!("the line is not UTF-8 ({e}); {expected}"),
        )
    })?;
    let fields: Map<String, Value> = match serde_json::from_str(text) {
        Ok(Value::Object(fields)) => fields,
        Ok(_) => {
            return Err(bad(
                Value::Null,
                Value::Null,
                format!("the line is not a JSON object; {expected}"),
            ));
        }
        Err(e) => {
            return Err(bad(
                Value::Null,
                Value::Null,
                format!("the line is not JSON ({e}); {expected}"),
            ));
        }
    };
    let id = fields.get("id").cloned().unwrap_or(Value::Null);
    let name = fields.get("name").cloned().unwrap_or(Value::Null);
    let Value::String(tool) = &name else {
        return Err(bad(
            id,
            name,
            format!("the call has no tool name; {expected}"),
        ));
    };
    let call_id = match &id {
        Value::String(id) => id.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let arguments = match fields.get("arguments") {
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(value) => Arguments::Json(value.clone()),
        None => Arguments::Json(Value::Null),
    };
    Ok(ToolCall::new(call_id, tool.clone(), arguments).with_index(index))
}

fn main() -> ExitCode {
    output::finish(run())
}

fn run() -> io::Result<()> {
    let batch = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--batch") => true,
        Some(other) => {
            eprintln!("unknown option `{other}`; usage: dispatch [--batch] < calls.jsonl");
            std::process::exit(2);
        }
    };
    let tools = demo::toolbox().with_retry_budget(0);
    let ctx = demo::context();
    let mut input = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    let mut index = 0;
    // In batch mode: every line's call (or why it has none), run once all are read.
    let mut lines = Vec::new();
    while input.read_until(b'\n', &mut line)? > 0 {
        if !line.iter().all(u8::is_ascii_whitespace) {
            let read = read_call(&line, index);
            if batch {
                lines.push(read);
            } else {
                let printed = match read {
                    Ok(call) => result_line(&tools.execute_blocking(&call, &ctx)),
                    Err(line) => bad_line(&line),
                };
                writeln!(out, "{}", printed?)?;
            }
            index += 1;
        }
        line.clear();
    }
    if batch {
        let calls: Vec<ToolCall> = lines
            .iter()
            .filter_map(|l| l.as_ref().ok())
            .cloned()
            .collect();
        let mut results = tools.execute_all_blocking(&calls, &ctx).into_iter();
        for read in &lines {
            let printed = match read {
                Ok(_) => {
                    let result = results.next().ok_or_else(|| {
                        io::Error::other("the batch returned fewer results than calls")
                    })?;
                    result_line(&result)
                }
                Err(line) => bad_line(line),
            };
            writeln!(out, "{}", printed?)?;
        }
    }
    out.flush()
}

fn result_line(result: &ToolResult) -> io::Result<String> {
    serde_json::to_string(&ResultLine {
        call_id: Value::from(result.call_id.as_str()),
        name: Value::from(result.tool_name.as_ref()),
        is_error: result.is_error,
        content: &result.text(),
    })
    .map_err(io::Error::other)
}

fn bad_line(line: &BadLine) -> io::Result<String> {
    serde_json::to_string(&ResultLine {
        call_id: line.call_id.clone(),
        name: line.name.clone(),
        is_error: true,
        content: &line.message,
    })
    .map_err(io::Error::other)
}
