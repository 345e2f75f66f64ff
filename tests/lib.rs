//! toolwright's integration tests live beside this file, one binary each (`Cargo.toml` lists
//! them). This library holds no code: it runs the README's examples as doctests, with the
//! features an application turns on (`tokio`, `mcp`), so that every example a reader copies from
//! the README compiles and runs.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
