//! A line driver over tool search: the interface for measuring retrieval on any corpus.
//!
//! `tool_search DEFS.jsonl [--k N]` loads the tool definitions in `DEFS.jsonl` (one JSON object
//! a line: `name`, `description`, `parameters`; blank lines skipped), then answers each line of
//! stdin (a user's question or a model's search query) with one line: a JSON array of the names
//! of the top `N` tools in rank order (5 unless told), the ranked search a toolbox's search
//! tool answers with ([`ToolIndex`]). An empty query, or one that matches nothing, gets `[]`.
//! A definitions file that cannot be read, or a line of it that is not a definition, is an
//! error on stderr naming the line, exit code 1; a bad command line is exit code 2.
//!
//! ```text
//! cargo run --example tool_search -- defs.jsonl --k 3 <<< "what's the weather in Oslo?"
//! ```

mod output;

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use serde_json::Value;
use toolwright::search::ToolIndex;

const USAGE: &str = "usage: tool_search DEFS.jsonl [--k N]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut defs, mut k) = (None, 5usize);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--k" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => k = n,
                _ => {
                    eprintln!("--k takes a whole number above 0\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if defs.is_none() && !arg.starts_with("--") => defs = Some(arg),
            _ => {
                eprintln!("unexpected argument `{arg}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(defs) = defs else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let index = match load(&defs) {
        Ok(index) => index,
        Err(message) => {
            eprintln!("{defs}: {message}");
            return ExitCode::FAILURE;
        }
    };
    output::finish(answer(&index, k))
}

/// The definitions in the file, indexed.
fn load(path: &str) -> Result<ToolIndex, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut index = ToolIndex::new();
    for (at, line) in io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: {e}", at + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let definition: Value =
            serde_json::from_str(&line).map_err(|e| format!("line {}: not JSON: {e}", at + 1))?;
        let Some(name) = definition.get("name").and_then(Value::as_str) else {
            return Err(format!("line {}: a definition has a `name` string", at + 1));
        };
        let description = match definition.get("description") {
            None | Some(Value::Null) => "",
            Some(Value::String(text)) => text,
            Some(_) => {
                return Err(format!("line {}: `description` is not a string", at + 1));
            }
        };
        let parameters = definition.get("parameters").unwrap_or(&Value::Null);
        index.insert(name, description, parameters);
    }
    Ok(index)
}

/// One line of names for each line of stdin.
fn answer(index: &ToolIndex, k: usize) -> io::Result<()> {
    let mut input = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    while input.read_until(b'\n', &mut line)? > 0 {
        let query = String::from_utf8_lossy(&line);
        let names: Vec<&str> = index
            .search(query.trim(), k)
            .iter()
            .map(|hit| hit.name)
            .collect();
        serde_json::to_writer(&mut out, &names)?;
        out.write_all(b"\n")?;
        line.clear();
    }
    out.flush()
}
