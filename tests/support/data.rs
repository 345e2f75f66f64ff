//! The tests' fixtures: `tests/data/`, in the repository (each folder's README names the source,
//! version and licence of what it holds). A fixture that is missing fails its test with the path
//! it looked for, never with an empty run.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// The folder of the fixtures.
pub fn root() -> PathBuf {
    // This package's folder is the repository's `tests/`.
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// `tests/data/<relative>`, a file or folder that must be there.
pub fn path(relative: &str) -> PathBuf {
    let path = root().join(relative);
    assert!(
        path.exists(),
        "fixture not found: {} (the tests' data is part of the repository: is the clone whole?)",
        path.display()
    );
    path
}

/// The text of the fixture file `tests/data/<relative>`.
pub fn read(relative: &str) -> String {
    read_file(&path(relative))
}

/// The text of a file the tests check against (a fixture, a snapshot); one that cannot be read
/// fails with its path.
pub fn read_file(path: &Path) -> String {
    fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}
