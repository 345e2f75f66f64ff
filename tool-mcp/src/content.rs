//! toolwright's content parts and rmcp's content blocks, both ways: every kind MCP has (text,
//! image, audio, embedded resource, resource link) kept, none turned into text.

use rmcp::model::{
    AudioContent, ContentBlock, EmbeddedResource, ImageContent, Resource,
    ResourceContents as McpResourceContents, TextContent,
};
use toolwright_runtime::ContentPart;
use toolwright_runtime::exec::{ResourceBody, ResourceContents, ResourceLink};

/// A part as an MCP content block.
/// [`to_block`] of a part the caller gives up: its text moved, not copied.
pub(crate) fn into_block(part: ContentPart) -> ContentBlock {
    match part {
        ContentPart::Text { text } => ContentBlock::Text(TextContent::new(text)),
        other => to_block(&other),
    }
}

pub(crate) fn to_block(part: &ContentPart) -> ContentBlock {
    match part {
        ContentPart::Text { text } => ContentBlock::Text(TextContent::new(text.clone())),
        ContentPart::Image { data, mime_type } => {
            ContentBlock::Image(ImageContent::new(data.clone(), &**mime_type))
        }
        ContentPart::Audio { data, mime_type } => {
            ContentBlock::Audio(AudioContent::new(&**data, &**mime_type))
        }
        ContentPart::Resource { resource } => {
            ContentBlock::Resource(EmbeddedResource::new(to_contents(resource)))
        }
        ContentPart::ResourceLink(link) => {
            let mut resource = Resource::new(link.uri.clone(), link.name.clone());
            resource.title.clone_from(&link.title);
            resource.description.clone_from(&link.description);
            resource.mime_type.clone_from(&link.mime_type);
            ContentBlock::ResourceLink(resource)
        }
        // A kind of part added to toolwright later: its JSON, as text, rather than nothing.
        other => ContentBlock::text(serde_json::to_string(other).unwrap_or_default()),
    }
}

/// A resource's contents as MCP's.
pub(crate) fn to_contents(resource: &ResourceContents) -> McpResourceContents {
    match &resource.body {
        ResourceBody::Text(text) => McpResourceContents::TextResourceContents {
            uri: resource.uri.clone(),
            mime_type: resource.mime_type.clone(),
            text: text.clone(),
            meta: None,
        },
        ResourceBody::Blob(blob) => McpResourceContents::BlobResourceContents {
            uri: resource.uri.clone(),
            mime_type: resource.mime_type.clone(),
            blob: blob.clone(),
            meta: None,
        },
    }
}

/// MCP's resource contents as toolwright's.
pub(crate) fn from_contents(resource: McpResourceContents) -> ResourceContents {
    match resource {
        McpResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => ResourceContents {
            uri,
            mime_type,
            body: ResourceBody::Text(text),
        },
        McpResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => ResourceContents {
            uri,
            mime_type,
            body: ResourceBody::Blob(blob),
        },
        // A kind of contents added to MCP later: its JSON, as text, rather than nothing.
        other => ResourceContents::text(
            String::new(),
            Some("application/json"),
            serde_json::to_string(&other).unwrap_or_default(),
        ),
    }
}

/// An MCP content block as a part.
pub(crate) fn from_block(block: ContentBlock) -> ContentPart {
    match block {
        ContentBlock::Text(text) => ContentPart::text(text.text),
        ContentBlock::Image(image) => ContentPart::image(image.data, image.mime_type),
        ContentBlock::Audio(audio) => ContentPart::audio(audio.data, audio.mime_type),
        ContentBlock::Resource(embedded) => ContentPart::resource(from_contents(embedded.resource)),
        ContentBlock::ResourceLink(resource) => ContentPart::ResourceLink(Box::new(ResourceLink {
            uri: resource.uri,
            name: resource.name,
            title: resource.title,
            description: resource.description,
            mime_type: resource.mime_type,
        })),
        // A kind of block added to MCP later: its JSON, as text, rather than nothing.
        other => ContentPart::text(serde_json::to_string(&other).unwrap_or_default()),
    }
}
