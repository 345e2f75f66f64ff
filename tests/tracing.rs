//! Spans of batches and calls (issue 6). Alone in its binary: tracing caches which call sites
//! a subscriber wants, and tests running beside it in other threads would race that cache.
use serde_json::json;
use toolwright::{ToolCall, Toolbox, tool};

/// Adds two integers.
#[tool(concurrent)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Always panics.
#[tool]
fn boom() -> u32 {
    panic!("boom")
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(AddTool)
        .unwrap()
        .with(BoomTool)
        .unwrap()
}

mod spans {
    //! A subscriber that keeps every span's name and fields.

    use std::collections::BTreeMap;
    use std::fmt::Debug;
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    pub type Spans = Arc<Mutex<Vec<(String, BTreeMap<String, String>)>>>;

    pub struct Keep {
        pub spans: Spans,
        /// The spans entered, innermost last (one thread uses the subscriber).
        entered: Mutex<Vec<u64>>,
    }

    impl Keep {
        pub fn new() -> (Self, Spans) {
            let spans = Spans::default();
            let keep = Keep {
                spans: Arc::clone(&spans),
                entered: Mutex::new(Vec::new()),
            };
            (keep, spans)
        }
    }

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
    }

    impl Subscriber for Keep {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }

        fn new_span(&self, span: &Attributes<'_>) -> Id {
            let mut fields = BTreeMap::new();
            span.record(&mut Fields(&mut fields));
            let mut spans = self.spans.lock().unwrap();
            if let Some(parent) = self.entered.lock().unwrap().last() {
                let parent = usize::try_from(*parent).unwrap() - 1;
                fields.insert("parent".to_owned(), spans[parent].0.clone());
            }
            spans.push((span.metadata().name().to_owned(), fields));
            Id::from_u64(spans.len() as u64)
        }

        fn record(&self, span: &Id, values: &Record<'_>) {
            let mut spans = self.spans.lock().unwrap();
            let index = usize::try_from(span.into_u64()).unwrap() - 1;
            values.record(&mut Fields(&mut spans[index].1));
        }

        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, span: &Id) {
            self.entered.lock().unwrap().push(span.into_u64());
        }

        fn exit(&self, _: &Id) {
            self.entered.lock().unwrap().pop();
        }
    }
}

#[path = "support/http.rs"]
mod http;

#[path = "support/authorization_server.rs"]
mod authorization_server;

/// One test at a time: each installs a subscriber of its own.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn batches_and_calls_are_traced_without_argument_values() {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (subscriber, spans) = spans::Keep::new();
    let calls = [
        ToolCall::new("c0", "add", json!({"a": 1, "b": "2"})),
        ToolCall::new("c1", "boom", json!({})),
    ];
    tracing::subscriber::with_default(subscriber, || {
        toolbox().execute_all_blocking(&calls, &());
    });
    let spans = spans.lock().unwrap();
    let names: Vec<&str> = spans.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["tool_batch", "execute_tool", "execute_tool"]);
    let batch = &spans[0].1;
    assert_eq!(batch["otel.name"], "execute_tools");
    assert_eq!(batch["toolwright.calls"], "2");
    assert_eq!(batch["toolwright.concurrency"], "16");
    assert_eq!(batch["toolwright.cancelled"], "0");
    assert!(batch.contains_key("toolwright.duration_us"));
    let first = &spans[1].1;
    // Named and fielded by the GenAI conventions, for tracing-opentelemetry.
    assert_eq!(first["otel.name"], "execute_tool add");
    assert_eq!(first["otel.kind"], "internal");
    assert_eq!(first["gen_ai.operation.name"], "execute_tool");
    assert_eq!(first["gen_ai.tool.name"], "add");
    assert_eq!(first["gen_ai.tool.call.id"], "c0");
    assert_eq!(first["gen_ai.tool.description"], "Adds two integers.");
    assert_eq!(first["gen_ai.tool.type"], "function");
    assert_eq!(first["toolwright.outcome"], "ok");
    assert_eq!(first["toolwright.coercions"], "1");
    assert_eq!(first["toolwright.repairs"], "0");
    assert!(first.contains_key("toolwright.duration_us"));
    assert!(!first.contains_key("error.type"));
    assert!(!first.contains_key("otel.status_code"));
    assert!(!first.contains_key("gen_ai.tool.call.arguments"));
    assert!(!first.contains_key("gen_ai.tool.call.result"));
    let second = &spans[2].1;
    assert_eq!(second["toolwright.outcome"], "panic");
    assert_eq!(second["error.type"], "panic");
    assert_eq!(second["otel.status_code"], "error");
    // The message is the application's to ask for.
    assert!(!second.contains_key("otel.status_description"));
    // Each call's span lies in its batch's.
    assert_eq!(first["parent"], "tool_batch");
    assert_eq!(second["parent"], "tool_batch");
    assert!(!batch.contains_key("parent"));
    assert_eq!(second["toolwright.repairs"], "0");
    assert_eq!(second["toolwright.coercions"], "0");

    // Arguments and results only when asked for.
    let (subscriber, spans) = spans::Keep::new();
    tracing::subscriber::with_default(subscriber, || {
        toolbox()
            .capture_content(true)
            .execute_all_blocking(&calls, &());
    });
    let spans = spans.lock().unwrap();
    assert_eq!(
        spans[1].1["gen_ai.tool.call.arguments"],
        r#"{"a":1,"b":"2"}"#
    );
    assert_eq!(spans[1].1["gen_ai.tool.call.result"], "3");
    assert_eq!(
        spans[2].1["otel.status_description"],
        "tool `boom` failed unexpectedly; this is not a problem with the arguments"
    );
}

mod everything {
    //! A subscriber that writes down every span's and event's fields, at every level.

    use std::fmt::Debug;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    pub type Lines = Arc<Mutex<Vec<String>>>;

    pub struct Everything {
        pub lines: Lines,
        next: AtomicU64,
    }

    impl Everything {
        pub fn new() -> (Self, Lines) {
            let lines = Lines::default();
            let everything = Everything {
                lines: Arc::clone(&lines),
                next: AtomicU64::new(1),
            };
            (everything, lines)
        }
    }

    struct Line<'a>(&'a mut String);

    impl Visit for Line<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }

        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.push_str(&format!(" {}={value}", field.name()));
        }
    }

    impl Subscriber for Everything {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }

        fn new_span(&self, span: &Attributes<'_>) -> Id {
            let mut line = format!("span {}", span.metadata().name());
            span.record(&mut Line(&mut line));
            self.lines.lock().unwrap().push(line);
            Id::from_u64(self.next.fetch_add(1, Ordering::Relaxed))
        }

        fn record(&self, _: &Id, values: &Record<'_>) {
            let mut line = "record".to_owned();
            values.record(&mut Line(&mut line));
            self.lines.lock().unwrap().push(line);
        }

        fn record_follows_from(&self, _: &Id, _: &Id) {}

        fn event(&self, event: &Event<'_>) {
            let mut line = format!("event {}", event.metadata().target());
            event.record(&mut Line(&mut line));
            self.lines.lock().unwrap().push(line);
        }

        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

/// A protected MCP server and its clients traced at every level (the server's, rmcp's, hyper's
/// and reqwest's events): the bearer tokens sent, accepted or refused, appear in no line.
#[test]
fn bearer_tokens_appear_in_no_trace() {
    use std::sync::Arc;

    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use toolwright::exec::Caller;
    use toolwright::mcp::{Authorization, InvalidToken, McpServer};

    const GOOD: &str = "tok-9d2c61f0a4b84e7e";
    const BAD: &str = "tok-0a5f7c3e91d24b68";

    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (subscriber, lines) = everything::Everything::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            let server = McpServer::new(Arc::new(toolbox().capture_content(true)), ()).unwrap();
            let auth = Authorization::new(
                format!("http://{address}/mcp"),
                |token: String| async move {
                    if token == GOOD {
                        Ok(Caller::new("ada"))
                    } else {
                        Err(InvalidToken::new("unknown token"))
                    }
                },
            );
            http::serve_on(listener, auth.protect(server.http_service(true)));
            let uri = format!("http://{address}/mcp");
            // Refused: a token the validator does not know.
            let refused = ()
                .serve(StreamableHttpClientTransport::from_config(
                    StreamableHttpClientTransportConfig::with_uri(uri.clone()).auth_header(BAD),
                ))
                .await;
            assert!(refused.is_err());
            // Accepted: a session, a list, a call (with its arguments logged) and an error.
            let client = ()
                .serve(StreamableHttpClientTransport::from_config(
                    StreamableHttpClientTransportConfig::with_uri(uri).auth_header(GOOD),
                ))
                .await
                .unwrap();
            assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
            let mut arguments = serde_json::Map::new();
            arguments.insert("a".into(), json!(1));
            arguments.insert("b".into(), json!(2));
            let result = client
                .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
                .await
                .unwrap();
            assert_eq!(result.is_error, Some(false));
            let _ = client.call_tool(CallToolRequestParams::new("boom")).await;
            client.cancel().await.unwrap();
        });
    });
    let lines = lines.lock().unwrap();
    // The run was traced: the calls' spans are there.
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("span execute_tool")
                && line.contains("gen_ai.tool.name=add")),
        "{lines:#?}"
    );
    for token in [GOOD, BAD] {
        let leaks: Vec<&String> = lines.iter().filter(|line| line.contains(token)).collect();
        assert!(leaks.is_empty(), "the token is in the trace: {leaks:#?}");
    }
}

/// The MCP client's OAuth (issue 44) traced at every level, rmcp's auth and reqwest included:
/// a login, a step-up, calls with the token, then a token the server no longer accepts and a
/// user who does not approve again. The tokens issued appear in no line of the trace, and in no
/// error the application or the model reads.
#[test]
fn oauth_tokens_appear_in_no_trace_and_no_error() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use authorization_server::{AuthorizationServer, approving, protected_server};
    use toolwright::mcp::{McpClient, McpTools, ToolboxExt as _};

    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (subscriber, lines) = everything::Everything::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (tokens, errors) = tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async {
            let authorization = AuthorizationServer::start().await;
            authorization.issued.lock().unwrap().first_grant = Some(vec!["profile".to_owned()]);
            let address = protected_server(&authorization, toolbox(), None).await;
            let approve = Arc::new(AtomicBool::new(true));
            let oauth = approving(Arc::clone(&approve));
            let running = McpClient::new()
                .connect_http(&format!("http://{address}/mcp"), &oauth)
                .await
                .unwrap();
            let tools = McpTools::list(running.peer()).await.unwrap();
            let remote = Toolbox::new().with_mcp_tools(tools).unwrap();
            let call = ToolCall::new("c0", "add", json!({"a": 1, "b": 2}));
            assert_eq!(remote.execute(&call, &()).await.text(), "3");
            // The server forgets every token; the user does not approve again.
            let tokens: Vec<String> =
                std::mem::take(&mut authorization.issued.lock().unwrap().tokens)
                    .into_iter()
                    .map(|(token, _)| token)
                    .collect();
            approve.store(false, Ordering::SeqCst);
            let refused = remote.execute(&call, &()).await;
            assert!(refused.is_error);
            let errors = vec![
                refused.text(),
                format!(
                    "{:?}",
                    refused.tool_error::<toolwright::mcp::McpCallError>()
                ),
            ];
            let _ = running.cancel().await;
            (tokens, errors)
        })
    });
    assert_eq!(tokens.len(), 2, "a login and a step-up");
    assert!(
        errors[0].contains("authorization"),
        "the refusal says why: {errors:?}"
    );
    let lines = lines.lock().unwrap();
    assert!(
        lines
            .iter()
            .any(|line| line.contains("asks for authorization")),
        "the run was traced: {lines:#?}"
    );
    for token in &tokens {
        let leaks: Vec<&String> = lines
            .iter()
            .filter(|line| line.contains(token.as_str()))
            .collect();
        assert!(leaks.is_empty(), "the token is in the trace: {leaks:#?}");
        assert!(
            errors.iter().all(|error| !error.contains(token.as_str())),
            "the token is in an error: {errors:?}"
        );
    }
}
