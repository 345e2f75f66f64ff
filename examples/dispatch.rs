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

mod demo;

use std::io::{self, BufRead, BufWriter, Write};

use serde::Serialize;
use serde_json::{Map, Value};
use toolwright::{Arguments, ToolCall};

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

fn main() -> io::Result<()> {
    let tools = demo::toolbox();
    let ctx = demo::context();
    let mut input = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    let mut index = 0;
    while input.read_until(b'\n', &mut line)? > 0 {
        if !line.iter().all(u8::is_ascii_whitespace) {
            let printed = match read_call(&line, index) {
                Ok(call) => {
                    let result = tools.execute_blocking(&call, &ctx);
                    serde_json::to_string(&ResultLine {
                        call_id: Value::from(result.call_id.as_str()),
                        name: Value::from(result.tool_name.as_ref()),
                        is_error: result.is_error,
                        content: &result.text(),
                    })
                }
                Err(line) => serde_json::to_string(&ResultLine {
                    call_id: line.call_id,
                    name: line.name,
                    is_error: true,
                    content: &line.message,
                }),
            };
            writeln!(out, "{}", printed.map_err(io::Error::other)?)?;
            index += 1;
        }
        line.clear();
    }
    out.flush()
}
