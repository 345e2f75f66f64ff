//! The assistant turn of a response, as the next request sends it back.

use serde_json::Value;

use crate::providers::spec;
use crate::wire::WireError;
use crate::wire::turn::{Turn, not_an_answer};

impl Turn {
    /// The model's turn as the next request carries it back, exactly as the provider wants it
    /// replayed: every block, item or part in order, with thinking and its signatures, reasoning
    /// items with their `encrypted_content`, and ids intact. Append it to the conversation, then
    /// the results ([`Toolbox::encode_results`](crate::Toolbox::encode_results)).
    ///
    /// - **Anthropic**: `{"role": "assistant", "content": [..]}`, the blocks as sent (a
    ///   stream's as assembled: text and thinking joined, `signature` set, a call's `input` as
    ///   the object it streamed). With extended thinking on, Anthropic refuses a tool result
    ///   whose assistant turn lost its `thinking` blocks.
    /// - **OpenAI Responses**: an array of input items, the response's `output` items as sent
    ///   (`reasoning` with `encrypted_content`, `function_call` with its `namespace`, ...), to
    ///   append to the next request's `input` (not needed with `previous_response_id`).
    /// - **Gemini**: `{"role": "model", "parts": [..]}`, the parts as sent, `thoughtSignature`s
    ///   on the parts that carried them (a stream's text run together, as the whole response
    ///   has it).
    /// - **OpenAI Chat**: the assistant message: `content`, `refusal`, `tool_calls`.
    ///
    /// # Errors
    /// For a turn read from an MCP request, or made by hand: there is no assistant turn to
    /// send back.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::provider::Provider;
    ///
    /// let response = json!({"content": [
    ///     {"type": "thinking", "thinking": "Adding.", "signature": "EqQBCgIYAhIM"},
    ///     {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}},
    /// ], "stop_reason": "tool_use"});
    /// let turn = Provider::Anthropic.read_response(&response).unwrap();
    /// assert_eq!(
    ///     turn.assistant_message().unwrap(),
    ///     json!({"role": "assistant", "content": response["content"]})
    /// );
    /// ```
    pub fn assistant_message(&self) -> Result<Value, WireError> {
        match self.provider {
            Some(provider) => (spec(provider).replay)(self),
            None => Err(not_an_answer()),
        }
    }
}
