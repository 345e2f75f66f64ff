//! What a user gets from crates.io: documentation whose every public example names
//! `toolwright::`, never the runtime crate behind it (`toolwright_runtime::`, which a user does not
//! depend on; the examples themselves run as doctests, against the facade), and crates whose
//! manifests carry what crates.io and docs.rs need.

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

/// Each published crate carries what crates.io and docs.rs need (issue 27): a description, the
/// licence with both its files, the repository, a readme that exists, at most five keywords of
/// at most 20 characters (crates.io refuses more), categories, the lowest toolchain, and docs.rs
/// metadata; and the names are ones crates.io can take (its `tool_macros` is another project's).
#[test]
fn published_crates_carry_what_crates_io_needs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let workspace = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for key in ["license", "repository", "rust-version"] {
        assert!(
            workspace
                .lines()
                .any(|line| line.starts_with(&format!("{key} = \""))),
            "the workspace's [workspace.package] sets no {key}"
        );
    }
    let published = [
        (".", "toolwright"),
        ("tool-json", "toolwright-json"),
        ("tool-schema", "toolwright-schema"),
        ("tool-macros", "toolwright-macros"),
        ("tool-runtime", "toolwright-runtime"),
        ("tool-mcp", "toolwright-mcp"),
    ];
    for (dir, name) in published {
        let dir = root.join(dir);
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let value = |key: &str| {
            manifest
                .lines()
                .find_map(|line| line.strip_prefix(&format!("{key} = ")))
                .map(str::to_owned)
        };
        let inherited = |key: &str| {
            value(key).is_some() || manifest.contains(&format!("\n{key}.workspace = true"))
        };
        assert_eq!(
            value("name").as_deref(),
            Some(&*format!("\"{name}\"")),
            "{name}"
        );
        assert!(
            !manifest.contains("publish = false"),
            "{name} is to be published"
        );
        for key in [
            "license",
            "repository",
            "rust-version",
            "edition",
            "version",
        ] {
            assert!(inherited(key), "{name}: no {key}");
        }
        let description = value("description").unwrap_or_default();
        assert!(description.len() > 20, "{name}: no description");
        let readme = value("readme").unwrap_or_else(|| panic!("{name}: no readme"));
        assert!(
            dir.join(readme.trim_matches('"')).is_file(),
            "{name}: {readme} is missing"
        );
        for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
            let text = fs::read_to_string(dir.join(licence))
                .unwrap_or_else(|error| panic!("{name}: {licence}: {error}"));
            assert!(text.len() > 500, "{name}: {licence} is not a licence");
        }
        let keywords = value("keywords").unwrap_or_else(|| panic!("{name}: no keywords"));
        let keywords: Vec<&str> = keywords
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|keyword| keyword.trim().trim_matches('"'))
            .collect();
        assert!((1..=5).contains(&keywords.len()), "{name}: {keywords:?}");
        for keyword in &keywords {
            assert!(
                keyword.len() <= 20
                    && keyword.starts_with(|c: char| c.is_ascii_alphabetic())
                    && keyword
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '+'),
                "{name}: crates.io refuses the keyword {keyword:?}"
            );
        }
        assert!(value("categories").is_some(), "{name}: no categories");
        assert!(
            manifest.contains("[package.metadata.docs.rs]"),
            "{name}: no docs.rs metadata"
        );
    }
}

/// The README introduces; the reference is the API documentation (issue 27, issue 42).
#[test]
fn the_readme_is_at_most_300_lines() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines");
}
