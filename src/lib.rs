//! placeholder while the runtime builds
pub use tool_runtime::*;
