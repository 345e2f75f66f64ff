//! An MCP server's tools in a toolbox (through rmcp: the toolwright-mcp crate, which toolwright's `mcp` feature re-exports as `toolwright::mcp`), driven line by line.
//!
//! ```text
//! cargo run --example mcp_client -- --url http://127.0.0.1:8000/mcp < calls.jsonl
//! cargo run --example mcp_client -- [--prefix P] [--protocol-version V].. -- python3 tests/python/mcp_tools_server.py < calls.jsonl
//! ```
//!
//! It connects to the server (a command it starts, speaking over the child's stdin and stdout, or
//! a Streamable HTTP URL), agreeing on the newest protocol revision both speak (among those named
//! by `--protocol-version`, given once for each, when it is given; every revision rmcp knows
//! otherwise), says which on stderr, lists its tools (to stderr), and registers them in a toolbox, under
//! `P` + their names with `--prefix`. Then each stdin line is a call `{"name": .., "arguments":
//! <object, or JSON text as a model writes it>}`; for each, one line
//! `{"name": .., "is_error": bool, "content": ".."}` is printed, in input order. The call runs
//! through the toolbox as a provider's would: its arguments are repaired, coerced and checked
//! against the server's `inputSchema` before they are sent, and wrong ones are answered with the
//! feedback a model reads, without reaching the server. A line that is not a call gets an error
//! line too; blank lines are skipped.

#[path = "../../examples/output/mod.rs"]
mod output;

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use rmcp::model::ProtocolVersion;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde::Serialize;
use serde_json::{Map, Value};
use toolwright::{Arguments, ToolCall, Toolbox};
use toolwright_mcp::{McpClient, McpTools, ToolboxExt as _};

/// One output line; fields in this order.
#[derive(Serialize)]
struct ResultLine<'a> {
    name: &'a Value,
    is_error: bool,
    content: &'a str,
}

enum Server {
    Command(Vec<String>),
    Url(String),
}

/// What the command line asks for.
struct Options {
    server: Server,
    prefix: String,
    /// The revisions to offer; empty: every one rmcp knows.
    versions: Vec<ProtocolVersion>,
}

fn options() -> Result<Options, String> {
    let usage = "usage: mcp_client [--prefix P] [--protocol-version V].. (--url URL | -- COMMAND [ARGS..]) < calls.jsonl";
    let mut args = std::env::args().skip(1);
    let mut prefix = String::new();
    let mut server = None;
    let mut versions = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--protocol-version" => {
                let value = args
                    .next()
                    .ok_or_else(|| format!("--protocol-version needs a revision; {usage}"))?;
                let known = ProtocolVersion::KNOWN_VERSIONS
                    .iter()
                    .find(|known| known.as_str() == value)
                    .ok_or_else(|| {
                        let known: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
                            .iter()
                            .map(ProtocolVersion::as_str)
                            .collect();
                        format!(
                            "unknown protocol revision `{value}` (known: {})",
                            known.join(", ")
                        )
                    })?;
                versions.push(known.clone());
            }
            "--prefix" => {
                prefix = args
                    .next()
                    .ok_or_else(|| format!("--prefix needs a value; {usage}"))?;
            }
            "--url" => {
                server = Some(Server::Url(
                    args.next()
                        .ok_or_else(|| format!("--url needs a URL; {usage}"))?,
                ));
            }
            "--" => {
                let command: Vec<String> = args.by_ref().collect();
                if command.is_empty() {
                    return Err(format!("`--` needs a command; {usage}"));
                }
                server = Some(Server::Command(command));
            }
            other => return Err(format!("unknown option `{other}`; {usage}")),
        }
    }
    Ok(Options {
        server: server.ok_or(usage)?,
        prefix,
        versions,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    output::finish(run(options).await)
}

async fn run(options: Options) -> io::Result<()> {
    let Options {
        server,
        prefix,
        versions,
    } = options;
    let prefix = prefix.as_str();
    let mut client = McpClient::new().named("toolwright-mcp-client", env!("CARGO_PKG_VERSION"));
    if !versions.is_empty() {
        client = client.with_protocol_versions(versions);
    }
    let connected = match server {
        Server::Command(command) => {
            let mut child = tokio::process::Command::new(&command[0]);
            child.args(&command[1..]);
            client.clone().connect(TokioChildProcess::new(child)?).await
        }
        Server::Url(url) => {
            client
                .clone()
                .connect(StreamableHttpClientTransport::from_uri(url))
                .await
        }
    }
    .map_err(|error| io::Error::other(format!("could not connect to the MCP server: {error}")))?;
    if let Some(version) = client.protocol_version() {
        eprintln!("protocol revision {version}");
    }
    let tools = McpTools::list(connected.peer())
        .await
        .map_err(io::Error::other)?
        .prefixed(prefix);
    let names: Vec<String> = tools.names().collect();
    eprintln!("{} tools: {}", names.len(), names.join(", "));
    for (name, error) in tools.skipped() {
        eprintln!("left out `{name}`: {error}");
    }
    let toolbox = Toolbox::new()
        .with_mcp_tools(tools)
        .map_err(io::Error::other)?
        .with_retry_budget(0);

    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = String::new();
    let mut input = io::stdin().lock();
    let mut index = 0;
    while input.read_line(&mut line)? > 0 {
        if !line.trim().is_empty() {
            let printed = match read_call(&line, index) {
                Ok(call) => {
                    let result = toolbox.execute(&call, &()).await;
                    serde_json::to_string(&ResultLine {
                        name: &Value::from(call.name.as_str()),
                        is_error: result.is_error,
                        content: &result.text(),
                    })
                }
                Err((name, message)) => serde_json::to_string(&ResultLine {
                    name: &name,
                    is_error: true,
                    content: &message,
                }),
            };
            writeln!(out, "{}", printed.map_err(io::Error::other)?)?;
            out.flush()?;
            index += 1;
        }
        line.clear();
    }
    drop(out);
    let _ = connected.cancel().await;
    Ok(())
}

/// The call on one input line, or its name (if any) and why there is no call.
fn read_call(line: &str, index: usize) -> Result<ToolCall, (Value, String)> {
    let expected = r#"expected {"name": .., "arguments": ..}"#;
    let fields: Map<String, Value> = match serde_json::from_str(line) {
        Ok(Value::Object(fields)) => fields,
        Ok(_) => {
            return Err((
                Value::Null,
                format!("the line is not a JSON object; {expected}"),
            ));
        }
        Err(error) => {
            return Err((
                Value::Null,
                format!("the line is not JSON ({error}); {expected}"),
            ));
        }
    };
    let name = fields.get("name").cloned().unwrap_or(Value::Null);
    let Value::String(tool) = &name else {
        return Err((name, format!("the call has no tool name; {expected}")));
    };
    let arguments = match fields.get("arguments") {
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(value) => Arguments::Json(value.clone()),
        None => Arguments::Json(Value::Object(Map::new())),
    };
    Ok(ToolCall::new(format!("call_{index}"), tool.clone(), arguments).with_index(index))
}
