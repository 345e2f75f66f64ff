//! The toolbox's side of the wire: responses and streams read for its tools (names sent under a
//! stand-in mapped back), and its results encoded as each provider's messages.

use std::fmt;

use serde_json::Value;

use crate::call::ToolCall;
use crate::output::Interrupt;
use crate::provider::{Assembler, Provider, Turn, WireError};
use crate::providers::spec;
use crate::result::ToolResult;
use crate::toolbox::Toolbox;
use crate::wire::map_back;
use crate::wire::spec::Encode;
use toolwright_json::echo;

/// Reading and writing a provider's wire format for the tools of this toolbox.
impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// The tool calls in one response body, as [`Provider::read_response`], with the names of
    /// tools sent under a stand-in ([`Provider::wire_name`]) mapped back to the tools' own.
    ///
    /// # Errors
    /// A malformed body, as [`Provider::read_response`].
    pub fn read_response(&self, provider: Provider, response: &Value) -> Result<Turn, WireError> {
        self.read_choice(provider, response, 0)
    }

    /// One answer of a response, as [`Provider::read_choice`], with stand-in names mapped back
    /// like [`read_response`](Self::read_response).
    ///
    /// # Errors
    /// As [`Provider::read_choice`].
    pub fn read_choice(
        &self,
        provider: Provider,
        response: &Value,
        choice: usize,
    ) -> Result<Turn, WireError> {
        let mut turn = provider.read_choice(response, choice)?;
        let stand_ins = self.stand_ins(provider);
        for call in &mut turn.calls {
            map_back(&stand_ins, call);
        }
        Ok(turn)
    }

    /// An assembler for one streamed response from `provider`, mapping stand-in names back like
    /// [`read_response`](Self::read_response).
    pub fn assembler(&self, provider: Provider) -> Assembler {
        Assembler::new(provider).with_stand_ins(self.stand_ins(provider))
    }

    /// One call's result in the provider's shape: an OpenAI `tool` message (a `function`
    /// message for a call read from a legacy `function_call`), a Responses
    /// `function_call_output` item, an Anthropic `tool_result` block, a Gemini `functionResponse`
    /// part, or an MCP `CallToolResult`.
    ///
    /// Content goes as the provider takes it: text, and images where the provider takes them
    /// in a result (OpenAI Chat does not: there an image becomes a note saying it was left out).
    /// Result options ([`ToolOutput::with_option`](crate::ToolOutput::with_option)) the provider
    /// takes on a result pass through (Anthropic `cache_control`; Gemini `willContinue` and
    /// `scheduling`; MCP `_meta`); others are left out. For MCP, `structuredContent` is sent when
    /// the tool has an output schema and its result is a JSON object.
    ///
    /// # Errors
    /// When the result is not this call's (another id), the call is one the provider runs
    /// itself, or the result is an interrupt still waiting for review.
    pub fn encode_result(
        &self,
        provider: Provider,
        call: &ToolCall,
        result: &ToolResult,
    ) -> Result<Value, WireError> {
        if result.call_id != call.call_id {
            return Err(WireError::new(
                "",
                format!(
                    "the result is for call {}, not {}",
                    echo::Name(&result.call_id),
                    echo::Name(&call.call_id)
                ),
            ));
        }
        if !call.owes_result() {
            return Err(refuse(
                call,
                format_args!("is run by the provider, which sends its result itself"),
            ));
        }
        if call.kind == crate::call::CallKind::Builtin
            && matches!(result.detail, crate::result::ResultDetail::NotLocal { .. })
        {
            return Err(refuse(
                call,
                format_args!(
                    "is a provider's built-in tool the application carries out itself: answer it with `ToolResult::for_call`, not with the toolbox's refusal to run it"
                ),
            ));
        }
        let spec = spec(provider);
        if call.kind == crate::call::CallKind::Builtin && !spec.builtins {
            return Err(refuse(
                call,
                format_args!(
                    "is a Responses API built-in tool; its result goes back as a Responses item, not to {provider}"
                ),
            ));
        }
        // A provider that pairs results by the id it sent would take one made up on intake
        // for its own.
        if call.id_generated && (spec.pairs_by_id)(call) {
            return Err(WireError::new(
                "",
                format!(
                    "call {} ({}) came without an id, and {} was made up for it on intake; the provider pairs results by the id it sent, so this result cannot be sent",
                    call.index,
                    echo::bare(&call.name),
                    echo::Name(&call.call_id)
                ),
            ));
        }
        if let Some(Interrupt { message, .. }) = result.interrupt() {
            return Err(refuse(
                call,
                format_args!("is paused for review ({message}); resolve it before sending results"),
            ));
        }
        let wire_name = provider.wire_name(&call.name);
        let found = self.found_entries(provider, result);
        (spec.encode)(&Encode {
            call,
            wire_name: &wire_name,
            result,
            output_schema: self
                .get(&call.name)
                .and_then(|tool| tool.definition().output_schema()),
            found: found.as_deref(),
        })
    }

    /// The results of a turn's calls, ready to append to the conversation: for OpenAI Chat an
    /// array of `tool` messages, for Responses an array of `function_call_output` items, for
    /// Anthropic one `user` message of `tool_result` blocks, for Gemini one `user` content of
    /// `functionResponse` parts, for MCP an array of `CallToolResult`s.
    ///
    /// Results are paired with calls by id and written in call order, one per call the
    /// application owes a result for (calls the provider runs itself are skipped, and so is the
    /// toolbox's refusal to run one, from a batch over every call of the turn), whatever order
    /// `results` come in. A built-in call ([`CallKind::Builtin`](crate::CallKind::Builtin)) is
    /// answered with the application's own [`ToolResult::for_call`], never with the toolbox's
    /// refusal to run it.
    ///
    /// # Errors
    /// When a call has no result, a result belongs to no call (or a call has two), or a
    /// result cannot be encoded ([`encode_result`](Self::encode_result)). Nothing is sent
    /// half-paired: a provider refuses a conversation with a call left unanswered.
    ///
    /// ```
    /// use serde_json::{Value, json};
    /// use toolwright::provider::Provider;
    /// use toolwright::{DynamicTool, ToolDefinition, Toolbox};
    ///
    /// let def = ToolDefinition::new("echo", "Echo.", json!({})).unwrap();
    /// let tools = Toolbox::new()
    ///     .with(DynamicTool::new(def, |args, _: &()| Value::Object(args)))
    ///     .unwrap();
    /// let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
    ///     {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
    /// ]}}]});
    /// let turn = tools.read_response(Provider::OpenAiChat, &response).unwrap();
    /// let results: Vec<_> = turn.calls.iter().map(|c| tools.execute_blocking(c, &())).collect();
    /// let messages = tools.encode_results(Provider::OpenAiChat, &turn.calls, &results).unwrap();
    /// assert_eq!(messages, json!([{"role": "tool", "tool_call_id": "call_1", "content": "{}"}]));
    /// ```
    pub fn encode_results(
        &self,
        provider: Provider,
        calls: &[ToolCall],
        results: &[ToolResult],
    ) -> Result<Value, WireError> {
        // Results are paired by id: two calls under one id could get each other's.
        let mut ids: Vec<(&str, usize)> = calls
            .iter()
            .enumerate()
            .filter(|(_, call)| call.owes_result())
            .map(|(at, call)| (call.call_id.as_str(), at))
            .collect();
        ids.sort_unstable();
        if let Some(pair) = ids.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            let (first, second) = (pair[0].1, pair[1].1);
            return Err(WireError::new(
                format!("/{second}"),
                format!(
                    "calls {first} and {second} share the id {}, so their results cannot be told apart; give each call its own id",
                    echo::Name(&calls[first].call_id)
                ),
            ));
        }
        let mut used = vec![false; results.len()];
        let mut items = Vec::with_capacity(calls.len());
        for (at, call) in calls.iter().enumerate() {
            if !call.owes_result() {
                continue;
            }
            let found = results
                .iter()
                .enumerate()
                .position(|(i, result)| !used[i] && result.call_id == call.call_id);
            let Some(found) = found else {
                return Err(WireError::new(
                    format!("/{at}"),
                    format!(
                        "call {} ({}) has no result",
                        echo::Name(&call.call_id),
                        echo::bare(&call.name)
                    ),
                ));
            };
            used[found] = true;
            items.push(
                self.encode_result(provider, call, &results[found])
                    .map_err(|e| WireError::new(format!("/{at}"), e.message))?,
            );
        }
        // The toolbox's own answers for calls the provider ran (a batch run over every call of
        // the turn) need no place in the message.
        let ran_by_provider = |result: &ToolResult| {
            matches!(
                result.detail,
                crate::result::ResultDetail::NotLocal {
                    kind: crate::call::CallKind::Server
                }
            ) && calls
                .iter()
                .any(|call| !call.owes_result() && call.call_id == result.call_id)
        };
        if let Some(extra) = used
            .iter()
            .zip(results)
            .position(|(used, result)| !used && !ran_by_provider(result))
        {
            return Err(WireError::new(
                "",
                format!(
                    "result {extra} (for {}) belongs to no call of the turn",
                    echo::Name(&results[extra].call_id)
                ),
            ));
        }
        Ok((spec(provider).results)(items))
    }
}

/// A result that cannot be sent for `call`, and why.
fn refuse(call: &ToolCall, why: fmt::Arguments<'_>) -> WireError {
    WireError::new(
        "",
        format!(
            "call {} ({}) {why}",
            echo::Name(&call.call_id),
            echo::bare(&call.name)
        ),
    )
}
