//! Compiling a schema: one node per subschema, references resolved to node indices (recursion
//! included), patterns compiled, and a note of whether anything goes beyond what serde enforces.
//!
//! References follow JSON Schema draft 2020-12: every subschema's base URI comes from the
//! `$id`s around it, `$anchor` and `$dynamicAnchor` name subschemas, and a reference into
//! another document asks the caller's `retrieve` for it. Subschemas are found only under
//! keywords that hold schemas, so an `$id` inside a `const` or an unknown keyword names
//! nothing.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{Number, Value};

use super::uri::{self, DEFAULT_BASE};
use super::{Additional, Dynamic, Node, NodeId, Types};
use crate::schema::format::Format;
use crate::schema::pattern;

/// What compiling a schema gives.
pub(super) struct Compiled {
    pub(super) nodes: Vec<Node>,
    pub(super) unsupported: Vec<String>,
    pub(super) beyond_serde: bool,
    /// Per schema resource: its `$dynamicAnchor`s, for `$dynamicRef`s that resolve by scope.
    pub(super) dynamic_anchors: Vec<Vec<(String, NodeId)>>,
    /// Whether some `$dynamicRef` resolves by dynamic scope.
    pub(super) dynamic: bool,
}

/// Compiles a schema: its nodes (the root first), what is not enforced, and whether anything
/// goes beyond what serde enforces.
pub(super) fn compile<'a>(schema: &'a Value, retrieve: &dyn Fn(&str) -> Option<Value>) -> Compiled {
    let mut compiler = Compiler {
        docs: Vec::new(),
        retrieve,
        resources: HashMap::new(),
        anchors: HashMap::new(),
        doc_bases: Vec::new(),
        doc_resources: Vec::new(),
        bases: Vec::new(),
        resource_ids: HashMap::new(),
        dynamic_anchors: Vec::new(),
        cache: Vec::new(),
        queue: Vec::new(),
        nodes: Vec::new(),
        unsupported: Vec::new(),
        beyond_serde: false,
        own: false,
        validation: true,
        depth: 0,
        dynamic: false,
    };
    // Retrieved documents sit beside the root; nodes are addressed by (document, pointer).
    compiler.docs.push(Doc::Root(schema));
    compiler.index(0, DEFAULT_BASE);
    compiler.vocabularies(schema);
    let (root, _) = compiler.reserve(0, "");
    compiler.compile_node(root, 0, "", schema);
    compiler.drain();
    compiler.finish_dynamic();
    let Compiler {
        nodes,
        unsupported,
        beyond_serde,
        dynamic_anchors,
        dynamic,
        ..
    } = compiler;
    let dynamic_anchors = dynamic_anchors
        .into_iter()
        .map(|anchors| {
            anchors
                .into_iter()
                .filter_map(|(name, _, id)| id.map(|id| (name, id)))
                .collect()
        })
        .collect();
    Compiled {
        nodes,
        unsupported,
        beyond_serde,
        dynamic_anchors,
        dynamic,
    }
}

/// A document: the schema compiled, or one retrieved for a reference.
#[derive(Clone)]
enum Doc<'a> {
    Root(&'a Value),
    Retrieved(Rc<Value>),
}

impl std::ops::Deref for Doc<'_> {
    type Target = Value;

    fn deref(&self) -> &Value {
        match self {
            Doc::Root(value) => value,
            Doc::Retrieved(value) => value,
        }
    }
}

/// Subschemas reserved while their parent is built, compiled after it: node, place, schema.
type Children<'v> = Vec<(NodeId, String, &'v Value)>;

/// A subschema's place: its document and the JSON pointer to it there.
type Location = (usize, String);

/// Deepest nesting of subschemas (and references followed while compiling): a schema beyond
/// it is reported, not compiled, rather than overflowing the stack.
const MAX_SCHEMA_DEPTH: usize = 192;

/// Documents retrieved for one schema at most.
const MAX_DOCUMENTS: usize = 64;

const VALIDATION_VOCABULARY: &str = "https://json-schema.org/draft/2020-12/vocab/validation";

/// Keywords of the validation vocabulary, which a meta-schema may leave out.
const VALIDATION_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
];

#[allow(clippy::struct_excessive_bools)] // Flags of the compilation, each read in one place.
struct Compiler<'a, 'r> {
    docs: Vec<Doc<'a>>,
    retrieve: &'r dyn Fn(&str) -> Option<Value>,
    /// Absolute URI (no fragment) of each schema resource -> where it is.
    resources: HashMap<String, Location>,
    /// `uri#name` of each `$anchor` and `$dynamicAnchor` -> where it is.
    anchors: HashMap<String, Location>,
    /// Per document: its own base URI, and (when it names any: `$id`, `$anchor`) the base URI
    /// in effect at each subschema found.
    doc_bases: Vec<String>,
    doc_resources: Vec<u32>,
    bases: Vec<HashMap<String, String>>,
    /// Each resource's index, by its base URI.
    resource_ids: HashMap<String, u32>,
    /// Per resource: its dynamic anchors, their places and (once compiled) nodes.
    dynamic_anchors: Vec<Vec<(String, Location, Option<NodeId>)>>,
    /// Per document: the node of each place compiled.
    cache: Vec<HashMap<String, NodeId>>,
    /// Places reserved by a reference or an anchor, still to compile.
    queue: Vec<(NodeId, usize, String)>,
    nodes: Vec<Node>,
    unsupported: Vec<String>,
    beyond_serde: bool,
    /// Whether the node being built has a keyword of its own beyond serde.
    own: bool,
    /// Whether the root's meta-schema has the validation vocabulary (almost always).
    validation: bool,
    depth: usize,
    dynamic: bool,
}

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "nullable",
    "discriminator",
];

/// Keywords whose value is one subschema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];

/// Keywords whose value is an object of subschemas.
const SCHEMA_MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Keywords whose value is an array of subschemas.
const SCHEMA_LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

fn escape(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    escape_into(segment, &mut out);
    out
}

/// A JSON pointer's reference token (`~` as `~0`, `/` as `~1`), appended.
fn escape_into(segment: &str, out: &mut String) {
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

impl Compiler<'_, '_> {
    /// Finds the resources, anchors and base URIs of a document's subschemas.
    fn index(&mut self, doc: usize, base: &str) {
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
                if ONE_SCHEMA.contains(&key.as_str()) && !value.is_array() {
                    stack.push((value, at.clone(), base.clone(), depth + 1));
                }
                if SCHEMA_MAP.contains(&key.as_str())
                    && let Value::Object(members) = value
                {
                    for (name, member) in members {
                        let at = format!("{at}/{}", escape(name));
                        stack.push((member, at, base.clone(), depth + 1));
                    }
                }
                if SCHEMA_LIST.contains(&key.as_str())
                    && let Value::Array(items) = value
                {
                    for (i, item) in items.iter().enumerate() {
                        stack.push((item, format!("{at}/{i}"), base.clone(), depth + 1));
                    }
                }
            }
        }
    }

    fn resource_id(&mut self, base: &str) -> u32 {
        if let Some(id) = self.resource_ids.get(base) {
            return *id;
        }
        let id = u32::try_from(self.dynamic_anchors.len()).unwrap_or(u32::MAX);
        self.dynamic_anchors.push(Vec::new());
        self.resource_ids.insert(base.to_owned(), id);
        id
    }

    /// A custom meta-schema without the validation vocabulary turns its keywords off.
    fn vocabularies(&mut self, schema: &Value) {
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
    fn base_of(&self, doc: usize, pointer: &str) -> &str {
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

    /// The node of the subschema at a place, reserved once; its keywords are compiled from the
    /// queue (`drain`), not here: compiling never recurses through references.
    fn node_at(&mut self, doc: usize, pointer: &str) -> NodeId {
        let (id, new) = self.reserve(doc, pointer);
        if new {
            self.queue.push((id, doc, pointer.to_owned()));
        }
        id
    }

    /// The node id of a place, and whether it is new (its keywords still to compile).
    fn reserve(&mut self, doc: usize, pointer: &str) -> (NodeId, bool) {
        if let Some(id) = self.cache[doc].get(pointer) {
            return (*id, false);
        }
        // Reserved first: recursive schemas refer back to it.
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.cache[doc].insert(pointer.to_owned(), id);
        (id, true)
    }

    /// Compiles the places queued (references, anchors), until none is left.
    fn drain(&mut self) {
        while let Some((id, doc, pointer)) = self.queue.pop() {
            let document = self.docs[doc].clone();
            if let Some(schema) = document.pointer(&pointer) {
                self.compile_node(id, doc, &pointer, schema);
            }
        }
    }

    /// Compiles a reserved node from its subschema, then its children. The node's keywords are
    /// read in one call (`build`), which only reserves its children: the recursion into them
    /// happens here, in a small frame, nested at most [`MAX_SCHEMA_DEPTH`] deep.
    fn compile_node(&mut self, id: NodeId, doc: usize, pointer: &str, schema: &Value) {
        if self.depth >= MAX_SCHEMA_DEPTH {
            self.unsupported(pointer, "a schema nested too deeply");
            return;
        }
        let children = self.build_node(id, doc, pointer, schema);
        self.depth += 1;
        for (child, at, value) in children {
            self.compile_node(child, doc, &at, value);
        }
        self.depth -= 1;
    }

    /// Builds and keeps one node (out of [`compile_node`](Self::compile_node)'s frame, which
    /// recurses): the children it reserved are returned.
    #[inline(never)]
    fn build_node<'v>(
        &mut self,
        id: NodeId,
        doc: usize,
        pointer: &str,
        schema: &'v Value,
    ) -> Children<'v> {
        let mut children = Vec::new();
        let mut node = self.build_own(schema, doc, pointer, &mut children);
        node.resource = if self.bases[doc].is_empty() {
            // One base in the whole document.
            self.doc_resources[doc]
        } else {
            let base = self.base_of(doc, pointer).to_owned();
            self.resource_id(&base)
        };
        self.nodes[id] = node;
        children
    }

    /// The node of a subschema below the one at `pointer` (`path` from it, `schema` itself),
    /// reserved, and noted in `children` to compile once its parent is.
    fn child<'v>(
        &mut self,
        children: &mut Children<'v>,
        doc: usize,
        pointer: &str,
        path: &[&str],
        schema: &'v Value,
    ) -> NodeId {
        let mut at = String::with_capacity(pointer.len() + 16);
        at.push_str(pointer);
        for segment in path {
            at.push('/');
            escape_into(segment, &mut at);
        }
        let (id, new) = self.reserve(doc, &at);
        if new {
            children.push((id, at, schema));
        }
        id
    }

    /// Builds a node, noting whether its own keywords (not its children's) go beyond serde.
    fn build_own<'v>(
        &mut self,
        schema: &'v Value,
        doc: usize,
        pointer: &str,
        children: &mut Children<'v>,
    ) -> Node {
        let outer = std::mem::replace(&mut self.own, false);
        let mut node = self.build(schema, doc, pointer, children);
        node.beyond_serde = self.own;
        self.own = outer;
        node
    }

    /// Notes what is not enforced, at the place `pointer` (within its document).
    fn unsupported(&mut self, pointer: &str, what: impl std::fmt::Display) {
        self.own = true;
        self.unsupported.push(format!("{what} at #{pointer}"));
        self.beyond_serde = true;
    }

    fn constrains(&mut self) {
        self.own = true;
        self.beyond_serde = true;
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

    fn reference(&mut self, reference: &str, doc: usize, pointer: &str) -> NodeId {
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
    fn dynamic_reference(&mut self, reference: &str, doc: usize, pointer: &str) -> Dynamic {
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
    fn finish_dynamic(&mut self) {
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

    #[allow(clippy::too_many_lines)]
    fn build<'v>(
        &mut self,
        schema: &'v Value,
        doc: usize,
        pointer: &str,
        children: &mut Children<'v>,
    ) -> Node {
        let is_root = doc == 0 && pointer.is_empty();
        let at = pointer;
        let mut node = Node::default();
        let map = match schema {
            Value::Bool(true) => return node,
            Value::Bool(false) => {
                node.never = true;
                return node;
            }
            Value::Object(map) => map,
            other => {
                self.unsupported(at, format_args!("a schema that is {other}"));
                return node;
            }
        };
        // Keywords besides `$ref` and annotations: none makes the node a `$ref` and nothing else.
        let mut own_keywords = false;
        for (key, value) in map {
            if key != "$ref" && !ANNOTATIONS.contains(&key.as_str()) {
                own_keywords = true;
            }
            if !self.validation && VALIDATION_KEYWORDS.contains(&key.as_str()) {
                continue;
            }
            match key.as_str() {
                "type" => {
                    let names: Vec<&str> = match value {
                        Value::String(name) => vec![name.as_str()],
                        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                        _ => Vec::new(),
                    };
                    let mut types = Types::default();
                    for name in names {
                        match Types::named(name) {
                            Some(t) => types = types.union(t),
                            None => self.unsupported(at, format_args!("the type {name:?}")),
                        }
                    }
                    node.types = Some(types);
                }
                "enum" => {
                    node.enumeration = value.as_array().cloned();
                    self.constrains();
                }
                "const" => {
                    node.constant = Some(value.clone());
                    self.constrains();
                }
                "exclusiveMinimum" => {
                    node.exclusive_minimum = number(value);
                    self.constrains();
                }
                "exclusiveMaximum" => {
                    node.exclusive_maximum = number(value);
                    self.constrains();
                }
                "multipleOf" => {
                    node.multiple_of =
                        number(value).filter(|m| m.as_f64().is_some_and(|m| m > 0.0));
                    self.constrains();
                }
                // Weighed after the loop, together: `minimum`/`maximum` with the format, both
                // lengths (a `char` has both at 1), the item counts with the tuple.
                "minimum" => node.minimum = number(value),
                "maximum" => node.maximum = number(value),
                "format" => node.format = value.as_str().map(Format::named),
                "minLength" => node.min_length = count(value),
                "maxLength" => node.max_length = count(value),
                "minItems" => node.min_items = count(value),
                "maxItems" => node.max_items = count(value),
                "minContains" => node.min_contains = count(value),
                "maxContains" => node.max_contains = count(value),
                // Read with `if`.
                "then" | "else" => {}
                "default" => node.has_default = !value.is_null(),
                "pattern" => {
                    let Some(source) = value.as_str() else {
                        continue;
                    };
                    match pattern::compile(source) {
                        Some(regex) => node.pattern = Some((source.to_owned(), regex)),
                        None => self.unsupported(at, format_args!("the pattern /{source}/")),
                    }
                    self.constrains();
                }
                "items" => {
                    if let Value::Array(tuple) = value {
                        // Draft 2019-09 tuples.
                        node.prefix_items = tuple
                            .iter()
                            .enumerate()
                            .map(|(i, s)| {
                                self.child(children, doc, pointer, &["items", &i.to_string()], s)
                            })
                            .collect();
                    } else {
                        node.items = Some(self.child(children, doc, pointer, &["items"], value));
                    }
                }
                "prefixItems" => {
                    node.prefix_items = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, s)| self.child(children, doc, pointer, &[key, &i.to_string()], s))
                        .collect();
                }
                // Draft 2019-09's, beside a tuple `items` only.
                "additionalItems" => {
                    if map.get("items").is_some_and(Value::is_array) {
                        node.items = Some(self.child(children, doc, pointer, &[key], value));
                    }
                }
                "uniqueItems" => {
                    node.unique_items = value.as_bool() == Some(true);
                    if node.unique_items {
                        self.constrains();
                    }
                }
                "contains" => {
                    node.contains = Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "properties" => {
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        let id = self.child(children, doc, pointer, &[key, name], schema);
                        node.properties.push((name.clone(), id));
                    }
                    // A derived struct below the root also deserializes from an array of its
                    // fields, which the schema refuses: serde alone is not enough there.
                    if !is_root {
                        self.constrains();
                    }
                }
                "patternProperties" => {
                    for (source, schema) in value.as_object().into_iter().flatten() {
                        let id = self.child(children, doc, pointer, &[key, source], schema);
                        match pattern::compile(source) {
                            Some(regex) => node.pattern_properties.push((regex, id)),
                            None => self.unsupported(at, format_args!("the pattern /{source}/")),
                        }
                    }
                    self.constrains();
                }
                "required" => node.required = strings(value),
                "additionalProperties" => {
                    node.additional = match value {
                        Value::Bool(false) => Additional::Deny,
                        // `true` too is a schema: it marks the members it takes as evaluated.
                        _ => Additional::Schema(self.child(children, doc, pointer, &[key], value)),
                    };
                }
                "unevaluatedProperties" => {
                    node.unevaluated_properties =
                        Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "unevaluatedItems" => {
                    node.unevaluated_items =
                        Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "propertyNames" => {
                    node.property_names = Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "minProperties" => {
                    node.min_properties = count(value);
                    self.constrains();
                }
                "maxProperties" => {
                    node.max_properties = count(value);
                    self.constrains();
                }
                "dependentRequired" => {
                    for (name, names) in value.as_object().into_iter().flatten() {
                        node.dependent_required.push((name.clone(), strings(names)));
                    }
                    self.constrains();
                }
                "dependentSchemas" => {
                    for (name, schema) in value.as_object().into_iter().flatten() {
                        let id = self.child(children, doc, pointer, &[key, name], schema);
                        node.dependent_schemas.push((name.clone(), id));
                    }
                    self.constrains();
                }
                // Draft 7's `dependencies`, both forms (names, or a schema).
                "dependencies" => {
                    for (name, dependent) in value.as_object().into_iter().flatten() {
                        if dependent.is_array() {
                            node.dependent_required
                                .push((name.clone(), strings(dependent)));
                        } else {
                            let id = self.child(children, doc, pointer, &[key, name], dependent);
                            node.dependent_schemas.push((name.clone(), id));
                        }
                    }
                    self.constrains();
                }
                "anyOf" | "oneOf" | "allOf" => {
                    let ids: Vec<NodeId> = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, s)| self.child(children, doc, pointer, &[key, &i.to_string()], s))
                        .collect();
                    match key.as_str() {
                        "anyOf" => node.any_of = ids,
                        "oneOf" => node.one_of = ids,
                        _ => node.all_of = ids,
                    }
                }
                "not" => {
                    node.not = Some(self.child(children, doc, pointer, &[key], value));
                    self.constrains();
                }
                "if" => {
                    let condition = self.child(children, doc, pointer, &[key], value);
                    let then = map
                        .get("then")
                        .map(|s| self.child(children, doc, pointer, &["then"], s));
                    let otherwise = map
                        .get("else")
                        .map(|s| self.child(children, doc, pointer, &["else"], s));
                    node.if_then_else = Some((condition, then, otherwise));
                    self.constrains();
                }
                "$ref" => match value.as_str() {
                    Some(reference) => {
                        node.reference = Some(self.reference(reference, doc, pointer));
                    }
                    None => self.unsupported(at, "a `$ref` that is not a string"),
                },
                "$dynamicRef" => match value.as_str() {
                    Some(reference) => {
                        node.dynamic_reference =
                            Some(self.dynamic_reference(reference, doc, pointer));
                        self.constrains();
                    }
                    None => self.unsupported(at, "a `$dynamicRef` that is not a string"),
                },
                _ if ANNOTATIONS.contains(&key.as_str()) || key.starts_with("x-") => {}
                other => self.unsupported(at, format_args!("the keyword `{other}`")),
            }
        }
        node.only_reference = node.reference.is_some() && !own_keywords;
        if self.validation {
            self.counts(&mut node);
        }
        node
    }

    /// Whether `minimum`/`maximum` with `format`, lengths, item and contains counts say more than
    /// serde enforces.
    fn counts(&mut self, node: &mut Node) {
        self.numbers_and_format(node);
        // A `char`'s schema has both lengths at 1, which serde enforces; any other length is a
        // constraint of its own.
        if (node.min_length.is_some() || node.max_length.is_some())
            && !(node.min_length == Some(1) && node.max_length == Some(1))
        {
            self.constrains();
        }
        let tuple = Some(node.prefix_items.len()).filter(|n| *n > 0);
        let tuple_bounds = node.min_items.is_none_or(|n| Some(n) == tuple)
            && node.max_items.is_none_or(|n| Some(n) == tuple);
        if (node.min_items.is_some() || node.max_items.is_some()) && !tuple_bounds {
            self.constrains();
        }
        if node.min_contains.is_some() || node.max_contains.is_some() {
            self.constrains();
        }
    }

    /// `minimum`/`maximum` and `format`: the bounds an integer format implies (`uint8`:
    /// 0..=255) are what serde enforces; any other bound is a constraint of its own.
    fn numbers_and_format(&mut self, node: &Node) {
        let implied = node.format.as_ref().and_then(Format::integer_range);
        let within = |bound: &Option<Number>, implied: Option<i128>| {
            bound.as_ref().is_none_or(|b| {
                implied.is_some_and(|i| super::super::number::canonical(b) == i.to_string())
            })
        };
        let (low, high) = implied.map_or((None, None), |(lo, hi)| (Some(lo), Some(hi)));
        if !within(&node.minimum, low) || !within(&node.maximum, high) {
            self.constrains();
        }
        if node
            .format
            .as_ref()
            .is_some_and(|f| f.is_checked() && f.integer_range().is_none())
        {
            self.constrains();
        }
    }
}

/// A numeric keyword's value.
fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Number(n) => Some(n.clone()),
        _ => None,
    }
}

/// A count (`maxItems`, `minLength`, ...): a non-negative integer, written `2` or `2.0`.
fn count(value: &Value) -> Option<usize> {
    let n = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .map(|f| {
                // Saturating: a count past u64 is as good as infinite.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let n = f.min(1.8e19) as u64;
                n
            })
    })?;
    Some(usize::try_from(n).unwrap_or(usize::MAX))
}

/// The strings of a JSON array of strings (others skipped).
fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
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
