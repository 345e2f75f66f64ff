//! The documentation a user copies from compiles for a toolwright user: every public example
//! names `toolwright::`, never the runtime crate behind it (`toolwright_runtime::`, which a user does
//! not depend on). The examples themselves run as doctests, against the facade.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
            out.push(path);
        }
    }
}

#[test]
fn public_examples_use_the_facade_paths() {
    // This package's folder is the repository's `tests/`.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    for dir in ["src", "tool-runtime/src", "tool-macros/src", "tool-mcp/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 40, "the sources were not found: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let markdown = file.extension().is_some_and(|e| e == "md");
        for (number, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            // Doc comments in Rust files; every line of a Markdown file (its examples are doc
            // tests of the facade).
            let documented = markdown || trimmed.starts_with("///") || trimmed.starts_with("//!");
            if documented && line.contains("toolwright_runtime::") {
                found.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "documentation names `toolwright_runtime::`, which a toolwright user cannot import; write `toolwright::`:\n{}",
        found.join("\n")
    );
}
