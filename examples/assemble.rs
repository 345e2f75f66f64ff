//! A line driver over stream assembly.
//!
//! `cargo run --example assemble -- <provider>`, with `<provider>` one of `openai`,
//! `openai-responses`, `anthropic`, `gemini`, `cohere`, `bedrock`, reads a streamed response on
//! stdin, one chunk or event per line (Bedrock's `ConverseStream` events as JSON keyed by their
//! type; SSE `data:` prefixes, `event:` lines, blank lines and `[DONE]` are taken in stride), and
//! prints one JSON line per assembled call, in the order the model made them:
//!
//! ```text
//! {"id": "call_1", "name": "add", "arguments": "{\"a\": 2}", "status": "complete"}
//! ```
//!
//! `arguments` is what the stream sent: the text received for providers that stream text
//! (OpenAI, Responses, Anthropic deltas), the object for those that send objects (Gemini; an
//! Anthropic block whose input came whole in its start). `status` is `incomplete` for a call
//! whose block never ended. A call with no id from the provider (Gemini) gets the stable id the
//! runtime made up for it.
//!
//! The calls printed are the model's calls of tools: the application's functions, and
//! Anthropic's server and MCP tool blocks, which its SDK lists among them. The Responses API's
//! built-in tools (`shell_call`, ...) and the tools the Responses API or Gemini ran themselves
//! (`web_search_call`, `executableCode`, ...) are items of their own kinds there, read by
//! `Turn::builtin_calls` and `Turn::server_calls`, and not printed here.
//!
//! A line that cannot be read (not JSON, not the provider's shape, out of order) is reported on
//! stderr with its line number, and the rest of the stream is still read: nothing received is
//! dropped. The exit code is 0 when the stream was read to its end, 2 for a bad command line.

mod output;

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use serde_json::{Value, json};
use toolwright::provider::{Assembler, Provider};
use toolwright::{Arguments, CallKind, CallStatus};

fn main() -> ExitCode {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let provider = match arg.parse::<Provider>() {
        Ok(provider) if provider != Provider::Mcp => provider,
        _ => {
            eprintln!(
                "usage: cargo run --example assemble -- <provider>\n\
                 <provider>: openai, openai-responses, anthropic, gemini, cohere, bedrock (got `{arg}`)"
            );
            return ExitCode::from(2);
        }
    };
    output::finish(
        run(provider).map_err(|error| io::Error::new(error.kind(), format!("assemble: {error}"))),
    )
}

fn run(provider: Provider) -> io::Result<()> {
    let mut stream = Assembler::new(provider);
    let stdin = io::stdin().lock();
    for (number, line) in stdin.split(b'\n').enumerate() {
        let line = line?;
        let result = match std::str::from_utf8(&line) {
            Ok(text) => stream.push_line(text).map_err(|e| e.to_string()),
            Err(error) => Err(format!("the line is not UTF-8 ({error})")),
        };
        if let Err(message) = result {
            eprintln!("line {}: {message}", number + 1);
        }
    }
    let mut out = BufWriter::new(io::stdout().lock());
    for call in stream.finish() {
        if !(call.kind == CallKind::Function || provider == Provider::Anthropic) {
            continue;
        }
        let arguments = match call.arguments {
            Arguments::Text(text) => Value::String(text),
            Arguments::Json(value) => value,
        };
        let status = match call.status {
            CallStatus::Complete => "complete",
            CallStatus::Incomplete => "incomplete",
        };
        let line = json!({
            "id": call.call_id,
            "name": call.name,
            "arguments": arguments,
            "status": status,
        });
        writeln!(out, "{line}")?;
    }
    out.flush()
}
