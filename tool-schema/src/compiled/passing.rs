//! Where a value's rules are, for the checks made as values pass (`inline`): the branch of a
//! union a value's type picks, and what an array or object entering a node gives. Facts of the
//! schema alone, so the per-node ones are computed when it compiles.

use super::{CompiledSchema, NodeId, Passing, Types};
use toolwright_json::de::UNCHECKED;

impl CompiledSchema {
    /// The node whose rules a value of type `types` answers to: the node itself, or the branch
    /// of a union the type (or, for objects, the tag) picks. `None`: not told in passing.
    pub(crate) fn select(&self, node: NodeId, types: Types) -> Option<NodeId> {
        // Most nodes are no union: themselves.
        if self.passing(node) == Passing::Plain {
            return Some(node);
        }
        let mut node = node;
        for _ in 0..8 {
            node = self.target(node);
            let branches = {
                let n = self.node(node);
                if n.any_of.is_empty() {
                    &n.one_of
                } else {
                    &n.any_of
                }
            };
            match self.passing(node) {
                Passing::Plain | Passing::Listed => return Some(node),
                Passing::Tagged if types == Types::OBJECT => return Some(node),
                Passing::Union => {
                    node = *branches
                        .iter()
                        .find(|branch| self.types_of(**branch).accepts(types))?;
                }
                Passing::Tagged | Passing::No => return None,
            }
        }
        None
    }

    /// What an object (`[0]`) or an array (`[1]`) entering node `node` gives in passing: the
    /// node its contents answer to, or `None` when no branch takes that type (the table behind
    /// [`containers`](Self::containers)).
    pub(super) fn containers_of(&self, node: NodeId) -> [Option<usize>; 2] {
        let node = self.target(node);
        let takes =
            |id: &NodeId, types: Types| self.node(*id).types.is_none_or(|t| t.accepts(types));
        let object = self
            .select(node, Types::OBJECT)
            .filter(|id| self.passing(*id) == Passing::Plain && takes(id, Types::OBJECT))
            .map(|id| self.contents(id, true));
        let array = self
            .select(node, Types::ARRAY)
            .filter(|id| takes(id, Types::ARRAY))
            .map(|id| self.contents(id, false));
        [object, array]
    }

    /// The node an array's or object's contents answer to, once it was taken: itself, or
    /// `UNCHECKED` when no rule is about its count or anything in it (a struct whose fields
    /// serde checks alone), so that its members are not looked up one by one.
    fn contents(&self, id: NodeId, object: bool) -> usize {
        let node = self.node(id);
        let free = if object {
            node.min_properties.is_none()
                && node.max_properties.is_none()
                && self.checked_members(id).is_some_and(<[_]>::is_empty)
        } else {
            node.min_items.is_none()
                && node.max_items.is_none()
                && node
                    .prefix_items
                    .iter()
                    .chain(&node.items)
                    .all(|item| !self.needs_check(*item))
        };
        if free { UNCHECKED } else { id }
    }
}
