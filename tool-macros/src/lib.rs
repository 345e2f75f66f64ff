//! The `#[tool]` attribute of toolwright. Use it through the `toolwright` crate, which documents
//! it; this crate only generates code.
//!
//! `#[toolset]` ([`toolset`]) models each `#[tool]` method of an impl block the same way;
//! `#[resource]` and `#[prompt]` ([`resource`], [`prompt`]) make an MCP server's other offers.
//!
//! The stages, one module each: `attr` parses `#[tool(..)]` arguments, `ast` builds the model of
//! the fn, `valid` cross-checks it, `expand` generates code, `fallback` is the output on error.
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod offer;
mod toolset;
mod valid;

use proc_macro::TokenStream;

/// Declares an LLM tool on an ordinary fn. See the `toolwright` crate for the documentation.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), &input.into()).into()
}

/// Turns the `#[tool]` methods of an impl block into tools that share the service. See the
/// `toolwright` crate for the documentation.
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    toolset::toolset(args.into(), &input.into()).into()
}

/// Declares an MCP resource (or a template of resources) on an ordinary fn. See `toolwright::mcp`
/// for the documentation.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    offer::offer(offer::Kind::Resource, args.into(), &input.into()).into()
}

/// Declares an MCP prompt on an ordinary fn. See `toolwright::mcp` for the documentation.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    offer::offer(offer::Kind::Prompt, args.into(), &input.into()).into()
}
