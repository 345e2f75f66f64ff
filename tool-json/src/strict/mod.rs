//! The strict JSON grammar, written once: the tokens of a document (`Tok`), read from text by
//! `TextSource` as a reader asks for them. The deserializer reads text through it directly;
//! a tape (`crate::tape`) is the same reading, stored. A `Watch` (`watch`) lent to a source
//! has a schema's rules checked on each value it reads.

mod watch;

pub use self::watch::{Rules, UNCHECKED, Verdict, Watch};

/// One token of a document. Arrays and objects are followed by their contents and an `End`;
/// an object's members are key and value, one after the other.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tok<'a> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'a str),
    /// An array; the index of its `End` (on a tape; read from text as serde asks for it, where
    /// the end is not known yet, 0).
    Seq {
        end: usize,
    },
    /// An object; the index of its `End` (as for `Seq`).
    Map {
        end: usize,
    },
    /// The end of the array or object opened last.
    End,
}

/// How deep the scanner reads: as deep as `serde_json` reads text (its recursion limit), so the
/// fast path never recurses further than it did.
pub const SCAN_DEPTH: usize = 128;

/// The tokens of JSON text, read as a reader asks for them: one pass, nothing stored. Nesting is
/// bounded by `max_depth` (and 128, as deep as `serde_json` reads text). Strings with escapes
/// and numbers other than plain integers are not guessed at: a string with escapes declines
/// the text (unless the reader keeps them raw, as a tape does, to have `serde_json` decode
/// them), other numbers are read by `serde_json` itself, so every value is the one it would
/// read. `KEEP_ESCAPED`: strings with escapes are handed out raw, quotes included, rather than
/// declined (a plain string's token never starts with a quote, so a raw one is told by its
/// first byte); a separate type, so the deserializer's reading carries no test for it.
pub struct TextSource<'de, const KEEP_ESCAPED: bool = false> {
    text: &'de str,
    at: usize,
    depth: usize,
    max_depth: usize,
    /// Whether the array or object opened last is an object.
    opened_object: bool,
    /// The text was declined: not JSON, not all of it read, or not read here (escapes).
    declined: bool,
    /// The rules checked on each value as it is read, if any (the caller's, so that a source
    /// without them stays small).
    watch: Option<&'de mut Watch<'de>>,
}

impl<'de, const KEEP_ESCAPED: bool> TextSource<'de, KEEP_ESCAPED> {
    pub fn new(text: &'de str, max_depth: usize) -> Self {
        TextSource {
            text,
            at: 0,
            depth: 0,
            max_depth: max_depth.min(SCAN_DEPTH),
            opened_object: false,
            declined: false,
            watch: None,
        }
    }

    /// A source that also has the rules `watch` holds checked on each value it reads (the first
    /// rule broken, or a value they cannot decide here, ends the read: [`verdict`](Self::verdict)
    /// says which). Values serde skips are read, so checked, all the same.
    pub fn watched(text: &'de str, max_depth: usize, watch: &'de mut Watch<'de>) -> Self {
        let mut source = Self::new(text, max_depth);
        source.watch = Some(watch);
        source
    }

    /// What the rules said of the text read so far ([`Verdict::Holds`] when none were given).
    pub fn verdict(&self) -> Verdict {
        self.watch
            .as_ref()
            .map_or(Verdict::Holds, |watch| watch.verdict)
    }

    /// After the document was deserialized: whether it was all of the text, every array and
    /// object closed and nothing but white space after it. Text with more is declined.
    #[inline(always)]
    pub fn finish(&mut self) -> bool {
        let whole = self.depth == 0
            && !self.declined
            && skip_space(self.text.as_bytes(), self.at) == self.text.len();
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
        let at = skip_space(bytes, self.at);
        (bytes.get(at).copied(), at)
    }

    /// A value's first token: a scalar, or an array's or object's opening.
    #[inline(always)]
    pub(crate) fn read_value(&mut self) -> Option<Tok<'de>> {
        let bytes = self.text.as_bytes();
        let (byte, at) = self.peek();
        let (ev, next) = match byte? {
            b'"' => {
                let (string, next) = self.string(at)?;
                (Tok::Str(string), next)
            }
            b'0'..=b'9' | b'-' => number(self.text, at)?,
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
            b't' => (Tok::Bool(true), literal_end(bytes, at, b"true")?),
            b'f' => (Tok::Bool(false), literal_end(bytes, at, b"false")?),
            b'n' => (Tok::Null, literal_end(bytes, at, b"null")?),
            _ => return None,
        };
        self.at = next;
        Some(ev)
    }

    /// A borrowed string at `open`; one with escapes is declined, or kept raw.
    #[inline(always)]
    fn string(&self, open: usize) -> Option<(&'de str, usize)> {
        let (close, escaped) = string_end(self.text.as_bytes(), open)?;
        if escaped {
            // Kept raw, from its opening quote to its closing one, or declined.
            if !KEEP_ESCAPED {
                return None;
            }
            return Some((self.text.get(open..=close)?, close + 1));
        }
        Some((self.text.get(open + 1..close)?, close + 1))
    }

    /// A member's key at `at` and its colon.
    #[inline(always)]
    fn read_key(&mut self, at: usize) -> Option<Tok<'de>> {
        let bytes = self.text.as_bytes();
        let at = skip_space(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let (key, next) = self.string(at)?;
        let colon = skip_space(bytes, next);
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

    /// In an object: the next key (`Str`), colon read, or `End`. `first` for the first member.
    #[inline(always)]
    pub(crate) fn read_member(&mut self, first: bool) -> Option<Tok<'de>> {
        match self.peek() {
            (Some(b'}'), at) => Some(self.end(at)),
            (Some(b'"'), at) if first => self.read_key(at),
            (Some(b','), at) if !first => self.read_key(at + 1),
            _ => None,
        }
    }

    /// In an array: the next element's first token, or `End`. `first` for the first element.
    #[inline(always)]
    pub(crate) fn read_item(&mut self, first: bool) -> Option<Tok<'de>> {
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

impl<'de, const KEEP_ESCAPED: bool> TextSource<'de, KEEP_ESCAPED> {
    // Out of line, the rules' watch with them: what the deserializer compiles per type is the
    // call alone.
    #[inline(never)]
    pub(crate) fn value(&mut self) -> Option<Tok<'de>> {
        match (self.read_value(), &mut self.watch) {
            (Some(ev), None) => Some(ev),
            (Some(ev), Some(watch)) => watch.value(ev),
            (None, _) => self.decline(),
        }
    }

    #[inline(never)]
    pub(crate) fn key(&mut self, first: bool) -> Option<Tok<'de>> {
        match (self.read_member(first), &mut self.watch) {
            (Some(ev), None) => Some(ev),
            (Some(ev), Some(watch)) => watch.key(ev),
            (None, _) => self.decline(),
        }
    }

    #[inline(never)]
    pub(crate) fn item(&mut self, first: bool) -> Option<Tok<'de>> {
        match (self.read_item(first), &mut self.watch) {
            (Some(ev), None) => Some(ev),
            (Some(ev), Some(watch)) => watch.item(ev),
            (None, _) => self.decline(),
        }
    }

    /// Everything in the array or object opened last, read (so checked) and let go.
    pub(crate) fn skip_rest(&mut self) -> Option<()> {
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

#[inline]
pub fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// The closing quote of the string whose opening quote is at `open`, and whether the string has
/// escapes (which are checked when they are decoded).
#[inline(always)]
pub fn string_end(bytes: &[u8], open: usize) -> Option<(usize, bool)> {
    let mut at = open + 1;
    let mut escaped = false;
    loop {
        // Four plain bytes at a time while four are left, each looked up in a table.
        while let Some(&[b0, b1, b2, b3]) = bytes.get(at..at + 4) {
            if ENDS_RUN[usize::from(b0)] {
                break;
            }
            if ENDS_RUN[usize::from(b1)] {
                at += 1;
                break;
            }
            if ENDS_RUN[usize::from(b2)] {
                at += 2;
                break;
            }
            if ENDS_RUN[usize::from(b3)] {
                at += 3;
                break;
            }
            at += 4;
        }
        match *bytes.get(at)? {
            b'"' => return Some((at, escaped)),
            b'\\' => {
                escaped = true;
                at += 2;
            }
            // Control characters must be escaped in JSON.
            0..=0x1f => return None,
            _ => at += 1,
        }
    }
}

/// The bytes that end a run of plain string bytes: the quote, the backslash, control characters.
static ENDS_RUN: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The index after `word` when the text at `at` is that word.
#[inline]
pub fn literal_end(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    (bytes.get(at..at + word.len())? == word).then_some(at + word.len())
}

/// A number at `start` (a `U64`, `I64` or `F64` token) and the index after it: plain integers
/// read here, every other (fractions, exponents, `-0`, integers past 64 bits) by `serde_json`,
/// so each is the number it reads.
#[inline(always)]
pub fn number(text: &str, start: usize) -> Option<(Tok<'static>, usize)> {
    let bytes = text.as_bytes();
    let negative = bytes.get(start) == Some(&b'-');
    let digits = start + usize::from(negative);
    let mut at = digits;
    let mut magnitude = 0u64;
    while let Some(&digit @ b'0'..=b'9') = bytes.get(at) {
        magnitude = magnitude
            .wrapping_mul(10)
            .wrapping_add(u64::from(digit - b'0'));
        at += 1;
    }
    // At most 19 digits always fit in a u64; a leading zero only alone; `-0` is serde_json's.
    let plain = at > digits
        && at - digits <= 19
        && !matches!(bytes.get(at), Some(b'.' | b'e' | b'E'))
        && (bytes.get(digits) != Some(&b'0') || (at == digits + 1 && !negative));
    if plain {
        if !negative {
            return Some((Tok::U64(magnitude), at));
        }
        if let Ok(signed) = i64::try_from(magnitude) {
            return Some((Tok::I64(-signed), at));
        }
    }
    if let Some((value, next)) = short_decimal(bytes, digits, at, magnitude) {
        return Some((Tok::F64(if negative { -value } else { value }), next));
    }
    other_number(text, start, at)
}

/// A decimal fraction of at most 15 digits in all and no exponent (`51.5074`, `0.25`), its
/// integer digits from `digits` to `at` (their value `magnitude`): the digits as an integer,
/// exact as an `f64`, divided once by a power of ten that is exact too. One correctly rounded
/// operation on exact values gives the correctly rounded number, which is what `serde_json`
/// reads (with `float_roundtrip` or without: its own fast path is this same division).
#[inline(always)]
fn short_decimal(bytes: &[u8], digits: usize, at: usize, magnitude: u64) -> Option<(f64, usize)> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let whole = at - digits;
    // An integer part, and no leading zero but a lone one; then the point.
    if whole == 0 || (whole > 1 && bytes.get(digits) == Some(&b'0')) || bytes.get(at) != Some(&b'.')
    {
        return None;
    }
    let mut next = at + 1;
    let mut significand = magnitude;
    while let Some(&digit @ b'0'..=b'9') = bytes.get(next) {
        significand = significand
            .wrapping_mul(10)
            .wrapping_add(u64::from(digit - b'0'));
        next += 1;
    }
    let fraction = next - at - 1;
    if fraction == 0 || whole + fraction > 15 || matches!(bytes.get(next), Some(b'e' | b'E')) {
        return None;
    }
    // Below 10^15 < 2^53: exact as an f64.
    #[expect(
        clippy::cast_precision_loss,
        reason = "Below 10^15 < 2^53: exact as an f64."
    )]
    let significand = significand as f64;
    Some((significand / *POW10.get(fraction)?, next))
}

/// The rest of a number's grammar from `at`, then `serde_json`'s reading of it.
#[inline(never)]
fn other_number(text: &str, start: usize, mut at: usize) -> Option<(Tok<'static>, usize)> {
    let bytes = text.as_bytes();
    while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = bytes.get(at) {
        at += 1;
    }
    let number: serde_json::Number = serde_json::from_str(text.get(start..at)?).ok()?;
    Some((number_token(&number), at))
}

pub(crate) fn number_token(n: &serde_json::Number) -> Tok<'static> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => Tok::U64(u),
        (None, Some(i)) => Tok::I64(i),
        (None, None) => Tok::F64(n.as_f64().unwrap_or(f64::NAN)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string's end found four bytes at a time is the end found one byte at a time, wherever
    /// the quote, backslash or control character falls within or past the four.
    #[test]
    fn string_ends_match_a_byte_by_byte_reading() {
        fn one_by_one(bytes: &[u8], open: usize) -> Option<(usize, bool)> {
            let mut at = open + 1;
            let mut escaped = false;
            loop {
                match *bytes.get(at)? {
                    b'"' => return Some((at, escaped)),
                    b'\\' => {
                        escaped = true;
                        at += 2;
                    }
                    0..=0x1f => return None,
                    _ => at += 1,
                }
            }
        }
        let alphabet = [b'a', b'"', b'\\', b'\n', 0x1f, b' ', 0x7f, 0xc3, 0xa9, b'}'];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = 1 + (state % 14) as usize;
            let mut bytes = vec![b'"'];
            let mut bits = state >> 8;
            for _ in 0..len {
                // Mostly plain bytes, so that runs of four and more occur.
                let pick = (bits % 16) as usize;
                bytes.push(
                    alphabet
                        .get(pick.saturating_sub(6))
                        .copied()
                        .unwrap_or(b'a'),
                );
                bits = bits.rotate_right(4) ^ state;
            }
            assert_eq!(
                string_end(&bytes, 0),
                one_by_one(&bytes, 0),
                "{:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }

    /// Short decimals read here are the numbers `serde_json` reads, bit for bit; the rest
    /// (longer, exponents, broken) are left to it.
    #[test]
    fn short_decimals_are_serde_jsons_numbers() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let mut read_here = 0;
        for _ in 0..200_000 {
            let width = u32::try_from(next(9)).unwrap();
            let whole = next(10_u64.pow(width));
            let width = u32::try_from(next(12)).unwrap();
            let fraction = next(10_u64.pow(width));
            let zeros = "0".repeat(usize::try_from(next(4)).unwrap());
            let sign = if next(2) == 0 { "-" } else { "" };
            let text = format!("{sign}{whole}.{zeros}{fraction}");
            let reference: f64 = serde_json::from_str(&text).unwrap();
            match number(&text, 0) {
                Some((Tok::F64(value), end)) => {
                    assert_eq!(value.to_bits(), reference.to_bits(), "{text}");
                    assert_eq!(end, text.len(), "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
            let digits = text.bytes().filter(u8::is_ascii_digit).count();
            read_here += usize::from(digits <= 15);
        }
        assert!(read_here > 50_000, "{read_here} read here");
        for text in [
            "01.5",
            "1.",
            "-.5",
            ".5",
            "1.5e3",
            "1.5E-3",
            "0.1234567890123456",
            "-0.0",
            "123456789012.345",
        ] {
            let reference = serde_json::from_str::<f64>(text).ok();
            let read = number(text, 0).and_then(|(token, end)| match token {
                Tok::F64(value) if end == text.len() => Some(value.to_bits()),
                _ => None,
            });
            assert_eq!(read, reference.map(f64::to_bits), "{text}");
        }
    }
}
