//! The public API through the facade, as an application uses it: tools and toolsets, dynamic tools,
//! the argument pipeline, batches, and hostile input on every entry path.

pub mod arguments;
pub mod batch;
pub mod dynamic;
pub mod hostile;
pub mod tools;
pub mod toolsets;
