//! A schema's rules checked as a [`TextSource`](super::TextSource) reads each value: the
//! `Rules` a schema implements over its node numbers, and the `Watch` that asks them, lent to
//! the source.

use super::Tok;

/// The node number of a value no rule is about, nor anything in it: nothing is asked.
pub const UNCHECKED: usize = usize::MAX;

/// What the rules said of a document read so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verdict {
    /// Every rule asked about held (or none was asked).
    #[default]
    Holds,
    /// A rule is broken: the document is invalid, and the caller's full check says why.
    Broken,
    /// Something the rules cannot decide in passing (nesting past what is followed): the caller
    /// decides another way.
    Undecided,
}

/// Rules over single values (a range, a length, a pattern, an enum of scalars, how many items
/// or members), asked as a [`TextSource`](super::TextSource) reads each value, so that arguments
/// whose rules are all of that kind are checked on the one read that deserializes them, with no
/// tape and no second walk. This crate knows no schema: a schema (`toolwright-schema`'s compiled
/// one) implements it over its own node numbers. Every method but [`root`](Self::root) is asked
/// only about a node other than [`UNCHECKED`].
pub trait Rules {
    /// The node the document answers to ([`UNCHECKED`] when no rule is about it).
    fn root(&self) -> usize;

    /// A value's first token, against `node`: for a scalar, whether its rules hold
    /// (`Ok(UNCHECKED)`); for an array or an object, whether it may be one, and the node its
    /// contents answer to (the node itself, the branch of a union its type picks, or
    /// [`UNCHECKED`] when no rule is about its count or anything in it).
    ///
    /// # Errors
    /// Why the value is not taken in passing.
    fn enter(&self, node: usize, token: &Tok<'_>) -> Result<usize, Verdict>;

    /// The node the member named `key` of an object at `node` answers to.
    fn member(&self, node: usize, key: &str) -> usize;

    /// The node the item at `index` of an array at `node` answers to.
    fn item(&self, node: usize, index: usize) -> usize;

    /// An array (`object` false) or object at `node` is over, with `count` items or members.
    ///
    /// # Errors
    /// Why the value is not taken in passing.
    fn close(&self, node: usize, object: bool, count: usize) -> Result<(), Verdict>;
}

/// How deep checked arrays and objects are followed (those no rule is about, and everything in
/// them, are only counted); deeper, the document is undecided here.
const WATCH_DEPTH: usize = 16;

/// The rules' view of a text source's reading: which node the next value answers to, and for
/// each checked array or object open, its node and how many items or members it has had. Made by
/// the caller ([`Watch::new`]) and lent to a [`TextSource::watched`](super::TextSource::watched).
pub struct Watch<'r> {
    rules: &'r dyn Rules,
    next: usize,
    /// Node and count of each checked array or object open (node numbers and counts past
    /// `u32` are not followed: undecided).
    frames: [(u32, u32); WATCH_DEPTH],
    depth: usize,
    /// Arrays and objects open inside the innermost checked one (or the root) that no rule is
    /// about: nothing in them is asked about.
    quiet: usize,
    pub(super) verdict: Verdict,
}

impl<'r> Watch<'r> {
    /// A watch of `rules`, from the document's root.
    #[inline]
    pub fn new(rules: &'r dyn Rules) -> Self {
        Watch {
            rules,
            next: rules.root(),
            frames: [(0, 0); WATCH_DEPTH],
            depth: 0,
            quiet: 0,
            verdict: Verdict::Holds,
        }
    }

    /// The read ends here: the rules said `verdict`.
    #[cold]
    fn stop<T>(&mut self, verdict: Verdict) -> Option<T> {
        self.verdict = verdict;
        None
    }

    /// A value's first token, against the node it answers to.
    #[inline(always)]
    pub(super) fn value<'de>(&mut self, ev: Tok<'de>) -> Option<Tok<'de>> {
        let node = std::mem::replace(&mut self.next, UNCHECKED);
        let inside = if node == UNCHECKED {
            UNCHECKED
        } else {
            match self.rules.enter(node, &ev) {
                Ok(inside) => inside,
                Err(verdict) => return self.stop(verdict),
            }
        };
        if matches!(ev, Tok::Seq { .. } | Tok::Map { .. }) {
            if inside == UNCHECKED {
                self.quiet += 1;
            } else {
                // A checked container inside an unchecked one cannot be; deeper than followed,
                // undecided.
                let Some(frame) = self.frames.get_mut(self.depth).filter(|_| self.quiet == 0)
                else {
                    return self.stop(Verdict::Undecided);
                };
                let Ok(inside) = u32::try_from(inside) else {
                    return self.stop(Verdict::Undecided);
                };
                *frame = (inside, 0);
                self.depth += 1;
            }
        }
        Some(ev)
    }

    /// An object's next key (or its end).
    #[inline(always)]
    pub(super) fn key<'de>(&mut self, ev: Tok<'de>) -> Option<Tok<'de>> {
        match ev {
            Tok::End => self.end(ev, true),
            Tok::Str(key) if self.quiet == 0 && self.depth > 0 => {
                let (node, count) = &mut self.frames[self.depth - 1];
                *count = count.saturating_add(1);
                self.next = self.rules.member(*node as usize, key);
                Some(ev)
            }
            _ => Some(ev),
        }
    }

    /// An array's next item (or its end).
    #[inline(always)]
    pub(super) fn item<'de>(&mut self, ev: Tok<'de>) -> Option<Tok<'de>> {
        if ev == Tok::End {
            return self.end(ev, false);
        }
        if self.quiet == 0 && self.depth > 0 {
            let (node, count) = &mut self.frames[self.depth - 1];
            self.next = self.rules.item(*node as usize, *count as usize);
            *count = count.saturating_add(1);
        }
        self.value(ev)
    }

    /// The end of the array or object opened last: its counts checked, if it was checked.
    fn end<'de>(&mut self, ev: Tok<'de>, object: bool) -> Option<Tok<'de>> {
        if self.quiet > 0 {
            self.quiet -= 1;
            return Some(ev);
        }
        if self.depth > 0 {
            self.depth -= 1;
            let (node, count) = self.frames[self.depth];
            if let Err(verdict) = self.rules.close(node as usize, object, count as usize) {
                return self.stop(verdict);
            }
        }
        Some(ev)
    }
}
