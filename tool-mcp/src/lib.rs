#![doc = include_str!("lib.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod client;
mod content;
mod server;
mod telemetry;

#[doc(hidden)]
pub mod __private;

// Names the documentation links to.
#[cfg(doc)]
use toolwright_runtime::{Toolbox, exec::ResourceContents};

#[cfg(feature = "oauth")]
pub use self::client::{EnterpriseLogin, McpOAuth};
pub use self::client::{
    McpCallError, McpClient, McpConnectError, McpTools, McpToolsError, ToolboxExt,
};
pub use self::server::{
    AskClient, AskError, Authorization, CacheHints, DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY,
    DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_SESSION, DEFAULT_MAX_QUEUED,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS_PER_SESSION, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
    DEFAULT_PAGE_SIZE, DEFAULT_SESSION_IDLE, Drained, HttpBody, HttpLimits, InvalidToken, Limited,
    McpServer, Prompt, PromptArguments, Protected, ReadResult, Resource, ResourceRead,
    ResourceTemplate, Sessions, ShutdownHandle, SseStream, SseStreamError,
};
pub use self::server::{IntoContents, IntoPrompt};
/// The rmcp this crate is built on, so that an application names the same version.
pub use rmcp;
/// The algorithm of a private key that signs the client's assertion
/// ([`McpOAuth::private_key_jwt`]): rmcp's.
#[cfg(feature = "oauth-jwt")]
pub use rmcp::transport::auth::JwtSigningAlgorithm;
#[doc = include_str!("prompt_attr.md")]
pub use toolwright_macros::prompt;
#[doc = include_str!("resource_attr.md")]
pub use toolwright_macros::resource;
