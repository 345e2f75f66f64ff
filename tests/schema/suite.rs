//! The official JSON-Schema-Test-Suite, draft 2020-12 (`tests/data/json-schema-test-suite`, its
//! commit and licence named in the README there), through toolwright's validator with repair and
//! coercion off.
//!
//! Every test passes except the intended differences listed, each with its reason, in
//! `tests/data/schema-suite-differences.txt`; a listed test that passes fails this run too, so
//! the list stays exact. Remote references are served from the suite's `remotes/` (its
//! `http://localhost:1234/` convention) and the draft 2020-12 meta-schemas from
//! `tests/data/metaschemas` (json-schema.org's documents), never from the network. Counts per
//! file are printed (`cargo test -p toolwright-tests --test schema suite:: -- --nocapture`) and written to
//! `target/tmp/schema-suite-{main,optional,optional-format}.txt`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolwright::args::CompiledSchema;

use crate::data;

fn suite() -> PathBuf {
    data::path("json-schema-test-suite")
}

/// The documents a schema may refer to: the suite's remotes and the meta-schemas.
fn retrieve(uri: &str) -> Option<Value> {
    let path = if let Some(rest) = uri.strip_prefix("http://localhost:1234/") {
        suite().join("remotes").join(rest)
    } else if let Some(rest) = uri.strip_prefix("https://json-schema.org/draft/2020-12/") {
        data::path("metaschemas/draft2020-12").join(format!("{rest}.json"))
    } else {
        return None;
    };
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// One listed difference: file, case and test descriptions (`*` for every test of the case).
struct Difference {
    file: String,
    case: String,
    test: String,
    used: bool,
}

fn differences() -> Vec<Difference> {
    let text = data::read("schema-suite-differences.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let parts: Vec<&str> = line.split(" :: ").map(str::trim).collect();
            assert_eq!(
                parts.len(),
                4,
                "file :: case :: test :: reason, in {line:?}"
            );
            assert!(!parts[3].is_empty(), "every difference says why: {line:?}");
            Difference {
                file: parts[0].to_owned(),
                case: parts[1].to_owned(),
                test: parts[2].to_owned(),
                used: false,
            }
        })
        .collect()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("the suite's folder {}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no suite files in {}", dir.display());
    files
}

#[derive(Default)]
struct Count {
    passed: usize,
    differ: usize,
    failed: usize,
}

/// Runs the suite's tests in `folders`, which hold `tests` tests in all (the copy in the
/// repository is fixed; a run that reads fewer, an empty or half-copied suite, fails).
fn run(folders: &[&str], tests: usize) {
    let root = suite().join("draft2020-12");
    let mut listed = differences();
    let mut counts: BTreeMap<String, Count> = BTreeMap::new();
    let mut failures = Vec::new();
    for folder in folders {
        for path in files(&root.join(folder)) {
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            let cases: Vec<Value> =
                serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            let count = counts.entry(name.clone()).or_default();
            for case in &cases {
                let description = case["description"].as_str().unwrap();
                let schema = CompiledSchema::compile_with(&case["schema"], &retrieve);
                for test in case["tests"].as_array().unwrap() {
                    let test_name = test["description"].as_str().unwrap();
                    let expected = test["valid"].as_bool().unwrap();
                    let problems = schema.validate(&test["data"]);
                    let passed = problems.is_empty() == expected;
                    let difference = listed.iter_mut().find(|d| {
                        d.file == name
                            && d.case == description
                            && (d.test == "*" || d.test == test_name)
                    });
                    match (passed, difference) {
                        (true, Some(d)) if d.test != "*" => failures.push(format!(
                            "{name} :: {description} :: {test_name}: listed as a difference, but passes"
                        )),
                        (true, _) => count.passed += 1,
                        (false, Some(d)) => {
                            d.used = true;
                            count.differ += 1;
                        }
                        (false, None) => {
                            count.failed += 1;
                            let shown: Vec<String> =
                                problems.iter().map(ToString::to_string).collect();
                            failures.push(format!(
                                "{name} :: {description} :: {test_name}: expected {}, got {shown:?}",
                                if expected { "valid" } else { "invalid" },
                            ));
                        }
                    }
                }
            }
        }
    }
    let (mut passed, mut differ) = (0, 0);
    let mut report = String::new();
    for (file, count) in &counts {
        report.push_str(&format!(
            "{file:<48} {:>4} pass {:>3} listed {:>3} fail\n",
            count.passed, count.differ, count.failed
        ));
        passed += count.passed;
        differ += count.differ;
    }
    report.push_str(&format!(
        "{passed} passed, {differ} listed differences, {} failed\n",
        failures.len()
    ));
    print!("{report}");
    // Kept beside the build, for a look without `--nocapture`.
    let name = folders.join("+").replace('/', "-");
    let name = if name.is_empty() {
        "main".to_owned()
    } else {
        name
    };
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("schema-suite-{name}.txt"));
    fs::write(&path, &report).expect("the report");
    // A wildcard entry must still stand for at least one failing test of its files.
    let in_scope = |file: &str| {
        folders
            .iter()
            .any(|folder| Path::new(file).parent() == Some(Path::new(folder)))
    };
    for d in listed.iter().filter(|d| !d.used && in_scope(&d.file)) {
        failures.push(format!(
            "{} :: {} :: {}: listed as a difference, but passes (or is not in the suite)",
            d.file, d.case, d.test
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        passed + differ,
        tests,
        "the suite's folders {folders:?} hold {tests} tests, but {} were run",
        passed + differ
    );
}

#[test]
fn main_suite() {
    run(&[""], 1299);
}

#[test]
fn optional_suite() {
    run(&["optional"], 162);
}

#[test]
fn optional_formats() {
    run(&["optional/format"], 764);
}
