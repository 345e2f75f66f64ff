//! Where the deserializer's tokens come from: a [tape](super::tape) already read, or JSON text
//! read as serde asks for it (`TextSource`).

use super::tape::{self, Tok};

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

/// The tokens of JSON text, read as serde asks for them: one pass, nothing stored. Nesting is
/// bounded by `max_depth` (and 128, as deep as `serde_json` reads text). Strings with escapes
/// and numbers other than plain integers are not guessed at: a string with escapes declines
/// the text (its tape reads it, with `serde_json` decoding the escapes), other numbers are read
/// by `serde_json` itself, so every value is the one it would read.
pub struct TextSource<'de> {
    text: &'de str,
    at: usize,
    depth: usize,
    max_depth: usize,
    /// Whether the array or object opened last is an object.
    opened_object: bool,
    /// The text was declined: not JSON, not all of it read, or not read here (escapes).
    declined: bool,
}

impl<'de> TextSource<'de> {
    pub fn new(text: &'de str, max_depth: usize) -> Self {
        TextSource {
            text,
            at: 0,
            depth: 0,
            max_depth: max_depth.min(tape::SCAN_DEPTH),
            opened_object: false,
            declined: false,
        }
    }

    /// After the document was deserialized: whether it was all of the text, every array and
    /// object closed and nothing but white space after it. Text with more is declined.
    pub fn finish(&mut self) -> bool {
        let whole = self.depth == 0
            && !self.declined
            && tape::skip_space(self.text.as_bytes(), self.at) == self.text.len();
        self.declined |= !whole;
        whole
    }

    /// Whether the text was declined: the tape or the long way reads it.
    pub fn declined(&self) -> bool {
        self.declined
    }

    #[cold]
    #[inline(never)]
    fn decline(&mut self) -> Option<Tok<'de>> {
        self.declined = true;
        None
    }

    /// The next significant byte and its index.
    #[inline(always)]
    fn peek(&self) -> (Option<u8>, usize) {
        let bytes = self.text.as_bytes();
        let at = tape::skip_space(bytes, self.at);
        (bytes.get(at).copied(), at)
    }

    #[inline(always)]
    fn read_value(&mut self) -> Option<Tok<'de>> {
        let bytes = self.text.as_bytes();
        let (byte, at) = self.peek();
        let (ev, next) = match byte? {
            b'"' => {
                let (string, next) = self.string(at)?;
                (Tok::Str(string), next)
            }
            b'0'..=b'9' | b'-' => tape::number(self.text, at)?,
            open @ (b'{' | b'[') => {
                if self.depth == self.max_depth {
                    return None;
                }
                self.depth += 1;
                self.opened_object = open == b'{';
                let ev = if self.opened_object {
                    Tok::Map { end: 0 }
                } else {
                    Tok::Seq { end: 0 }
                };
                (ev, at + 1)
            }
            b't' => (Tok::Bool(true), tape::literal_end(bytes, at, b"true")?),
            b'f' => (Tok::Bool(false), tape::literal_end(bytes, at, b"false")?),
            b'n' => (Tok::Null, tape::literal_end(bytes, at, b"null")?),
            _ => return None,
        };
        self.at = next;
        Some(ev)
    }

    /// A borrowed string at `open`; one with escapes is not read here.
    #[inline(always)]
    fn string(&self, open: usize) -> Option<(&'de str, usize)> {
        let (close, escaped) = tape::string_end(self.text.as_bytes(), open)?;
        if escaped {
            return None;
        }
        Some((self.text.get(open + 1..close)?, close + 1))
    }

    /// A member's key at `at` and its colon.
    #[inline(always)]
    fn read_key(&mut self, at: usize) -> Option<Tok<'de>> {
        let bytes = self.text.as_bytes();
        let at = tape::skip_space(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let (key, next) = self.string(at)?;
        let colon = tape::skip_space(bytes, next);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        self.at = colon + 1;
        Some(Tok::Str(key))
    }

    /// The end of the array or object whose closing bracket is at `at`.
    #[inline(always)]
    fn end(&mut self, at: usize) -> Tok<'de> {
        self.at = at + 1;
        self.depth -= 1;
        Tok::End
    }

    #[inline(always)]
    fn read_member(&mut self, first: bool) -> Option<Tok<'de>> {
        match self.peek() {
            (Some(b'}'), at) => Some(self.end(at)),
            (Some(b'"'), at) if first => self.read_key(at),
            (Some(b','), at) if !first => self.read_key(at + 1),
            _ => None,
        }
    }

    #[inline(always)]
    fn read_item(&mut self, first: bool) -> Option<Tok<'de>> {
        match self.peek() {
            (Some(b']'), at) => Some(self.end(at)),
            (Some(b','), at) if !first => {
                self.at = at + 1;
                self.read_value()
            }
            (Some(_), _) if first => self.read_value(),
            _ => None,
        }
    }
}

impl<'de> TextSource<'de> {
    #[inline(never)]
    fn value(&mut self) -> Option<Tok<'de>> {
        match self.read_value() {
            Some(ev) => Some(ev),
            None => self.decline(),
        }
    }

    #[inline(never)]
    fn key(&mut self, first: bool) -> Option<Tok<'de>> {
        match self.read_member(first) {
            Some(ev) => Some(ev),
            None => self.decline(),
        }
    }

    #[inline(never)]
    fn item(&mut self, first: bool) -> Option<Tok<'de>> {
        match self.read_item(first) {
            Some(ev) => Some(ev),
            None => self.decline(),
        }
    }

    /// Everything in the array or object opened last, read (so checked) and let go.
    fn skip_rest(&mut self) -> Option<()> {
        // The containers open inside the skipped one: bit `d` says whether the one at level
        // `d` is an object (the depth limit keeps them within 128).
        let mut objects = 0u128;
        let mut level = 0;
        let mut object = self.opened_object;
        let mut first = true;
        loop {
            let ev = if object {
                match self.key(first)? {
                    Tok::End => Tok::End,
                    _ => self.value()?,
                }
            } else {
                self.item(first)?
            };
            first = false;
            match ev {
                Tok::End if level == 0 => return Some(()),
                Tok::End => {
                    level -= 1;
                    object = objects & (1 << level) != 0;
                }
                Tok::Seq { .. } | Tok::Map { .. } => {
                    if object {
                        objects |= 1 << level;
                    } else {
                        objects &= !(1 << level);
                    }
                    level += 1;
                    object = matches!(ev, Tok::Map { .. });
                    first = true;
                }
                _ => {}
            }
        }
    }
}
