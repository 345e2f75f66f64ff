//! Rules checked in passing: what a reader asks of each value as the deserializer reads it
//! (a range, a length, a pattern, an enum of scalars, how many items or members), so that
//! arguments whose rules are all of that kind are checked on the one read that deserializes
//! them, with no tape and no second walk.
//!
//! This crate knows no schema: a schema (`toolwright-schema`'s compiled one) implements
//! [`Rules`] over its own node numbers, and the deserializer carries the number of the node
//! each value answers to, asking only about values some rule is about.

use std::cell::{Cell, RefCell};

use serde::de;

use crate::path::{ArgPath, PathSegment};
use crate::strict::Tok;

/// The node number of a value no rule is about, nor anything in it: nothing is asked.
pub const UNCHECKED: usize = usize::MAX;

/// What the rules say of a document read so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verdict {
    /// Every rule asked about held (or none was asked).
    #[default]
    Holds,
    /// A rule is broken: the document is invalid, and the caller's full check says why.
    Broken,
    /// Something the rules cannot decide in passing (a value they are about was skipped, or a
    /// rule needs the whole value): the caller decides another way.
    Undecided,
}

/// Rules over single values, asked as the deserializer reads them. Every method but
/// [`root`](Self::root) is asked only about a node other than [`UNCHECKED`].
pub trait Rules {
    /// The node the document answers to ([`UNCHECKED`] when no rule is about it).
    fn root(&self) -> usize;

    /// A value's first token, against `node`: for a scalar, whether its rules hold
    /// (`Ok(UNCHECKED)`); for an array or an object, whether it may be one, and the node its
    /// contents answer to (the node itself, or the branch of a union its type picks).
    ///
    /// # Errors
    /// Why the value is not taken in passing.
    fn enter(&self, node: usize, token: &Tok<'_>) -> Result<usize, Verdict>;

    /// The node the member named `key` of an object at `node` answers to.
    fn member(&self, node: usize, key: &str) -> usize;

    /// The node the item at `index` of an array at `node` answers to.
    fn item(&self, node: usize, index: usize) -> usize;

    /// An array (`object` false) or object at `node` is over, with `count` items or members:
    /// whether its counts hold.
    ///
    /// # Errors
    /// Why the value is not taken in passing.
    fn close(&self, node: usize, object: bool, count: usize) -> Result<(), Verdict>;
}

/// The segments an error passed through on its way out, innermost first; and the rules checked
/// in passing, with what they said.
pub struct Trail<'r> {
    segments: RefCell<Vec<PathSegment>>,
    rules: Option<&'r dyn Rules>,
    /// The node the document answers to.
    pub(crate) root: usize,
    verdict: Cell<Verdict>,
}

impl Default for Trail<'_> {
    fn default() -> Self {
        Trail {
            segments: RefCell::default(),
            rules: None,
            root: UNCHECKED,
            verdict: Cell::new(Verdict::Holds),
        }
    }
}

impl<'r> Trail<'r> {
    /// A trail that has `rules` checked on each value they are about as it is read.
    pub fn checking(rules: &'r dyn Rules) -> Self {
        Trail {
            segments: RefCell::default(),
            rules: Some(rules),
            root: rules.root(),
            verdict: Cell::new(Verdict::Holds),
        }
    }

    /// What the rules said: [`Verdict::Holds`] unless a read stopped at a broken rule or at a
    /// value they cannot decide in passing.
    pub fn verdict(&self) -> Verdict {
        self.verdict.get()
    }

    #[cold]
    pub(crate) fn note(&self, segment: PathSegment) {
        self.segments.borrow_mut().push(segment);
    }

    /// The path, outermost first.
    pub fn path(self) -> ArgPath {
        let mut segments = self.segments.into_inner();
        segments.reverse();
        ArgPath(segments)
    }

    /// A value's first token against its node: the node its contents answer to.
    #[inline(always)]
    pub(crate) fn enter(&self, node: usize, ev: &Tok<'_>) -> Result<usize, serde_json::Error> {
        if node == UNCHECKED {
            return Ok(UNCHECKED);
        }
        self.enter_checked(node, ev)
    }

    #[inline(never)]
    pub(crate) fn enter_checked(
        &self,
        node: usize,
        ev: &Tok<'_>,
    ) -> Result<usize, serde_json::Error> {
        match self.rules.map(|rules| rules.enter(node, ev)) {
            Some(Ok(node)) => Ok(node),
            Some(Err(verdict)) => Err(self.stop(verdict)),
            None => Ok(UNCHECKED),
        }
    }

    #[inline(never)]
    pub(crate) fn member(&self, node: usize, key: &str) -> usize {
        self.rules
            .map_or(UNCHECKED, |rules| rules.member(node, key))
    }

    #[inline(never)]
    pub(crate) fn item(&self, node: usize, index: usize) -> usize {
        self.rules
            .map_or(UNCHECKED, |rules| rules.item(node, index))
    }

    /// An array or object at `node` is over, with `count` items or members.
    #[inline(never)]
    pub(crate) fn close(
        &self,
        node: usize,
        object: bool,
        count: usize,
    ) -> Result<(), serde_json::Error> {
        match self.rules.map(|rules| rules.close(node, object, count)) {
            Some(Err(verdict)) => Err(self.stop(verdict)),
            _ => Ok(()),
        }
    }

    /// The read stops here: the rules said `verdict`.
    #[cold]
    #[inline(never)]
    pub(crate) fn stop(&self, verdict: Verdict) -> serde_json::Error {
        self.verdict.set(verdict);
        de::Error::custom(match verdict {
            Verdict::Broken => "a rule of the schema is broken",
            Verdict::Holds | Verdict::Undecided => "the schema's rules are not decided here",
        })
    }
}
