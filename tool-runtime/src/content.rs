//! The content a model is shown for a tool call.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// A piece of content for the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// `image/png`, `image/jpeg`, ... (a `Box<str>`: content is moved often, and smaller for it)
        mime_type: Box<str>,
    },
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart::Text { text: text.into() }
    }

    /// An image part from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentPart::Image {
            data: data.into(),
            mime_type: mime_type.into().into_boxed_str(),
        }
    }
}

/// The content parts of a result, in order: a slice of [`ContentPart`]s.
///
/// One part, by far the most common case, is held without a separate allocation.
///
/// ```
/// use toolwright::{Content, ContentPart};
///
/// let mut content = Content::from(ContentPart::text("a chart:"));
/// content.push(ContentPart::image("iVBORw0KGgo=", "image/png"));
/// assert_eq!(content.len(), 2);
/// assert_eq!(content.text(), "a chart:");
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Content(Repr);

#[derive(Clone, PartialEq, Eq, Default)]
enum Repr {
    #[default]
    Empty,
    One(ContentPart),
    Many(Vec<ContentPart>),
}

impl Content {
    /// Content of one text part.
    #[inline]
    pub fn text_part(text: impl Into<String>) -> Self {
        Content(Repr::One(ContentPart::text(text)))
    }

    /// Appends a part.
    pub fn push(&mut self, part: ContentPart) {
        self.0 = match std::mem::take(&mut self.0) {
            Repr::Empty => Repr::One(part),
            Repr::One(first) => Repr::Many(vec![first, part]),
            Repr::Many(mut parts) => {
                parts.push(part);
                Repr::Many(parts)
            }
        };
    }

    /// The text parts, joined by newlines: what a text-only model sees.
    pub fn text(&self) -> String {
        let mut texts = self.iter().filter_map(|part| match part {
            ContentPart::Text { text } => Some(text.as_str()),
            ContentPart::Image { .. } => None,
        });
        let first = texts.next().unwrap_or_default().to_owned();
        texts.fold(first, |mut all, text| {
            all.push('\n');
            all.push_str(text);
            all
        })
    }

    /// The parts, as a vector.
    pub fn into_vec(self) -> Vec<ContentPart> {
        match self.0 {
            Repr::Empty => Vec::new(),
            Repr::One(part) => vec![part],
            Repr::Many(parts) => parts,
        }
    }
}

impl Deref for Content {
    type Target = [ContentPart];

    fn deref(&self) -> &[ContentPart] {
        match &self.0 {
            Repr::Empty => &[],
            Repr::One(part) => std::slice::from_ref(part),
            Repr::Many(parts) => parts,
        }
    }
}

impl From<ContentPart> for Content {
    fn from(part: ContentPart) -> Self {
        Content(Repr::One(part))
    }
}

impl From<Vec<ContentPart>> for Content {
    fn from(mut parts: Vec<ContentPart>) -> Self {
        match parts.len() {
            0 => Content(Repr::Empty),
            1 => Content(Repr::One(parts.remove(0))),
            _ => Content(Repr::Many(parts)),
        }
    }
}

impl FromIterator<ContentPart> for Content {
    fn from_iter<I: IntoIterator<Item = ContentPart>>(iter: I) -> Self {
        let mut content = Content::default();
        for part in iter {
            content.push(part);
        }
        content
    }
}

impl<'a> IntoIterator for &'a Content {
    type Item = &'a ContentPart;
    type IntoIter = std::slice::Iter<'a, ContentPart>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_keep_their_order_however_many() {
        let parts = vec![
            ContentPart::text("a"),
            ContentPart::image("AA==", "image/png"),
            ContentPart::text("b"),
        ];
        let content: Content = parts.clone().into_iter().collect();
        assert_eq!(&*content, parts.as_slice());
        assert_eq!(Content::from(parts.clone()), content);
        assert_eq!(content.text(), "a\nb");
        assert_eq!(content.clone().into_vec(), parts);
        assert!(Content::default().is_empty());
        assert_eq!(Content::default().text(), "");
        assert_eq!(
            serde_json::to_value(Content::text_part("x")).unwrap(),
            serde_json::json!([{"type": "text", "text": "x"}])
        );
    }
}
