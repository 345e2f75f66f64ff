//! A call's id, shared rather than copied between a call and its results.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, LazyLock};

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

/// The provider's id for a call, as a [`ToolCall`](crate::ToolCall) and its
/// [`ToolResult`](crate::ToolResult) carry it.
///
/// The text sits behind an `Arc`: a result, a progress report or a call's [`CallInfo`]
/// shares the call's id instead of copying it (measured in BENCHMARKS.md: copying it was about a
/// tenth of a small call). It reads like a `&str` (it derefs to one, compares with `str`,
/// `&str` and `String`, and serializes as a JSON string), and is made from any of them.
///
/// ```
/// use toolwright::{CallId, ToolCall};
///
/// let call = ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#);
/// assert_eq!(call.call_id, "call_1");
/// assert!(call.call_id.starts_with("call_"));
/// let id: CallId = String::from("toolu_1").into();
/// assert_eq!(serde_json::to_string(&id).unwrap(), r#""toolu_1""#);
/// ```
///
/// [`CallInfo`]: crate::CallInfo
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallId(Arc<str>);

impl CallId {
    /// The id as text.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for CallId {
    /// The empty id (a call whose id has not arrived yet): one shared text, so that a reader
    /// that makes its call before the id arrives allocates nothing for it.
    fn default() -> Self {
        static EMPTY: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(""));
        CallId(Arc::clone(&EMPTY))
    }
}

impl Deref for CallId {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for CallId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for CallId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for CallId {
    fn from(id: &str) -> Self {
        if id.is_empty() {
            return CallId::default();
        }
        CallId(Arc::from(id))
    }
}

impl From<String> for CallId {
    fn from(id: String) -> Self {
        CallId::from(id.as_str())
    }
}

impl From<&String> for CallId {
    fn from(id: &String) -> Self {
        CallId::from(id.as_str())
    }
}

impl From<Arc<str>> for CallId {
    fn from(id: Arc<str>) -> Self {
        CallId(id)
    }
}

impl From<&CallId> for CallId {
    fn from(id: &CallId) -> Self {
        id.clone()
    }
}

impl From<CallId> for String {
    fn from(id: CallId) -> Self {
        id.0.as_ref().to_owned()
    }
}

impl From<CallId> for Arc<str> {
    fn from(id: CallId) -> Self {
        id.0
    }
}

impl PartialEq<str> for CallId {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for CallId {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for CallId {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<CallId> for str {
    fn eq(&self, other: &CallId) -> bool {
        *self == *other.0
    }
}

impl PartialEq<CallId> for &str {
    fn eq(&self, other: &CallId) -> bool {
        **self == *other.0
    }
}

impl PartialEq<CallId> for String {
    fn eq(&self, other: &CallId) -> bool {
        **self == *other.0
    }
}

impl Serialize for CallId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for CallId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(IdVisitor)
    }
}

/// Reads an id straight into its shared storage: one allocation, none for a `String` first.
struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = CallId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a call id (a string)")
    }

    fn visit_str<E: de::Error>(self, id: &str) -> Result<CallId, E> {
        Ok(CallId::from(id))
    }

    fn visit_string<E: de::Error>(self, id: String) -> Result<CallId, E> {
        Ok(CallId::from(id))
    }
}

#[cfg(test)]
mod tests {
    use super::CallId;

    #[test]
    fn empty_ids_share_one_text() {
        let (a, b) = (CallId::from(""), CallId::from(String::new()));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert!(std::ptr::eq(a.as_str(), CallId::default().as_str()));
    }

    #[test]
    fn a_clone_shares_the_text() {
        let id = CallId::from("call_abc");
        let copy = id.clone();
        assert!(std::ptr::eq(id.as_str(), copy.as_str()));
    }

    #[test]
    fn compares_and_reads_as_text() {
        let id = CallId::from(String::from("toolu_1"));
        assert_eq!(id, "toolu_1");
        assert_eq!("toolu_1", id);
        assert_eq!(id, String::from("toolu_1"));
        assert_eq!(format!("{id} {id:?}"), r#"toolu_1 "toolu_1""#);
        assert_eq!(String::from(id.clone()), "toolu_1");
        assert!(CallId::default().is_empty());
        let read: CallId = serde_json::from_str(r#""call_\u0031""#).unwrap();
        assert_eq!(read, "call_1");
        let error = serde_json::from_str::<CallId>("7").unwrap_err().to_string();
        assert!(error.contains("a call id (a string)"), "{error}");
        assert_eq!(serde_json::to_value(&id).unwrap(), "toolu_1");
    }
}
