//! Stream assembly on any input: each line goes to every provider's assembler. It must not
//! panic, must name the chunk of every error, and must bring out every call it started.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwright::provider::{Assembler, Provider};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for provider in Provider::ALL {
        let mut stream = Assembler::new(provider);
        for line in text.lines() {
            if let Err(error) = stream.push_line(line) {
                assert_eq!(error.chunk(), Some(stream.chunks()));
            }
        }
        for call in stream.calls() {
            let _ = call.preview();
        }
        let started = stream.calls().count();
        let calls = stream.finish();
        assert_eq!(calls.len(), started);
        assert!(calls.iter().all(|call| !call.call_id.is_empty()));
    }
});
