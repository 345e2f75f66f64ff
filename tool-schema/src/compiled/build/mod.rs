//! Compiling a schema: one node per subschema, references resolved to node indices (recursion
//! included), patterns compiled, and a note of whether anything goes beyond what serde enforces.
//!
//! References follow JSON Schema draft 2020-12: every subschema's base URI comes from the
//! `$id`s around it, `$anchor` and `$dynamicAnchor` name subschemas, and a reference into
//! another document asks the caller's `retrieve` for it. Subschemas are found only under
//! keywords that hold schemas, so an `$id` inside a `const` or an unknown keyword names
//! nothing.

mod keywords;
mod resolve;

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use self::resolve::escape_into;
use crate::compiled::{Node, NodeId};
use crate::uri::DEFAULT_BASE;

/// What compiling a schema gives.
pub(super) struct Compiled {
    pub(super) nodes: Vec<Node>,
    pub(super) unsupported: Vec<String>,
    pub(super) beyond_serde: bool,
    /// Whether anything goes beyond serde other than nested structs' being objects.
    pub(super) beyond_shapes: bool,
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
        beyond_shapes: false,
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
        beyond_shapes,
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
        beyond_shapes,
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

#[expect(
    clippy::struct_excessive_bools,
    reason = "Flags of the compilation, each read in one place."
)]
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
    /// Whether something other than a nested struct's shape goes beyond serde.
    beyond_shapes: bool,
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

impl Compiler<'_, '_> {
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
        self.beyond_shapes = true;
    }

    fn constrains(&mut self) {
        self.own = true;
        self.beyond_serde = true;
        self.beyond_shapes = true;
    }

    /// A nested struct's object shape: beyond what serde's derive takes from a value it kept
    /// aside (it builds a struct from an array of its fields too), not beyond a direct read by
    /// toolwright's deserializer (which takes a struct from an object only).
    fn shaped(&mut self) {
        self.own = true;
        self.beyond_serde = true;
    }
}
