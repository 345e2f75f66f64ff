//! Reads what a model sent on stdin and prints the JSON it meant, then each repair made to read
//! it (to stderr), or why it cannot be read.
//!
//! ```text
//! printf '%s' "Sure! \`\`\`json {'city': 'Paris', days: 3,} \`\`\`" | cargo run -p toolwright-json --example fix
//! ```

use std::io::Read;
use std::process::ExitCode;

use toolwright_json::{JsonLimits, parse_json};

fn main() -> ExitCode {
    let mut text = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("cannot read stdin: {error}");
        return ExitCode::FAILURE;
    }
    match parse_json(&text, &JsonLimits::default()) {
        Ok(read) => {
            println!("{}", read.value);
            for repair in &read.repairs {
                eprintln!("repaired at byte {}: {:?}", repair.offset, repair.kind);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("not JSON: {error}");
            ExitCode::FAILURE
        }
    }
}
