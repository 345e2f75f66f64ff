//! A call's id: a short one kept inline, a long one shared rather than copied between a call and
//! its results.

use std::fmt;
use std::num::NonZeroU8;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::text::reads_as_text;

/// The provider's id for a call, as a [`ToolCall`](crate::ToolCall) and its
/// [`ToolResult`](crate::ToolResult) carry it.
///
/// An id of up to [`CallId::INLINE`] bytes (those of the calls an application runs: `OpenAI`'s
/// `call_…` ids are 29 bytes, Anthropic's `toolu_…` 30, MCP's request ids a few digits; the
/// ids of Anthropic's server-run tools, 33, and UUIDs, 36, are longer) is kept inline: making one
/// from the text a reader holds, or from a `String`, allocates nothing, and a result copies its 32
/// bytes. A longer one sits behind an `Arc`, which a result, a progress report or a call's
/// [`CallInfo`] shares instead of copying. Either way it reads like a `&str` (it derefs to one,
/// compares with `str`, `&str` and `String`, and serializes as a JSON string), and is made from
/// any of them. (Measured in BENCHMARKS.md: a copied id was about a tenth of a small call, a
/// shared one's allocation most of what a call from a provider's strings cost beyond them.)
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
#[derive(Clone)]
pub struct CallId(Repr);

#[derive(Clone)]
enum Repr {
    Inline(Inline),
    Shared(Arc<str>),
}

/// Up to [`CallId::INLINE`] bytes of a `str`, and their length plus one. The length comes last
/// (`repr(C)`) and is never zero, so `Repr` keeps its tag in that zero, beside the `Arc`: a
/// `CallId` takes 32 bytes, and a `ToolResult` stays within the 128 bytes that are moved without a
/// call to `memcpy` (measured: at 136 bytes, `add` cost 64 instructions more a call).
#[derive(Clone, Copy)]
#[repr(C)]
struct Inline {
    bytes: [u8; CallId::INLINE],
    len: NonZeroU8,
}

const _: () = assert!(size_of::<CallId>() == 32);

impl Inline {
    /// `id`'s bytes, if they fit.
    #[inline]
    fn new(id: &str) -> Option<Inline> {
        let mut bytes = [0; CallId::INLINE];
        bytes.get_mut(..id.len())?.copy_from_slice(id.as_bytes());
        let len = u8::try_from(id.len()).ok()?;
        Some(Inline {
            bytes,
            len: NonZeroU8::MIN.saturating_add(len),
        })
    }

    #[inline]
    fn as_str(&self) -> &str {
        let text = &self.bytes[..usize::from(self.len.get() - 1)];
        // SAFETY: an `Inline` is made only by `new`, which copied exactly these bytes (`len` of
        // them) from a `str`, and by `CallId::default`, with none; nothing changes them after. (The one `unsafe` of the
        // crate: a checked conversion would cost each reading of the id; Miri runs this
        // module's tests, see `.ci/run`.)
        #[expect(
            unsafe_code,
            reason = "the crate's one unsafe block: a checked conversion would cost each reading of the id"
        )]
        unsafe {
            std::str::from_utf8_unchecked(text)
        }
    }
}

impl CallId {
    /// The longest id, in bytes, kept inline rather than behind an `Arc`.
    pub const INLINE: usize = 31;

    /// The id as text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline(id) => id.as_str(),
            Repr::Shared(id) => id,
        }
    }
}

impl Default for CallId {
    /// The empty id (a call whose id has not arrived yet): inline, so nothing is allocated.
    #[inline]
    fn default() -> Self {
        CallId(Repr::Inline(Inline {
            bytes: [0; CallId::INLINE],
            len: NonZeroU8::MIN,
        }))
    }
}

reads_as_text!(CallId);

impl From<&str> for CallId {
    #[inline]
    fn from(id: &str) -> Self {
        match Inline::new(id) {
            Some(inline) => CallId(Repr::Inline(inline)),
            None => CallId(Repr::Shared(Arc::from(id))),
        }
    }
}

impl From<String> for CallId {
    #[inline]
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
    /// Keeps the `Arc`, shared, however short the id.
    fn from(id: Arc<str>) -> Self {
        CallId(Repr::Shared(id))
    }
}

impl From<&CallId> for CallId {
    fn from(id: &CallId) -> Self {
        id.clone()
    }
}

impl From<CallId> for Arc<str> {
    fn from(id: CallId) -> Self {
        match id.0 {
            Repr::Inline(id) => Arc::from(id.as_str()),
            Repr::Shared(id) => id,
        }
    }
}

impl<'de> Deserialize<'de> for CallId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(IdVisitor)
    }
}

/// Reads an id straight into its storage (inline, or one allocation), none for a `String` first.
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

    use std::collections::HashSet;
    use std::sync::Arc;

    #[test]
    fn short_ids_are_inline_long_ones_shared() {
        for len in 0..=CallId::INLINE + 2 {
            let text = "c".repeat(len);
            let id = CallId::from(text.as_str());
            assert_eq!(id, text.as_str());
            assert_eq!(id.len(), len);
            let shared = std::ptr::eq(id.as_str(), id.clone().as_str());
            assert_eq!(shared, len > CallId::INLINE, "{len} bytes");
        }
        let anthropic = "toolu_01D7FLrfh4GYq7yT1ULFeyMV";
        assert_eq!(CallId::from(String::from(anthropic)), anthropic);
        assert!(!std::ptr::eq(CallId::from(anthropic).as_str(), anthropic));
        assert!(CallId::default().is_empty());
        assert_eq!(CallId::from(""), CallId::default());
    }

    #[test]
    fn multi_byte_text_is_kept_whole_at_the_limit() {
        // 2-, 3- and 4-byte characters ending at, just before and just past the inline limit.
        for ch in ['é', '€', '🦀'] {
            for count in 0..=CallId::INLINE {
                let text: String = std::iter::repeat_n(ch, count).collect();
                for prefix in ["", "a", "ab", "abc"] {
                    let text = format!("{prefix}{text}");
                    let id = CallId::from(text.as_str());
                    assert_eq!(id.as_str(), text);
                    assert_eq!(String::from(id.clone()), text);
                    assert_eq!(Arc::<str>::from(id).as_ref(), text);
                }
            }
        }
    }

    #[test]
    fn equal_ids_are_equal_however_stored() {
        let inline = CallId::from("call_1");
        let shared = CallId::from(Arc::<str>::from("call_1"));
        assert_eq!(inline, shared);
        assert_eq!(inline.cmp(&shared), std::cmp::Ordering::Equal);
        let set: HashSet<CallId> = [inline, shared].into_iter().collect();
        assert_eq!(set.len(), 1);
        assert!(set.contains("call_1"), "hashed as its text (Borrow<str>)");
        let (a, b) = (CallId::from("a"), CallId::from(Arc::<str>::from("b")));
        assert_eq!(a.cmp(&b), std::cmp::Ordering::Less);
        // An `Arc` given is kept, not copied, and given back.
        let arc: Arc<str> = Arc::from("call_2");
        let back = Arc::<str>::from(CallId::from(Arc::clone(&arc)));
        assert!(Arc::ptr_eq(&arc, &back));
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
