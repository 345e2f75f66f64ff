//! The CI's shell scripts run under `set -o pipefail`, where a pipeline into a reader that stops
//! early (`head`, `grep -q`) fails at random: the writer gets SIGPIPE when it writes after the
//! reader has gone, and the pipeline's status becomes 141. `haproxy -v | head -n 1` failed a CI
//! run that way. A script reads such output to its end (`sed -n 1p`) or from a here-string.

use std::fs;
use std::path::Path;

/// The commands of `line`'s pipeline, after its first, that stop reading before their input ends.
fn early_readers(line: &str) -> Vec<String> {
    let line = line.trim();
    if line.starts_with('#') {
        return Vec::new();
    }
    // `||`, `&&` and `;` end a pipeline; within one, `|` separates its commands.
    let commands = line.replace("||", ";").replace("&&", ";");
    commands
        .split(';')
        .flat_map(|pipeline| pipeline.split('|').skip(1))
        .filter(|stage| {
            let mut words = stage.split_whitespace();
            match words.next() {
                Some("head") => true,
                Some("grep") => words.any(|w| {
                    matches!(
                        w,
                        "--quiet" | "--silent" | "--max-count" | "--files-with-matches"
                    ) || (w.starts_with('-')
                        && !w.starts_with("--")
                        && w[1..].contains(['q', 'm', 'l']))
                }),
                _ => false,
            }
        })
        .map(|stage| stage.trim().to_owned())
        .collect()
}

#[test]
fn no_ci_script_pipes_into_a_reader_that_stops_early() {
    // This package's folder is the repository's `tests/`.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut scripts = vec![root.join(".ci/run")];
    for dir in ["tests", "benches"] {
        for entry in fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "sh") {
                scripts.push(path);
            }
        }
    }
    assert!(scripts.len() > 5, "the scripts were not found: {scripts:?}");
    let mut found = Vec::new();
    for script in &scripts {
        let text = fs::read_to_string(script).unwrap();
        for (number, line) in text.lines().enumerate() {
            for reader in early_readers(line) {
                found.push(format!("{}:{}: `| {reader}`", script.display(), number + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "pipelines into a reader that stops early:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_readers_that_stop_early_are_found() {
    assert_eq!(early_readers("haproxy -v | head -n 1"), ["head -n 1"]);
    assert_eq!(
        early_readers(r#"echo "$out" | sed -n 2p | grep -q 'x' || exit 1"#),
        ["grep -q 'x'"]
    );
    assert_eq!(early_readers("  | grep -qE '^a' \\"), ["grep -qE '^a' \\"]);
    assert_eq!(early_readers("a | grep -m1 b"), ["grep -m1 b"]);
    // Readers that read to the end, an `||`, a first command and a comment are not.
    assert!(early_readers("haproxy -v | sed -n 1p").is_empty());
    assert!(early_readers("cargo tree | grep -E 'rig|x' || true").is_empty());
    assert!(early_readers("grep -q 'listening on' \"$log\" || sleep 1").is_empty());
    assert!(early_readers("# a | head").is_empty());
    assert!(early_readers("ls | grep -v -e /cohere").is_empty());
}
