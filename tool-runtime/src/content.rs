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
    /// An audio clip, base64-encoded.
    Audio {
        /// Base64 data (a `Box<str>`, so that a part stays as small as an image's).
        data: Box<str>,
        /// `audio/wav`, `audio/mpeg`, ...
        mime_type: Box<str>,
    },
    /// A resource's contents, embedded in the result (MCP's `resource` content).
    Resource {
        /// The resource: its URI, MIME type, and text or base64 data (boxed: a result's one
        /// part is held inline, and most parts are text).
        resource: Box<ResourceContents>,
    },
    /// A link to a resource the client may read or fetch (MCP's `resource_link` content).
    ResourceLink(Box<ResourceLink>),
}

/// A link to a resource: its URI and name, and what else is known of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A resource's contents: its URI, its MIME type, and its text or its bytes (base64).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text or bytes.
    #[serde(flatten)]
    pub body: ResourceBody,
}

/// What a resource holds: text, or bytes as base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Base64 data.
    Blob(String),
}

impl ResourceContents {
    /// A text resource.
    pub fn text(uri: impl Into<String>, mime_type: Option<&str>, text: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Text(text.into()),
        }
    }

    /// A binary resource from base64 data.
    pub fn blob(uri: impl Into<String>, mime_type: Option<&str>, data: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: mime_type.map(str::to_owned),
            body: ResourceBody::Blob(data.into()),
        }
    }
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

    /// An audio part from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentPart::Audio {
            data: data.into().into_boxed_str(),
            mime_type: mime_type.into().into_boxed_str(),
        }
    }

    /// An embedded resource.
    pub fn resource(resource: ResourceContents) -> Self {
        ContentPart::Resource {
            resource: Box::new(resource),
        }
    }

    /// A link to a resource, by URI and name.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentPart::ResourceLink(Box::new(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
        }))
    }

    /// The text a provider that cannot carry this part gets in its place (`None` for text and
    /// images, which every provider but OpenAI Chat carries). An embedded text resource keeps
    /// its text; binary data, which a text channel cannot hold, is named with its MIME type and
    /// said to be left out.
    ///
    /// | part | in its place |
    /// | --- | --- |
    /// | audio | `[an audio clip (audio/wav) was left out: this provider's tool results carry no audio]` |
    /// | text resource | `[resource test://a (text/plain)]` and the text on the next line |
    /// | binary resource | `[a resource test://b (image/png, binary) was left out: ...]` |
    /// | resource link | `[resource link: name <test://c>]` and the description, when there is one |
    pub fn fallback_text(&self) -> Option<String> {
        match self {
            ContentPart::Text { .. } | ContentPart::Image { .. } => None,
            ContentPart::Audio { mime_type, .. } => Some(format!(
                "[an audio clip ({mime_type}) was left out: this provider's tool results carry no audio]"
            )),
            ContentPart::Resource { resource } => {
                let mime = resource.mime_type.as_deref().unwrap_or("no MIME type");
                Some(match &resource.body {
                    ResourceBody::Text(text) => {
                        format!("[resource {} ({mime})]\n{text}", resource.uri)
                    }
                    ResourceBody::Blob(_) => format!(
                        "[a resource {} ({mime}, binary) was left out: this provider's tool results carry no such data]",
                        resource.uri
                    ),
                })
            }
            ContentPart::ResourceLink(link) => {
                let ResourceLink {
                    uri,
                    name,
                    description,
                    ..
                } = &**link;
                Some(match description {
                    Some(description) => format!("[resource link: {name} <{uri}>] {description}"),
                    None => format!("[resource link: {name} <{uri}>]"),
                })
            }
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

    /// The text parts, joined by newlines: what a text-only model sees. Audio, resources and
    /// resource links are there as their [`fallback_text`](ContentPart::fallback_text); images
    /// are not.
    pub fn text(&self) -> String {
        let mut texts = self.iter().filter_map(|part| match part {
            ContentPart::Text { text } => Some(std::borrow::Cow::Borrowed(text.as_str())),
            ContentPart::Image { .. } => None,
            other => other.fallback_text().map(std::borrow::Cow::Owned),
        });
        let first = texts.next().unwrap_or_default().into_owned();
        texts.fold(first, |mut all, text| {
            all.push('\n');
            all.push_str(&text);
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

    /// The parts, moved out in order: one part is not put in a vector first, as
    /// [`into_vec`](Self::into_vec) puts it.
    ///
    /// ```
    /// use toolwright::{Content, ContentPart};
    ///
    /// let parts: Vec<ContentPart> = Content::text_part("5").into_parts().collect();
    /// assert_eq!(parts, [ContentPart::text("5")]);
    /// assert_eq!(Content::default().into_parts().count(), 0);
    /// ```
    pub fn into_parts(self) -> impl Iterator<Item = ContentPart> {
        let (one, many) = match self.0 {
            Repr::Empty => (None, Vec::new()),
            Repr::One(part) => (Some(part), Vec::new()),
            Repr::Many(parts) => (None, parts),
        };
        one.into_iter().chain(many)
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
