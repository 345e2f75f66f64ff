//! Each provider in a folder of its own: the form of its tool list and of a schema, its name
//! rules, reading its responses and streams, its results, its tool choice and the next turn's
//! assistant message, all given to the rest of the runtime as one [`Spec`]. What they share is
//! below them (`wire`, `forms`).

mod anthropic;
mod gemini;
pub(crate) mod mcp;
pub(crate) mod openai;

use crate::forms::Provider;
use crate::wire::spec::Spec;

/// What toolwright knows about `provider`.
pub(crate) fn spec(provider: Provider) -> &'static Spec {
    match provider {
        Provider::OpenAiChat => &openai::CHAT,
        Provider::OpenAiResponses => &openai::RESPONSES,
        Provider::Anthropic => &anthropic::SPEC,
        Provider::Gemini => &gemini::SPEC,
        Provider::Mcp => &mcp::SPEC,
    }
}
