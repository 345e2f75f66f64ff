//! What [`CallId`](super::CallId) and [`ToolName`](super::ToolName) share: each is a text kept
//! cheaply to copy, and reads, compares, hashes and serializes as its `str` (`as_str`).

/// Implements, for a type with an `as_str(&self) -> &str`, what makes it read like a `&str`:
/// `Deref<Target = str>`, `AsRef<str>`, `Borrow<str>`, `Debug` and `Display` as the text,
/// equality, order and hash by the text (however it is stored, and as `Borrow<str>` requires),
/// comparison with `str`, `&str` and `String` both ways, `Serialize` as a string, and `String`
/// from it.
macro_rules! reads_as_text {
    ($text:ty) => {
        impl ::std::ops::Deref for $text {
            type Target = str;

            #[inline]
            fn deref(&self) -> &str {
                self.as_str()
            }
        }

        impl AsRef<str> for $text {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl ::std::borrow::Borrow<str> for $text {
            fn borrow(&self) -> &str {
                self.as_str()
            }
        }

        impl ::std::fmt::Debug for $text {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(self.as_str(), f)
            }
        }

        impl ::std::fmt::Display for $text {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq for $text {
            #[inline]
            fn eq(&self, other: &$text) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl Eq for $text {}

        impl PartialOrd for $text {
            fn partial_cmp(&self, other: &$text) -> Option<::std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $text {
            fn cmp(&self, other: &$text) -> ::std::cmp::Ordering {
                self.as_str().cmp(other.as_str())
            }
        }

        impl ::std::hash::Hash for $text {
            fn hash<H: ::std::hash::Hasher>(&self, state: &mut H) {
                self.as_str().hash(state);
            }
        }

        impl PartialEq<str> for $text {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $text {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<String> for $text {
            fn eq(&self, other: &String) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl PartialEq<$text> for str {
            fn eq(&self, other: &$text) -> bool {
                self == other.as_str()
            }
        }

        impl PartialEq<$text> for &str {
            fn eq(&self, other: &$text) -> bool {
                *self == other.as_str()
            }
        }

        impl PartialEq<$text> for String {
            fn eq(&self, other: &$text) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl ::serde::Serialize for $text {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl From<$text> for String {
            fn from(text: $text) -> Self {
                text.as_str().to_owned()
            }
        }
    };
}

pub(crate) use reads_as_text;
