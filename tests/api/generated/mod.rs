//! What `#[tool]` generates, under the strictest lints a user's crate may deny and in a scope that
//! shadows every name it could use.

pub mod hygiene;
pub mod lints;
