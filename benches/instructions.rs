//! The `dispatch` bench's two loops in a plain `main`, for instruction counts under callgrind,
//! which are repeatable where wall time on a shared machine is not. Run `benches/instructions.sh`.
//!
//! `cargo bench` runs it once with few iterations, as a smoke test.

use std::hint::black_box;

use toolwright::{ToolCall, Toolbox};

mod common;

use common::{add, baseline};

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let which = args.next().unwrap_or_else(|| "both".to_owned());
    let iterations: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let tools = Toolbox::<()>::new().with(add {}).expect("one tool");
    let call = ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#);
    let mut checksum = 0;
    if which == "base" || which == "both" {
        for _ in 0..iterations {
            let result = black_box(baseline(
                black_box("call_1"),
                black_box(r#"{"a": 2, "b": 3}"#),
            ));
            checksum += result.content.len() + result.call_id.len() + usize::from(result.is_error);
        }
    }
    if which == "toolwright" || which == "both" {
        for _ in 0..iterations {
            checksum += black_box(tools.execute_blocking(black_box(&call), &()))
                .content
                .len();
        }
    }
    println!("{which}: {iterations} iterations, checksum {checksum}");
}
