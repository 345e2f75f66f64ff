//! toolwright's integration tests live beside this file, six binaries by subject (`api`, `wire`,
//! `schema`, `mcp`, `repository`, `generated`: a folder each, its `main.rs` naming the files),
//! and three apart: the UI tests (`compiletest.rs`), the tracing test (which installs a global
//! subscriber) and auto-registration (feature `inventory`).
//!
//! This library holds no code: it runs the README's examples as doctests, with the features an
//! application turns on (`tokio`, `mcp`), so that every example a reader copies from the README
//! compiles and runs.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
