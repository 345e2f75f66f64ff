//! The public API through the facade, as an application uses it: tools and toolsets, dynamic tools,
//! the argument pipeline, batches, hostile input on every entry path, and what `#[tool]`
//! generates under strict lints and shadowed names.

pub mod access;
pub mod arguments;
pub mod batch;
pub mod dynamic;
mod entry;
pub mod generated;
pub mod hostile;
pub mod tools;
pub mod toolsets;
