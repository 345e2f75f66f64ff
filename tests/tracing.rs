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

#[test]
fn batches_and_calls_are_traced_without_argument_values() {
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
    assert_eq!(names, ["tool_batch", "tool_call", "tool_call"]);
    let batch = &spans[0].1;
    assert_eq!(batch["calls"], "2");
    assert_eq!(batch["concurrency"], "16");
    assert_eq!(batch["cancelled"], "0");
    assert!(batch.contains_key("duration_us"));
    let first = &spans[1].1;
    assert_eq!(first["tool"], "add");
    assert_eq!(first["call_id"], "c0");
    assert_eq!(first["outcome"], "ok");
    assert_eq!(first["coercions"], "1");
    assert_eq!(first["repairs"], "0");
    assert!(first.contains_key("duration_us"));
    assert!(!first.contains_key("arguments"));
    assert_eq!(spans[2].1["outcome"], "panic");
    // Each call's span lies in its batch's.
    assert_eq!(first["parent"], "tool_batch");
    assert_eq!(spans[2].1["parent"], "tool_batch");
    assert!(!batch.contains_key("parent"));
    assert_eq!(spans[2].1["repairs"], "0");
    assert_eq!(spans[2].1["coercions"], "0");

    // Arguments only when asked for.
    let (subscriber, spans) = spans::Keep::new();
    tracing::subscriber::with_default(subscriber, || {
        toolbox()
            .log_arguments(true)
            .execute_all_blocking(&calls[..1], &());
    });
    let spans = spans.lock().unwrap();
    assert_eq!(spans[1].1["arguments"], r#"{"a":1,"b":"2"}"#);
}
