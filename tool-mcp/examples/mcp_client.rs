//! An MCP server's tools in a toolbox (through rmcp: the toolwright-mcp crate, which toolwright's `mcp` feature re-exports as `toolwright::mcp`), driven line by line.
//!
//! ```text
//! cargo run --example mcp_client -- --url http://127.0.0.1:8000/mcp < calls.jsonl
//! cargo run --example mcp_client -- [--prefix P] [--protocol-version V].. -- python3 tests/python/mcp_tools_server.py < calls.jsonl
//! cargo run --example mcp_client -- --url https://mcp.example.com/mcp --oauth [--redirect URL] \
//!     [--client-id ID [--client-secret S]] [--client-metadata-url URL] [--scope S].. < calls.jsonl
//! ```
//!
//! With `--oauth`, a server over HTTP that asks for OAuth is authorized with (the MCP
//! specification's authorization, through rmcp's auth): the client prints the authorization URL
//! on stderr for the user to open, and waits at the redirect URI (`--redirect`, by default
//! `http://127.0.0.1:8765/callback`, where it listens) for the authorization server to send the
//! user back. It names itself by `--client-id` (and `--client-secret`) when registered
//! beforehand, by `--client-metadata-url` where the server takes client ID metadata documents,
//! and registers itself otherwise; `--scope` asks for scopes beyond those the server names.
//! Tokens are kept in memory for the run.
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
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;
use toolwright::{Arguments, ToolCall, Toolbox};
use toolwright_mcp::{McpClient, McpOAuth, McpTools, ToolboxExt as _};

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
    oauth: Option<OAuthOptions>,
    prefix: String,
    /// The revisions to offer; empty: every one rmcp knows.
    versions: Vec<ProtocolVersion>,
}

/// The OAuth flags.
#[derive(Default)]
struct OAuthOptions {
    redirect: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    client_metadata_url: Option<String>,
    scopes: Vec<String>,
}

fn options() -> Result<Options, String> {
    let usage = "usage: mcp_client [--prefix P] [--protocol-version V].. (--url URL [--oauth [--redirect URL] [--client-id ID [--client-secret S]] [--client-metadata-url URL] [--scope S]..] | -- COMMAND [ARGS..]) < calls.jsonl";
    let mut args = std::env::args().skip(1);
    let mut oauth_on = false;
    let mut given = OAuthOptions::default();
    let mut prefix = String::new();
    let mut server = None;
    let mut versions = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value; {usage}"))
        };
        match arg.as_str() {
            "--oauth" => oauth_on = true,
            "--redirect" => given.redirect = Some(value(&arg)?),
            "--client-id" => given.client_id = Some(value(&arg)?),
            "--client-secret" => given.client_secret = Some(value(&arg)?),
            "--client-metadata-url" => given.client_metadata_url = Some(value(&arg)?),
            "--scope" => given.scopes.push(value(&arg)?),
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
    let server = server.ok_or(usage)?;
    let any_given = given.redirect.is_some()
        || given.client_id.is_some()
        || given.client_secret.is_some()
        || given.client_metadata_url.is_some()
        || !given.scopes.is_empty();
    if any_given && !oauth_on {
        return Err(format!("the OAuth options go with --oauth; {usage}"));
    }
    if given.client_secret.is_some() && given.client_id.is_none() {
        return Err(format!("--client-secret goes with --client-id; {usage}"));
    }
    if oauth_on && matches!(server, Server::Command(_)) {
        return Err(format!(
            "--oauth is for a server over HTTP (--url); {usage}"
        ));
    }
    let oauth = oauth_on.then_some(given);
    Ok(Options {
        server,
        oauth,
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
        oauth,
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
        Server::Url(url) => match oauth {
            Some(oauth) => client.clone().connect_http(&url, &oauth_of(oauth)).await,
            None => {
                client
                    .clone()
                    .connect(StreamableHttpClientTransport::from_uri(url))
                    .await
            }
        },
    }
    .map_err(|error| io::Error::other(format!("could not connect to the MCP server: {error}")))?;
    if let Some(version) = client.protocol_version() {
        eprintln!("protocol revision {version}");
    }
    let tools = McpTools::of(&connected)
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

/// The authorization the flags ask for: the user is shown the URL and sent back to the redirect
/// URI, where this program listens.
fn oauth_of(options: OAuthOptions) -> McpOAuth {
    let redirect = options
        .redirect
        .unwrap_or_else(|| "http://127.0.0.1:8765/callback".to_owned());
    let listen_at = redirect.clone();
    let mut oauth = McpOAuth::new(redirect, move |url| {
        let listen_at = listen_at.clone();
        async move {
            eprintln!("authorize at: {url}");
            wait_for_redirect(&listen_at).await
        }
    })
    .with_client_name("toolwright mcp_client")
    .with_scopes(options.scopes);
    if let Some(id) = options.client_id {
        oauth = oauth.with_client(id, options.client_secret);
    }
    if let Some(document) = options.client_metadata_url {
        oauth = oauth.with_client_metadata_url(document);
    }
    oauth
}

/// Listens at the redirect URI (`http://HOST:PORT/PATH`) for the authorization server's
/// redirect of the user's browser; returns the URL it was sent to.
async fn wait_for_redirect(redirect: &str) -> Result<String, String> {
    let rest = redirect
        .strip_prefix("http://")
        .ok_or_else(|| format!("the redirect URI `{redirect}` is not http://HOST:PORT/.."))?;
    let authority = rest.split('/').next().unwrap_or(rest);
    let listener = TcpListener::bind(authority)
        .await
        .map_err(|error| format!("cannot listen at {authority}: {error}"))?;
    loop {
        let (stream, _) = listener.accept().await.map_err(|error| error.to_string())?;
        let (read, mut write) = stream.into_split();
        let mut request_line = String::new();
        tokio::io::BufReader::new(read)
            .read_line(&mut request_line)
            .await
            .map_err(|error| error.to_string())?;
        // `GET /callback?code=..&state=.. HTTP/1.1`
        let Some(target) = request_line.split_whitespace().nth(1) else {
            continue;
        };
        let page = "authorized: you may close this window";
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = write.write_all(answer.as_bytes()).await;
        if target.contains("code=") || target.contains("error=") {
            return Ok(format!("http://{authority}{target}"));
        }
    }
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
