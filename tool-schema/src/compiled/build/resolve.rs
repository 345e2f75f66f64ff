//! Where a schema's references lead: its documents and resources indexed by `$id`, `$anchor` and
//! `$dynamicAnchor`, and `$ref`/`$dynamicRef` resolved to nodes.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use super::{Compiler, Doc, Location, MAX_DOCUMENTS, MAX_SCHEMA_DEPTH, VALIDATION_VOCABULARY};
use crate::compiled::{Dynamic, Node, NodeId};
use crate::subschemas::{Holds, holds};
use crate::uri;

fn escape(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    escape_into(segment, &mut out);
    out
}

/// A JSON pointer's reference token (`~` as `~0`, `/` as `~1`), appended.
pub(super) fn escape_into(segment: &str, out: &mut String) {
    if !segment.contains(['~', '/']) {
        out.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Whether a document names any subschema (`$id`, `$anchor`, `$dynamicAnchor`), anywhere.
fn names_anything(document: &Value) -> bool {
    let mut stack = vec![document];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.contains_key("$id")
                    || map.contains_key("$anchor")
                    || map.contains_key("$dynamicAnchor")
                {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

fn percent_decode(pointer: &str) -> String {
    if !pointer.contains('%') {
        return pointer.to_owned();
    }
    let bytes = pointer.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = pointer
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Compiler<'_, '_> {
    /// Finds the resources, anchors and base URIs of a document's subschemas.
    pub(super) fn index(&mut self, doc: usize, base: &str) {
        let document = self.docs[doc].clone();
        self.resources
            .entry(base.to_owned())
            .or_insert((doc, String::new()));
        self.doc_bases.push(base.to_owned());
        let resource = self.resource_id(base);
        self.doc_resources.push(resource);
        self.bases.push(HashMap::new());
        self.cache.push(HashMap::new());
        // A document that names nothing has one base everywhere: nothing to find.
        if !names_anything(&document) {
            return;
        }
        // Iteratively: a document may nest deeply.
        let mut stack: Vec<(&Value, String, String, usize)> =
            vec![(&*document, String::new(), base.to_owned(), 0)];
        while let Some((schema, pointer, base, depth)) = stack.pop() {
            let Value::Object(map) = schema else {
                continue;
            };
            let mut base = base;
            if let Some(id) = map.get("$id").and_then(Value::as_str) {
                let (absolute, _) = uri::split_fragment(id);
                base = uri::resolve(&base, absolute);
                self.resources
                    .entry(base.clone())
                    .or_insert((doc, pointer.clone()));
            }
            for keyword in ["$anchor", "$dynamicAnchor"] {
                if let Some(name) = map.get(keyword).and_then(Value::as_str) {
                    self.anchors
                        .entry(format!("{base}#{name}"))
                        .or_insert((doc, pointer.clone()));
                    if keyword == "$dynamicAnchor" {
                        let resource = self.resource_id(&base) as usize;
                        self.dynamic_anchors[resource].push((
                            name.to_owned(),
                            (doc, pointer.clone()),
                            None,
                        ));
                    }
                }
            }
            self.bases[doc].insert(pointer.clone(), base.clone());
            if depth >= MAX_SCHEMA_DEPTH {
                continue;
            }
            for (key, value) in map {
                let at = format!("{pointer}/{}", escape(key));
                match holds(key, value) {
                    Some(Holds::One) => stack.push((value, at, base.clone(), depth + 1)),
                    Some(Holds::List) => {
                        for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                            stack.push((item, format!("{at}/{i}"), base.clone(), depth + 1));
                        }
                    }
                    Some(Holds::Map) => {
                        for (name, member) in value.as_object().into_iter().flatten() {
                            let at = format!("{at}/{}", escape(name));
                            stack.push((member, at, base.clone(), depth + 1));
                        }
                    }
                    None => {}
                }
            }
        }
    }

    pub(super) fn resource_id(&mut self, base: &str) -> u32 {
        if let Some(id) = self.resource_ids.get(base) {
            return *id;
        }
        let id = u32::try_from(self.dynamic_anchors.len()).unwrap_or(u32::MAX);
        self.dynamic_anchors.push(Vec::new());
        self.resource_ids.insert(base.to_owned(), id);
        id
    }

    /// A custom meta-schema without the validation vocabulary turns its keywords off.
    pub(super) fn vocabularies(&mut self, schema: &Value) {
        let Some(meta) = schema.get("$schema").and_then(Value::as_str) else {
            return;
        };
        if meta.starts_with("https://json-schema.org/")
            || meta.starts_with("http://json-schema.org/")
        {
            return;
        }
        if let Some(document) = (self.retrieve)(meta)
            && let Some(Value::Object(vocabularies)) = document.get("$vocabulary")
        {
            self.validation = vocabularies.contains_key(VALIDATION_VOCABULARY);
        }
    }

    /// The base URI in effect at a place: that of the nearest subschema found around it.
    pub(super) fn base_of(&self, doc: usize, pointer: &str) -> &str {
        let bases = &self.bases[doc];
        let mut pointer = pointer;
        loop {
            if let Some(base) = bases.get(pointer) {
                return base;
            }
            match pointer.rfind('/') {
                Some(at) if !bases.is_empty() => pointer = &pointer[..at],
                _ => return &self.doc_bases[doc],
            }
        }
    }

    /// The place a reference points to, loading its document when it is another one.
    fn locate(&mut self, reference: &str, doc: usize, pointer: &str) -> Option<Location> {
        let target = uri::resolve(self.base_of(doc, pointer), reference);
        let (absolute, fragment) = uri::split_fragment(&target);
        let resource = if let Some(place) = self.resources.get(absolute) {
            place.clone()
        } else {
            // A retriever that answers every address (documents referring to ever new ones)
            // would never end: a bound on documents per schema.
            if self.docs.len() > MAX_DOCUMENTS {
                return None;
            }
            let document = (self.retrieve)(absolute)?;
            let doc = self.docs.len();
            self.docs.push(Doc::Retrieved(Rc::new(document)));
            self.index(doc, absolute);
            self.resources.get(absolute)?.clone()
        };
        let fragment = percent_decode(fragment);
        if fragment.is_empty() {
            return Some(resource);
        }
        if fragment.starts_with('/') {
            let (doc, root) = resource;
            let pointer = format!("{root}{fragment}");
            self.docs[doc].pointer(&pointer)?;
            return Some((doc, pointer));
        }
        self.anchors.get(&format!("{absolute}#{fragment}")).cloned()
    }

    pub(super) fn reference(&mut self, reference: &str, doc: usize, pointer: &str) -> NodeId {
        if let Some((doc, pointer)) = self.locate(reference, doc, pointer) {
            return self.node_at(doc, &pointer);
        }
        self.unsupported(
            pointer,
            format_args!("the reference {reference:?}, which points nowhere"),
        );
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        id
    }

    /// A `$dynamicRef`: where it points statically, and the anchor name it resolves by scope
    /// when that target is itself a `$dynamicAnchor` of the name.
    pub(super) fn dynamic_reference(
        &mut self,
        reference: &str,
        doc: usize,
        pointer: &str,
    ) -> Dynamic {
        let (_, fragment) = uri::split_fragment(reference);
        let target = self.locate(reference, doc, pointer);
        let anchor = target.as_ref().and_then(|(doc, pointer)| {
            let schema = self.docs[*doc].pointer(pointer)?;
            let name = schema.get("$dynamicAnchor")?.as_str()?;
            (name == fragment && !fragment.starts_with('/')).then(|| name.to_owned())
        });
        if anchor.is_some() {
            self.dynamic = true;
        }
        let fallback = match target {
            Some((doc, pointer)) => self.node_at(doc, &pointer),
            None => self.reference(reference, doc, pointer),
        };
        Dynamic { fallback, anchor }
    }

    /// Compiles every resource's dynamic anchors, for `$dynamicRef`s that resolve by scope.
    pub(super) fn finish_dynamic(&mut self) {
        if !self.dynamic {
            return;
        }
        // Compiling an anchor may load documents with anchors of their own: until none is left.
        loop {
            let pending: Vec<(usize, usize, Location)> = self
                .dynamic_anchors
                .iter()
                .enumerate()
                .flat_map(|(r, anchors)| {
                    anchors
                        .iter()
                        .enumerate()
                        .filter(|(_, (_, _, id))| id.is_none())
                        .map(move |(a, (_, place, _))| (r, a, place.clone()))
                })
                .collect();
            if pending.is_empty() {
                break;
            }
            for (resource, anchor, (doc, pointer)) in pending {
                let id = self.node_at(doc, &pointer);
                self.dynamic_anchors[resource][anchor].2 = Some(id);
            }
            self.drain();
        }
    }
}
