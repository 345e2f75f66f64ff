//! The lenient JSON parser on any input: it must not panic, must stay within its limits, must
//! say where it stopped, and must agree with serde_json on input serde_json accepts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwright_runtime::args::{JsonLimits, parse_json, parse_lenient};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = JsonLimits {
        max_depth: 64,
        ..JsonLimits::default()
    };
    match parse_lenient(text, &limits) {
        Ok(repaired) => {
            for repair in &repaired.repairs {
                assert!(repair.offset <= text.len());
            }
            if let Ok(strict) = serde_json::from_str::<serde_json::Value>(text) {
                if depth_within(&strict, limits.max_depth) {
                    assert_eq!(repaired.value, strict, "lenient and strict disagree");
                }
            }
        }
        Err(error) => assert!(error.offset <= text.len()),
    }
    let _ = parse_json(text, &limits);
});

fn depth_within(value: &serde_json::Value, max: usize) -> bool {
    fn depth(value: &serde_json::Value) -> usize {
        match value {
            serde_json::Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
            serde_json::Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    depth(value) <= max
}
