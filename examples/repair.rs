//! A line-oriented driver over the lenient JSON parser.
//!
//! Each stdin line is `{"input": "<text>"}`; for each, one line is printed, in input order:
//! `{"ok": true, "value": <parsed JSON>, "repairs": [{"kind": .., "offset": ..}, ..]}`, or
//! `{"ok": false, "error": "<message>"}` when the text cannot be understood (or the line holds
//! no `input` string). Blank lines are skipped. Valid JSON comes back with no repairs.
//!
//! ```text
//! echo '{"input": "{a: 1,}"}' | cargo run --example repair
//! ```

mod output;

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use serde_json::{Value, json};
use toolwright::args::{JsonLimits, parse_json};

/// The answer for one input line.
fn answer(line: &[u8], limits: &JsonLimits) -> Value {
    let expected = r#"expected {"input": "<text>"}"#;
    let Ok(text) = std::str::from_utf8(line) else {
        return json!({"ok": false, "error": format!("the line is not UTF-8; {expected}")});
    };
    let input = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut fields)) => match fields.remove("input") {
            Some(Value::String(input)) => input,
            _ => {
                return json!({"ok": false, "error": format!("the line has no \"input\" string; {expected}")});
            }
        },
        _ => {
            return json!({"ok": false, "error": format!("the line is not a JSON object; {expected}")});
        }
    };
    match parse_json(&input, limits) {
        Ok(repaired) => json!({"ok": true, "value": repaired.value, "repairs": repaired.repairs}),
        Err(error) => json!({"ok": false, "error": error.to_string()}),
    }
}

fn main() -> ExitCode {
    output::finish(run())
}

fn run() -> io::Result<()> {
    let limits = JsonLimits::default();
    let mut input = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    while input.read_until(b'\n', &mut line)? > 0 {
        if !line.iter().all(u8::is_ascii_whitespace) {
            writeln!(out, "{}", answer(&line, &limits))?;
        }
        line.clear();
    }
    out.flush()
}
