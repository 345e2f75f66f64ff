//! What an assembler keeps between chunks, shared by every provider's stream reader: the calls
//! being assembled (their argument buffers, their positions) and the answer's items so far.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use super::WireError;
use crate::call::{Arguments, CallStatus, ToolCall};
use toolwright_json::value as json;
#[cfg(feature = "lenient")]
use toolwright_json::{JsonLimits, parse_lenient};

/// What the per-provider chunk readers keep between chunks.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) slots: Vec<Slot>,
    pub(crate) text: String,
    pub(crate) stop_reason: Option<String>,
    /// Odd values read where the calls do not depend on them; stamped with their chunk.
    pub(crate) warnings: Vec<WireError>,
    /// The answer's items, blocks or parts by `(segment, index)`, as they stand: what the
    /// turn's content is built from.
    pub(crate) items: BTreeMap<(usize, usize), Value>,
    /// Results the provider sent for its own calls, paired with them at the end.
    pub(crate) outputs: Vec<Value>,
    /// The slot of each call that is an item of the content (Gemini's `functionCall` parts).
    pub(crate) item_slots: HashMap<(usize, usize), usize>,
    /// Slots by the provider's id for the call (OpenAI Chat call id, Responses item id).
    pub(crate) by_id: HashMap<String, usize>,
    /// Slots by position: `(segment, choice, index)`.
    pub(crate) by_key: HashMap<Key, usize>,
    /// Blocks that are not tool calls (Anthropic), by `(segment, index)`: `true` once stopped.
    pub(crate) other_blocks: HashMap<(usize, usize), bool>,
    /// The slot that got the latest delta (OpenAI Chat servers that send no index).
    pub(crate) latest: Option<usize>,
    /// Responses in a Responses stream, messages in an Anthropic one: each restarts indexes.
    pub(crate) segment: usize,
    pub(crate) started: bool,
    /// Calls started per `(segment, choice)`: the index of a call a server sent without one.
    pub(crate) counts: HashMap<(usize, usize), usize>,
    /// OpenAI Chat choices whose `finish_reason` came: their calls are complete. Kept per choice
    /// rather than marked on each call, so a finish costs the same however many calls there are.
    pub(crate) finished: HashSet<usize>,
    /// The answer being read: OpenAI Chat's choice, Gemini's candidate (others are skipped).
    pub(crate) choice: usize,
    /// Whether a chunk held the choice being read, and whether one held another.
    pub(crate) choice_seen: bool,
    pub(crate) other_choices: bool,
    /// The OpenAI Chat call of a legacy `delta.function_call`.
    pub(crate) legacy: Option<usize>,
    /// The Gemini call still streaming its arguments, and the string path being continued.
    pub(crate) open: Option<usize>,
    pub(crate) open_string: Option<String>,
}

/// Where a call sits in the model's turn: segment (a response or message of the stream), choice,
/// index. Calls come out in this order.
pub(crate) type Key = (usize, usize, usize);

/// One call being assembled.
#[derive(Debug)]
pub(crate) struct Slot {
    /// Id, name, index, kind and metadata; the arguments are set from `buf` at the end.
    pub(crate) call: ToolCall,
    pub(crate) buf: Buf,
    pub(crate) key: Key,
    pub(crate) done: bool,
}

/// A call's arguments so far.
#[derive(Debug)]
pub(crate) enum Buf {
    /// Text deltas, appended (OpenAI, Responses, Anthropic).
    Text(String),
    /// Anthropic: the `input` of the block's start, used when no delta says more.
    Start(String, Value),
    /// A JSON value built up by path (Gemini), or sent whole.
    Json(Value),
}

impl State {
    /// Adds a slot and indexes it by position.
    pub(crate) fn add(&mut self, call: ToolCall, key: Key, buf: Buf) -> usize {
        let at = self.slots.len();
        self.slots.push(Slot {
            call,
            buf,
            key,
            done: false,
        });
        self.by_key.insert(key, at);
        *self.counts.entry((key.0, key.1)).or_default() += 1;
        self.latest = Some(at);
        at
    }

    /// How many calls started in this segment and choice.
    pub(crate) fn count(&self, segment: usize, choice: usize) -> usize {
        self.counts.get(&(segment, choice)).copied().unwrap_or(0)
    }

    /// Whether the call in this slot is complete.
    pub(crate) fn is_done(&self, at: usize) -> bool {
        let slot = &self.slots[at];
        slot.done || self.finished.contains(&slot.key.1)
    }
}

impl Slot {
    /// Appends text to the arguments.
    pub(crate) fn append(&mut self, delta: &str) {
        match &mut self.buf {
            Buf::Text(text) | Buf::Start(text, _) => text.push_str(delta),
            Buf::Json(value) => {
                // Text after a whole value: keep both, as text, so nothing is lost.
                let mut text = json::to_text(value);
                text.push_str(delta);
                self.buf = Buf::Text(text);
            }
        }
    }

    pub(crate) fn into_call(self) -> ToolCall {
        let Slot {
            mut call,
            buf,
            done,
            ..
        } = self;
        call.arguments = match buf {
            Buf::Start(text, input) if text.is_empty() => Arguments::Json(input),
            Buf::Start(text, Value::Object(input)) if !input.is_empty() => {
                call.metadata
                    .insert("start_input".into(), Value::Object(input));
                Arguments::Text(text)
            }
            Buf::Text(text) | Buf::Start(text, _) => Arguments::Text(text),
            Buf::Json(value) => Arguments::Json(value),
        };
        if call.call_id.is_empty() {
            // A server that never sent an id: one is made up so the result can pair with it.
            call.call_id = format!("call_{}", call.index).into();
            call.id_generated = true;
        }
        call.status = if done {
            CallStatus::Complete
        } else {
            CallStatus::Incomplete
        };
        call
    }
}

/// Arguments text read leniently as the object it holds (unclosed strings, objects and arrays
/// closed; a member cut off in its key dropped); empty when it holds none. Without the lenient
/// parser (feature `lenient` off), only text that is already a whole JSON object is read.
pub(crate) fn lenient_object(text: &str) -> Map<String, Value> {
    #[cfg(feature = "lenient")]
    let read = parse_lenient(text, &JsonLimits::default()).map(|repaired| repaired.value);
    #[cfg(not(feature = "lenient"))]
    let read = serde_json::from_str::<Value>(text);
    match read {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}
