//! Assembly of streamed tool calls: deltas appended as they come, in time linear in the bytes
//! received.

use serde_json::{Map, Value};

use crate::call::ToolCall;
use crate::forms::Provider;
use crate::providers::spec;
use crate::wire::assembly::{Buf, Slot, State, lenient_object};
use crate::wire::turn::Turn;
use crate::wire::{WireError, map_back};
use toolwright_json::value as json;

/// Assembles the tool calls of one streamed response, chunk by chunk.
///
/// Feed it each chunk or event as it arrives ([`push`](Self::push) for a parsed value,
/// [`push_line`](Self::push_line) for a line of the stream, SSE framing and all), then
/// [`finish`](Self::finish) it for the calls, in the order the model made them. Appending a delta
/// copies it to the end of its call's buffer and nothing more, so the total work is linear in the
/// bytes received, however many deltas a call arrives in.
///
/// A call is complete only at the end of its block (OpenAI Chat: the choice's `finish_reason`;
/// Responses: `response.output_item.done`; Anthropic: `content_block_stop`; Gemini: a part that
/// does not say `willContinue`; Cohere: `tool-call-end`; Bedrock: `contentBlockStop`). A stream
/// that stops early still yields every call it started, marked
/// [`CallStatus::Incomplete`](crate::call::CallStatus::Incomplete), with its arguments as far
/// as they got. A malformed or out-of-order chunk is an error naming the chunk; the assembler
/// keeps everything it received and can go on.
///
/// ```
/// use toolwright::CallStatus;
/// use toolwright::provider::{Assembler, Provider};
///
/// let mut stream = Assembler::new(Provider::OpenAiChat);
/// for line in [
///     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"add","arguments":""}}]}}]}"#,
///     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\": 2,"}}]}}]}"#,
///     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"b\": 3}"}}]}}]}"#,
///     r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
///     "data: [DONE]",
/// ] {
///     stream.push_line(line).unwrap();
/// }
/// let calls = stream.finish();
/// assert_eq!(calls[0].name, "add");
/// assert_eq!(calls[0].status, CallStatus::Complete);
/// assert_eq!(calls[0].arguments_as_map()["b"], 3);
/// ```
#[derive(Debug)]
pub struct Assembler {
    provider: Provider,
    state: State,
    chunks: usize,
    ended: bool,
    stand_ins: Vec<(String, String)>,
}

impl Assembler {
    /// An assembler for one streamed response from `provider`. For MCP, each chunk is a whole
    /// `tools/call` request (or its `params`). Tool names are kept as the model wrote them;
    /// [`Toolbox::assembler`](crate::Toolbox::assembler) maps stand-in names back.
    pub fn new(provider: Provider) -> Self {
        Assembler {
            provider,
            state: State::default(),
            chunks: 0,
            ended: false,
            stand_ins: Vec::new(),
        }
    }

    pub(crate) fn with_stand_ins(mut self, stand_ins: Vec<(String, String)>) -> Self {
        self.stand_ins = stand_ins;
        self
    }

    /// Reads answer `choice` of the stream: OpenAI Chat's choice or Gemini's candidate whose
    /// `index` it is (a request for several, `n` or `candidateCount`, gets them interleaved).
    /// The default is 0, as [`Provider::read_response`] reads; chunks of other answers are
    /// skipped. Responses, Anthropic and MCP streams carry one answer: there, any other choice
    /// makes every chunk an error.
    ///
    /// ```
    /// use toolwright::provider::{Assembler, Provider};
    ///
    /// let mut stream = Assembler::new(Provider::OpenAiChat).choice(1);
    /// for line in [
    ///     r#"{"choices":[{"index":0,"delta":{"content":"I'd rather not."}}]}"#,
    ///     r#"{"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"add","arguments":"{}"}}]}}]}"#,
    ///     r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"tool_calls"}]}"#,
    /// ] {
    ///     stream.push_line(line).unwrap();
    /// }
    /// let turn = stream.finish_turn();
    /// assert_eq!(turn.calls[0].call_id, "call_1");
    /// assert_eq!(turn.stop_reason.as_deref(), Some("tool_calls"));
    /// assert_eq!(turn.text, "");
    /// ```
    #[must_use]
    pub fn choice(mut self, choice: usize) -> Self {
        self.state.choice = choice;
        self
    }

    /// The provider whose stream this is.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Takes one chunk (OpenAI Chat, Gemini) or event (Responses, Anthropic), parsed.
    ///
    /// # Errors
    /// A chunk that does not have the provider's shape, refers to a call or block the stream
    /// has not started, or contradicts what came before; the error names the chunk (1-based,
    /// counting every chunk given). What the chunk held that could be placed is kept.
    pub fn push(&mut self, chunk: &Value) -> Result<(), WireError> {
        self.chunks += 1;
        let state = &mut self.state;
        if state.choice != 0 && !self.provider.has_choices() {
            return Err(WireError::new(
                "",
                format!(
                    "{} streams carry one answer; there is no choice {}",
                    self.provider, state.choice
                ),
            )
            .in_chunk(self.chunks));
        }
        let warned = state.warnings.len();
        let done =
            (spec(self.provider).push)(state, chunk).map_err(|error| error.in_chunk(self.chunks));
        for warning in &mut self.state.warnings[warned..] {
            tracing::warn!(chunk = self.chunks, %warning, "an odd value in a stream, kept");
            *warning = warning.clone().in_chunk(self.chunks);
        }
        self.ended |= done?;
        Ok(())
    }

    /// Takes one line of a stream: a JSON chunk, with or without an SSE `data:` prefix. Blank
    /// lines, SSE comments and `event:`/`id:`/`retry:` fields are skipped (events carry their
    /// type in their data), and `[DONE]` marks the end.
    ///
    /// # Errors
    /// A line that is not JSON, and everything [`push`](Self::push) refuses; the error names
    /// the chunk.
    pub fn push_line(&mut self, line: &str) -> Result<(), WireError> {
        let line = line.trim();
        if line.is_empty() || line.starts_with(':') {
            return Ok(());
        }
        let data = match line.strip_prefix("data:") {
            Some(data) => data.trim_start(),
            None if ["event:", "id:", "retry:"]
                .iter()
                .any(|field| line.starts_with(field)) =>
            {
                return Ok(());
            }
            None => line,
        };
        if data == "[DONE]" {
            self.ended = true;
            return Ok(());
        }
        match serde_json::from_str::<Value>(data) {
            Ok(chunk) => self.push(&chunk),
            Err(error) => {
                self.chunks += 1;
                let shown: String = data.chars().take(80).collect();
                let more = if shown.len() < data.len() { "…" } else { "" };
                Err(
                    WireError::new("", format!("not JSON ({error}): {shown}{more}"))
                        .in_chunk(self.chunks),
                )
            }
        }
    }

    /// The calls so far, in the order they started.
    pub fn calls(&self) -> impl ExactSizeIterator<Item = PartialCall<'_>> {
        self.state
            .slots
            .iter()
            .enumerate()
            .map(|(at, slot)| PartialCall {
                slot,
                complete: self.state.is_done(at),
            })
    }

    /// The text the model wrote so far (thinking excluded).
    pub fn text(&self) -> &str {
        &self.state.text
    }

    /// What looked odd so far where the calls do not depend on it, each with its chunk: kept
    /// as it came, and reported rather than costing the chunk's calls ([`Turn::warnings`]).
    pub fn warnings(&self) -> &[WireError] {
        &self.state.warnings
    }

    /// Whether the stream said it ended (`[DONE]`, a final event, a final chunk).
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// How many chunks were given.
    pub fn chunks(&self) -> usize {
        self.chunks
    }

    /// The calls, in the order the model made them (by response or message, then index).
    /// Calls whose block never ended are
    /// [`CallStatus::Incomplete`](crate::call::CallStatus::Incomplete), with the arguments they
    /// got; a lenient read ([`Arguments::as_map`](crate::call::Arguments::as_map)) still makes
    /// the most of them.
    pub fn finish(self) -> Vec<ToolCall> {
        self.finish_with(false).calls
    }

    /// The calls, as [`finish`](Self::finish), with the text and the stop reason.
    pub fn finish_turn(self) -> Turn {
        self.finish_with(true)
    }

    /// The turn, with its content (for the next request) when `content` asks for it.
    fn finish_with(self, content: bool) -> Turn {
        if self.state.other_choices && !self.state.choice_seen {
            tracing::warn!(
                choice = self.state.choice,
                "the stream held other choices, and none numbered {}: no calls",
                self.state.choice
            );
        }
        let spec = spec(self.provider);
        let content = if content {
            (spec.content)(&self.state)
        } else {
            Vec::new()
        };
        let State {
            slots: mut_slots,
            text,
            stop_reason,
            warnings,
            outputs,
            finished,
            ..
        } = self.state;
        let mut slots = mut_slots;
        for slot in &mut slots {
            slot.done |= finished.contains(&slot.key.1);
        }
        // Stable: calls at the same position (a server resending an index) keep arrival order.
        slots.sort_by_key(|slot| slot.key);
        let mut calls: Vec<ToolCall> = slots
            .into_iter()
            .map(|slot| {
                let mut call = slot.into_call();
                map_back(&self.stand_ins, &mut call);
                call
            })
            .collect();
        (spec.pair)(&mut calls, outputs);
        let mut turn = Turn::of(self.provider);
        turn.calls = calls;
        turn.text = text;
        turn.stop_reason = stop_reason;
        turn.warnings = warnings;
        turn.content = content.into();
        turn
    }
}

/// A call still being assembled.
#[derive(Debug, Clone, Copy)]
pub struct PartialCall<'a> {
    slot: &'a Slot,
    complete: bool,
}

impl<'a> PartialCall<'a> {
    /// The provider's id for the call (empty until the stream says it).
    pub fn id(&self) -> &'a str {
        &self.slot.call.call_id
    }

    /// The tool's name as the model wrote it (empty until the stream says it).
    pub fn name(&self) -> &'a str {
        &self.slot.call.name
    }

    /// The call's index as the provider numbers it.
    pub fn index(&self) -> usize {
        self.slot.call.index
    }

    /// Whether the call's block has ended.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The argument text received so far, for providers that stream text; `None` for
    /// arguments that came as a JSON value (Gemini).
    pub fn arguments_text(&self) -> Option<&'a str> {
        match &self.slot.buf {
            Buf::Text(text) | Buf::Start(text, _) => Some(text),
            Buf::Json(_) => None,
        }
    }

    /// The arguments so far, read leniently (unclosed strings, objects and arrays closed; a
    /// member cut off in its key dropped): for showing a call as it streams.
    ///
    /// This costs a parse of everything received so far, so calling it on every delta makes
    /// the stream quadratic; call it when the display needs it (on a timer, say).
    pub fn preview(&self) -> Map<String, Value> {
        match &self.slot.buf {
            Buf::Json(Value::Object(map)) => json::clone_map(map),
            Buf::Start(text, Value::Object(map)) if text.is_empty() => json::clone_map(map),
            Buf::Text(text) | Buf::Start(text, _) if !text.is_empty() => lenient_object(text),
            _ => Map::new(),
        }
    }
}
