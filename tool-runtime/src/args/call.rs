//! What the argument pipeline adds to calls: their arguments read as an object.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{ArgumentPolicy, CutOff, Fixes, decode_arguments};
use crate::call::{Arguments, CallStatus, ToolCall};
use crate::error::ArgumentError;

impl Arguments {
    /// The arguments as a JSON object, forgivingly: an object is returned unchanged, text that holds
    /// a JSON object is decoded (and repaired if broken), and everything else (`null`, `""`, arrays, scalars, text that is not
    /// JSON) becomes an empty object.
    ///
    /// Use [`ToolCall::complete`] to learn *why* arguments are not an object.
    pub fn as_map(&self) -> Map<String, Value> {
        let mut fixes = Fixes::default();
        // A view of what was sent, not a run: text that ended early is closed.
        let policy = ArgumentPolicy::default().cut_off(CutOff::Run);
        decode_arguments(self, &policy, &mut fixes)
            .map(Cow::into_owned)
            .unwrap_or_default()
    }
}

impl ToolCall {
    /// Marks the call as received in full and decodes its arguments.
    ///
    /// Text arguments are parsed and replaced by the JSON value they hold; `""` and `null` become
    /// `{}`. A problem (text that is not JSON, arguments that are not an object) is returned as an
    /// error and the arguments are left as they were, so nothing is lost.
    ///
    /// # Errors
    /// When the text is not JSON, or the JSON is not an object (nor `null`).
    ///
    /// ```
    /// use toolwright::ToolCall;
    ///
    /// let mut call = ToolCall::new("c1", "add", r#"{"a": 1"#);
    /// assert!(call.complete().is_err());
    /// ```
    pub fn complete(&mut self) -> Result<(), ArgumentError> {
        self.status = CallStatus::Complete;
        // Strict: a complete call's arguments are JSON as sent.
        let strict = ArgumentPolicy::default().repair(false);
        let mut fixes = Fixes::default();
        let decoded = decode_arguments(&self.arguments, &strict, &mut fixes)?.into_owned();
        self.arguments = Arguments::Json(Value::Object(decoded));
        Ok(())
    }
}
