//! AWS's binary event stream framing (`application/vnd.amazon.eventstream`), which Bedrock's
//! `ConverseStream` sends over HTTP: each frame a prelude (total and header lengths, their
//! CRC32), headers (`:message-type`, `:event-type`, ...), a JSON payload and the frame's
//! CRC32. Decoded into the events [`Assembler::push`](crate::provider::Assembler::push) takes.

use std::fmt;

use serde_json::{Map, Value};

/// The longest frame the format allows (16 MiB), and the most header bytes (128 KiB).
const MAX_FRAME: usize = 16 * 1024 * 1024;
const MAX_HEADERS: usize = 128 * 1024;
/// A frame's prelude (12 bytes) and closing CRC (4).
const OVERHEAD: usize = 16;

/// Decodes Bedrock's `ConverseStream` from the bytes of its HTTP response body, as they arrive,
/// into the events an [`Assembler`](crate::provider::Assembler) for
/// [`Provider::Bedrock`](crate::provider::Provider::Bedrock) takes: each frame's JSON payload
/// keyed by its `:event-type` (`{"contentBlockDelta": {..}}`), and an exception frame keyed by
/// its `:exception-type`, which the assembler reports as the error it is.
///
/// Bytes may be split anywhere; a frame is decoded once all of it has come. A frame whose
/// checksums or lengths are wrong, or whose payload is not JSON, is an error: the framing
/// cannot be trusted past it, and every later push repeats the error.
///
/// ```
/// use toolwright::provider::{Assembler, EventStreamDecoder, Provider};
///
/// # fn frame(event_type: &str, payload: &str) -> Vec<u8> {
/// #     let mut headers = Vec::new();
/// #     for (name, value) in [(":message-type", "event"), (":event-type", event_type)] {
/// #         headers.push(name.len() as u8);
/// #         headers.extend_from_slice(name.as_bytes());
/// #         headers.push(7);
/// #         headers.extend_from_slice(&(value.len() as u16).to_be_bytes());
/// #         headers.extend_from_slice(value.as_bytes());
/// #     }
/// #     let total = (16 + headers.len() + payload.len()) as u32;
/// #     let mut out = total.to_be_bytes().to_vec();
/// #     out.extend_from_slice(&(headers.len() as u32).to_be_bytes());
/// #     let crc = crc32fast::hash(&out);
/// #     out.extend_from_slice(&crc.to_be_bytes());
/// #     out.extend_from_slice(&headers);
/// #     out.extend_from_slice(payload.as_bytes());
/// #     let crc = crc32fast::hash(&out);
/// #     out.extend_from_slice(&crc.to_be_bytes());
/// #     out
/// # }
/// let mut body = frame("contentBlockStart", r#"{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"add"}}}"#);
/// body.extend(frame("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"a\": 2}"}}}"#));
/// body.extend(frame("contentBlockStop", r#"{"contentBlockIndex":0}"#));
/// body.extend(frame("messageStop", r#"{"stopReason":"tool_use"}"#));
///
/// let mut decoder = EventStreamDecoder::new();
/// let mut stream = Assembler::new(Provider::Bedrock);
/// // The body as it arrives, in pieces of any size.
/// for piece in body.chunks(7) {
///     for event in decoder.push(piece).unwrap() {
///         stream.push(&event).unwrap();
///     }
/// }
/// decoder.finish().unwrap();
/// let calls = stream.finish();
/// assert_eq!(calls[0].name, "add");
/// assert_eq!(calls[0].arguments_as_map()["a"], 2);
/// ```
#[derive(Debug, Default)]
pub struct EventStreamDecoder {
    buffer: Vec<u8>,
    frames: usize,
    broken: Option<EventStreamError>,
}

/// A frame of AWS's event stream that could not be decoded: which one (1-based), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventStreamError {
    frame: usize,
    message: String,
}

impl EventStreamError {
    /// The 1-based number of the frame at fault.
    pub fn frame(&self) -> usize {
        self.frame
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for EventStreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event stream frame {}: {}", self.frame, self.message)
    }
}

impl std::error::Error for EventStreamError {}

impl EventStreamDecoder {
    /// A decoder at the start of a response body.
    pub fn new() -> Self {
        EventStreamDecoder::default()
    }

    /// Takes the next bytes of the body: the events of the frames they complete, in order.
    ///
    /// # Errors
    /// A frame whose lengths or checksums are wrong, whose headers cannot be read, or whose
    /// payload is not a JSON object; once one is found, every later push gives it again.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Value>, EventStreamError> {
        if let Some(error) = &self.broken {
            return Err(error.clone());
        }
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut start = 0;
        loop {
            let rest = &self.buffer[start..];
            if rest.len() < 12 {
                break;
            }
            let frame = self.frames + 1;
            let fail = |message: String| EventStreamError { frame, message };
            let total = u32_at(rest, 0) as usize;
            let headers = u32_at(rest, 4) as usize;
            if crc32fast::hash(&rest[..8]) != u32_at(rest, 8) {
                return Err(self.break_with(fail("the prelude's checksum is wrong".into())));
            }
            if !(OVERHEAD..=MAX_FRAME).contains(&total)
                || headers > MAX_HEADERS
                || headers > total - OVERHEAD
            {
                return Err(self.break_with(fail(format!(
                    "lengths out of bounds: {total} bytes in all, {headers} of headers"
                ))));
            }
            if rest.len() < total {
                break;
            }
            let body = &rest[..total];
            if crc32fast::hash(&body[..total - 4]) != u32_at(body, total - 4) {
                return Err(self.break_with(fail("the frame's checksum is wrong".into())));
            }
            let event =
                decode(&body[12..12 + headers], &body[12 + headers..total - 4]).map_err(fail);
            let event = match event {
                Ok(event) => event,
                Err(error) => return Err(self.break_with(error)),
            };
            self.frames += 1;
            start += total;
            events.extend(event);
        }
        self.buffer.drain(..start);
        Ok(events)
    }

    /// Ends the body.
    ///
    /// # Errors
    /// Bytes of a frame that never completed (the body was cut off), or an earlier error.
    pub fn finish(self) -> Result<(), EventStreamError> {
        if let Some(error) = self.broken {
            return Err(error);
        }
        if self.buffer.is_empty() {
            Ok(())
        } else {
            Err(EventStreamError {
                frame: self.frames + 1,
                message: format!(
                    "the body ended {} bytes into a frame that never completed",
                    self.buffer.len()
                ),
            })
        }
    }

    /// How many frames were decoded.
    pub fn frames(&self) -> usize {
        self.frames
    }

    fn break_with(&mut self, error: EventStreamError) -> EventStreamError {
        self.buffer.clear();
        self.broken = Some(error.clone());
        error
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// One frame's event: its payload keyed by its type, or nothing for a frame that carries none
/// (an `initial-response`).
fn decode(headers: &[u8], payload: &[u8]) -> Result<Option<Value>, String> {
    let headers = read_headers(headers)?;
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let key = match header(":message-type").unwrap_or("event") {
        "event" => match header(":event-type") {
            Some("initial-response") => return Ok(None),
            Some(kind) => kind.to_owned(),
            None => return Err("an event frame without `:event-type`".into()),
        },
        "exception" => header(":exception-type")
            .unwrap_or("unknownException")
            .to_owned(),
        "error" => {
            let code = header(":error-code").unwrap_or("unknown");
            let message = header(":error-message").unwrap_or_default();
            let mut body = Map::new();
            body.insert("message".into(), Value::from(message));
            return Ok(Some(Value::Object(Map::from_iter([(
                format!("{code}Exception"),
                Value::Object(body),
            )]))));
        }
        other => return Err(format!("a frame of message type `{other}`")),
    };
    let body: Value = if payload.is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_slice(payload)
            .map_err(|error| format!("the payload is not JSON: {error}"))?
    };
    if !body.is_object() {
        return Err("the payload is not a JSON object".into());
    }
    Ok(Some(Value::Object(Map::from_iter([(key, body)]))))
}

/// A frame's headers whose values are strings (the others read and left out).
fn read_headers(mut bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    let cut = || "a header runs past the headers".to_owned();
    let mut headers = Vec::new();
    while let Some((&length, rest)) = bytes.split_first() {
        let length = usize::from(length);
        let (name, rest) = rest.split_at_checked(length).ok_or_else(cut)?;
        let (&kind, rest) = rest.split_first().ok_or_else(cut)?;
        let size = match kind {
            0 | 1 => 0,
            2 => 1,
            3 => 2,
            4 => 4,
            5 | 8 => 8,
            9 => 16,
            6 | 7 => {
                let (length, rest) = rest.split_at_checked(2).ok_or_else(cut)?;
                let length = usize::from(u16::from_be_bytes([length[0], length[1]]));
                let (value, rest) = rest.split_at_checked(length).ok_or_else(cut)?;
                if kind == 7 {
                    let name = String::from_utf8_lossy(name).into_owned();
                    let value = std::str::from_utf8(value)
                        .map_err(|_| format!("header `{name}` is not UTF-8"))?;
                    headers.push((name, value.to_owned()));
                }
                bytes = rest;
                continue;
            }
            other => return Err(format!("a header of unknown type {other}")),
        };
        bytes = rest.get(size..).ok_or_else(cut)?;
    }
    Ok(headers)
}
