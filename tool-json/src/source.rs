//! Where the deserializer's tokens come from: a [tape](super::tape) already read, or JSON text
//! read as serde asks for it (`TextSource`, the strict grammar in `crate::strict`).

use crate::strict::Tok;
pub use crate::strict::{Rules, TextSource, UNCHECKED, Verdict, Watch};

/// Where a document's tokens come from. The deserializer knows where in the document it is,
/// and asks for what can come there: a value, an object's next key, an array's next element.
/// `None` when the document cannot be read here (the source says why).
pub enum Source<'s, 'de> {
    /// Text, read as it is deserialized (out of line: the scanner is compiled once).
    Text(&'s mut TextSource<'de>),
    /// A tape (inline: a token read is a few instructions).
    Tape(&'s mut TapeSource<'de>),
}

impl<'de> Source<'_, 'de> {
    pub(super) fn reborrow(&mut self) -> Source<'_, 'de> {
        match self {
            Source::Text(text) => Source::Text(text),
            Source::Tape(tape) => Source::Tape(tape),
        }
    }

    /// A value's first token: a scalar, or an array's or object's opening.
    #[inline(always)]
    pub(super) fn value(&mut self) -> Option<Tok<'de>> {
        match self {
            Source::Text(text) => text.value(),
            Source::Tape(tape) => tape.next(),
        }
    }

    /// In an object: the next key (`Str`), or `End`. `first` for the object's first member.
    #[inline(always)]
    pub(super) fn key(&mut self, first: bool) -> Option<Tok<'de>> {
        match self {
            Source::Text(text) => text.key(first),
            Source::Tape(tape) => tape.next(),
        }
    }

    /// In an array: the next element's first token, or `End`. `first` for the first element.
    #[inline(always)]
    pub(super) fn item(&mut self, first: bool) -> Option<Tok<'de>> {
        match self {
            Source::Text(text) => text.item(first),
            Source::Tape(tape) => tape.next(),
        }
    }

    /// Right after an array's or object's opening: past its end, everything in it unread.
    pub(super) fn skip_rest(&mut self) -> Option<()> {
        match self {
            Source::Text(text) => text.skip_rest(),
            Source::Tape(tape) => {
                tape.skip_rest();
                Some(())
            }
        }
    }
}

/// The tokens of a tape.
pub struct TapeSource<'t> {
    tape: &'t [Tok<'t>],
    at: usize,
}

impl<'t> TapeSource<'t> {
    pub fn new(tape: &'t [Tok<'t>]) -> Self {
        TapeSource { tape, at: 0 }
    }

    #[inline(always)]
    fn next(&mut self) -> Option<Tok<'t>> {
        let token = *self.tape.get(self.at)?;
        self.at += 1;
        Some(token)
    }

    /// Right after an opening: past its end token.
    fn skip_rest(&mut self) {
        if let Some(Tok::Seq { end } | Tok::Map { end }) =
            self.at.checked_sub(1).and_then(|at| self.tape.get(at))
        {
            self.at = end + 1;
        }
    }
}
