//! The tool and the hand-written baseline both dispatch benches measure.

use serde::Deserialize;
use toolwright::tool;

/// Add two integers.
#[tool]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Search the catalogue.
#[tool]
pub fn search(
    /// What to look for.
    query: String,
    /// How many results, from 1 to 50.
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
) -> String {
    format!("{query}:{limit}")
}

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// What a hand-written dispatcher returns: the call id, the content and the error flag.
pub struct Baseline {
    pub call_id: String,
    pub content: String,
    pub is_error: bool,
}

/// The least any dispatcher must do: serde_json into the arguments struct, call the fn,
/// serialize the result.
pub fn baseline(call_id: &str, arguments: &str) -> Baseline {
    finish(call_id, serde_json::from_str::<AddArgs>(arguments))
}

/// [`baseline`] for arguments that arrive as a JSON value: serde from the value.
pub fn baseline_value(call_id: &str, arguments: &serde_json::Value) -> Baseline {
    finish(call_id, AddArgs::deserialize(arguments))
}

fn finish(call_id: &str, args: Result<AddArgs, serde_json::Error>) -> Baseline {
    match args {
        Ok(args) => Baseline {
            call_id: call_id.to_owned(),
            content: serde_json::to_string(&add(args.a, args.b)).unwrap_or_default(),
            is_error: false,
        },
        Err(error) => Baseline {
            call_id: call_id.to_owned(),
            content: error.to_string(),
            is_error: true,
        },
    }
}
