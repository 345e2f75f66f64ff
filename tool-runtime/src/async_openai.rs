//! A toolbox's tools, calls and results as async-openai's types (feature `async-openai`;
//! async-openai 0.43, its Chat Completions and Responses types only).
//!
//! Every conversion goes through toolwright's own writers and readers and serde: the tool list
//! is [`Toolbox::tools_for`]'s (strict or not, as the toolbox says), calls are read by
//! [`Toolbox::read_response`] and [`Assembler`], results written by
//! [`Toolbox::encode_results`]; async-openai's types are the same JSON, typed. So the ids,
//! names and argument text of calls come through exactly as the provider sent them, broken
//! argument text included (toolwright repairs it when the call runs).
//!
//! ```
//! use toolwright::async_openai::types::chat::CreateChatCompletionResponse;
//! use toolwright::async_openai::ToolboxExt;
//! use toolwright::{Toolbox, tool};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let tools = Toolbox::new().with(AddTool).unwrap();
//! let request_tools = tools.chat_tools().unwrap(); // a request's `tools`
//! assert_eq!(request_tools.len(), 1);
//!
//! let response: CreateChatCompletionResponse = serde_json::from_value(serde_json::json!({
//!     "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
//!     "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
//!         "tool_calls": [{"id": "call_1", "type": "function",
//!             "function": {"name": "add", "arguments": "{'a': 2, 'b': 3,}"}}]}}],
//! }))
//! .unwrap();
//! let turn = tools.read_chat_completion(&response).unwrap();
//! let results: Vec<_> = turn.calls.iter().map(|call| tools.execute_blocking(call, &())).collect();
//! assert_eq!(results[0].text(), "5"); // the broken JSON repaired
//! let messages = tools.chat_tool_messages(&turn.calls, &results).unwrap(); // the next request's
//! assert_eq!(messages.len(), 1);
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use ::async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionTools, CreateChatCompletionResponse,
    CreateChatCompletionStreamResponse,
};
use ::async_openai::types::responses::{InputItem, Response, ResponseStreamEvent, Tool};

use crate::call::ToolCall;
use crate::forms::{LintReport, Provider};
use crate::provider::{Assembler, Turn, WireError};
use crate::result::ToolResult;
use crate::toolbox::Toolbox;

/// async-openai's types, at the version these conversions are written against (0.43), for
/// naming them without a dependency of one's own: `toolwright::async_openai::types::chat::..`,
/// as `async_openai::types::chat::..` in async-openai itself.
pub use ::async_openai::types;

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// A tool cannot be sent in the form asked for (a strict form that cannot say it).
    #[error("the tools cannot be sent to OpenAI: {0}")]
    Lint(Box<LintReport>),
    /// The body or the results do not make sense as the provider's format.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// The JSON toolwright wrote is not what async-openai's type reads (or the reverse): a
    /// difference between the two crates' idea of the format, named by serde.
    #[error("async-openai's `{ty}` does not take toolwright's JSON: {source}")]
    Types {
        /// The async-openai type.
        ty: &'static str,
        /// What serde said.
        source: serde_json::Error,
    },
}

fn to_value<T: Serialize>(value: &T) -> Result<Value, ConvertError> {
    serde_json::to_value(value).map_err(|source| ConvertError::Types {
        ty: std::any::type_name::<T>(),
        source,
    })
}

fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, ConvertError> {
    serde_json::from_value(value).map_err(|source| ConvertError::Types {
        ty: std::any::type_name::<T>(),
        source,
    })
}

/// A toolbox in async-openai's types: its tool list for a request, the calls of a response,
/// the results as the next request's messages or input items.
pub trait ToolboxExt {
    /// The tools for a Chat Completions request's `tools` (strict when the toolbox is, see
    /// `Toolbox::with_strict`).
    ///
    /// # Errors
    /// A tool that cannot be sent in the toolbox's form ([`ConvertError::Lint`]).
    fn chat_tools(&self) -> Result<Vec<ChatCompletionTools>, ConvertError>;

    /// The tools for a Responses request's `tools`.
    ///
    /// # Errors
    /// As [`chat_tools`](Self::chat_tools).
    fn responses_tools(&self) -> Result<Vec<Tool>, ConvertError>;

    /// The calls (and text) of a Chat Completions response, choice 0.
    ///
    /// # Errors
    /// A response toolwright's reader refuses ([`ConvertError::Wire`]).
    fn read_chat_completion(
        &self,
        response: &CreateChatCompletionResponse,
    ) -> Result<Turn, ConvertError>;

    /// The calls (and text) of a Responses API response.
    ///
    /// # Errors
    /// As [`read_chat_completion`](Self::read_chat_completion).
    fn read_responses_output(&self, response: &Response) -> Result<Turn, ConvertError>;

    /// The results of a turn's calls as the `tool` messages of the next Chat Completions
    /// request, in call order.
    ///
    /// # Errors
    /// Results that do not pair with the calls (`Toolbox::encode_results`).
    fn chat_tool_messages(
        &self,
        calls: &[ToolCall],
        results: &[ToolResult],
    ) -> Result<Vec<ChatCompletionRequestMessage>, ConvertError>;

    /// The results of a turn's calls as the `function_call_output` input items of the next
    /// Responses request, in call order.
    ///
    /// # Errors
    /// As [`chat_tool_messages`](Self::chat_tool_messages).
    fn responses_input_items(
        &self,
        calls: &[ToolCall],
        results: &[ToolResult],
    ) -> Result<Vec<InputItem>, ConvertError>;
}

impl<C: ?Sized + Sync + 'static> ToolboxExt for Toolbox<C> {
    fn chat_tools(&self) -> Result<Vec<ChatCompletionTools>, ConvertError> {
        let tools = self
            .tools_for(Provider::OpenAiChat)
            .map_err(|report| ConvertError::Lint(Box::new(report)))?;
        from_value(tools.to_value())
    }

    fn responses_tools(&self) -> Result<Vec<Tool>, ConvertError> {
        let tools = self
            .tools_for(Provider::OpenAiResponses)
            .map_err(|report| ConvertError::Lint(Box::new(report)))?;
        from_value(tools.to_value())
    }

    fn read_chat_completion(
        &self,
        response: &CreateChatCompletionResponse,
    ) -> Result<Turn, ConvertError> {
        Ok(self.read_response(Provider::OpenAiChat, &to_value(response)?)?)
    }

    fn read_responses_output(&self, response: &Response) -> Result<Turn, ConvertError> {
        Ok(self.read_response(Provider::OpenAiResponses, &to_value(response)?)?)
    }

    fn chat_tool_messages(
        &self,
        calls: &[ToolCall],
        results: &[ToolResult],
    ) -> Result<Vec<ChatCompletionRequestMessage>, ConvertError> {
        from_value(self.encode_results(Provider::OpenAiChat, calls, results)?)
    }

    fn responses_input_items(
        &self,
        calls: &[ToolCall],
        results: &[ToolResult],
    ) -> Result<Vec<InputItem>, ConvertError> {
        from_value(self.encode_results(Provider::OpenAiResponses, calls, results)?)
    }
}

/// Chunks and events of async-openai's streams into an [`Assembler`] (one made for
/// `Provider::OpenAiChat` or `Provider::OpenAiResponses`).
pub trait AssemblerExt {
    /// One chunk of a streamed Chat Completions response.
    ///
    /// # Errors
    /// A chunk the assembler refuses (its warnings keep the recoverable ones).
    fn push_chat_chunk(
        &mut self,
        chunk: &CreateChatCompletionStreamResponse,
    ) -> Result<(), ConvertError>;

    /// One event of a streamed Responses API response.
    ///
    /// # Errors
    /// As [`push_chat_chunk`](Self::push_chat_chunk).
    fn push_responses_event(&mut self, event: &ResponseStreamEvent) -> Result<(), ConvertError>;
}

impl AssemblerExt for Assembler {
    fn push_chat_chunk(
        &mut self,
        chunk: &CreateChatCompletionStreamResponse,
    ) -> Result<(), ConvertError> {
        Ok(self.push(&to_value(chunk)?)?)
    }

    fn push_responses_event(&mut self, event: &ResponseStreamEvent) -> Result<(), ConvertError> {
        Ok(self.push(&to_value(event)?)?)
    }
}
