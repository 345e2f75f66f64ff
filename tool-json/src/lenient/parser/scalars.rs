//! Strings, numbers and bare words: the leaves of the lenient parser.

use serde_json::{Number, Value};

use super::{FENCE, Parser, Place};
use crate::lenient::{JsonError, RepairKind};

impl Parser<'_> {
    pub(super) fn string_value(&mut self, place: Place) -> Result<Value, JsonError> {
        let mut text = self.string(place)?;
        // "a" + "b": concatenation.
        loop {
            let save = self.pos;
            let repairs = self.repairs.len();
            self.skip_space();
            if self.peek() != Some(b'+') {
                self.pos = save;
                self.repairs.truncate(repairs);
                break;
            }
            let plus = self.pos;
            self.pos += 1;
            self.skip_space();
            let next_is_string = match self.peek() {
                Some(b'"' | b'\'' | b'`') => true,
                Some(b) if b >= 0x80 => self.peek_char().is_some_and(is_quote),
                _ => false,
            };
            if !next_is_string {
                self.pos = save;
                self.repairs.truncate(repairs);
                break;
            }
            self.repair(RepairKind::StringConcatenation, plus);
            text.push_str(&self.string(place)?);
        }
        Ok(Value::String(text))
    }

    /// A quoted string. A double quote that is followed by neither a delimiter nor the end of the
    /// line cannot have closed a value, and is kept as text.
    pub(super) fn string(&mut self, place: Place) -> Result<String, JsonError> {
        let open_at = self.pos;
        let escaped_quotes = self.peek() == Some(b'\\');
        if escaped_quotes {
            self.repair(RepairKind::InvalidEscape, self.pos);
            self.pos += 1;
        }
        let open = self.peek_char().unwrap_or('"');
        self.pos += open.len_utf8();
        if open != '"' {
            self.repair(RepairKind::NonStandardQuotes, open_at);
        }
        let content_at = self.pos;
        let mut out = String::new();
        loop {
            // A run of plain ASCII, which can neither close the string nor need a repair, is
            // copied whole; what follows it is looked at a character at a time.
            let run = self.bytes[self.pos..]
                .iter()
                .take_while(|&&b| is_plain(b))
                .count();
            if run > 0 {
                out.push_str(&self.text[self.pos..self.pos + run]);
                self.pos += run;
            }
            let Some(c) = self.peek_char() else {
                self.repair(RepairKind::UnclosedString, open_at);
                self.cut_unclosed(&mut out, content_at, place);
                return Ok(out);
            };
            let at = self.pos;
            if escaped_quotes && c == '\\' {
                // Inside `\"..\"`, `\\\"` is an escaped quote and `\"` the closing one.
                let inner = ["\\\\\\\"", "\\\\\""]
                    .into_iter()
                    .find(|escaped| self.rest().starts_with(escaped));
                if let Some(escaped) = inner {
                    self.pos += escaped.len();
                    out.push('"');
                    continue;
                }
                if self.bytes.get(at + 1) == Some(&b'"') {
                    self.pos += 2;
                    return Ok(out);
                }
            }
            if closes(open, c) {
                self.pos += c.len_utf8();
                if c == '"' && open == '"' && place != Place::Key && !self.closing_fits(place) {
                    self.repair(RepairKind::UnescapedQuote, at);
                    out.push('"');
                    continue;
                }
                return Ok(out);
            }
            match c {
                '\\' => self.escape(&mut out),
                '\n' if open != '"' && place == Place::InArray => {
                    // An unclosed quote in a list of lines: close it at the end of the line.
                    self.repair(RepairKind::UnclosedString, open_at);
                    return Ok(out);
                }
                c if c.is_control() => {
                    self.repair(RepairKind::ControlCharacter, at);
                    out.push(c);
                    self.pos += c.len_utf8();
                }
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    /// A string still open at the end of the input (truncated, or its closing quote forgotten):
    /// when it is inside a bracket and its text runs over a line break or a closing bracket,
    /// the string most likely ended there, so parsing resumes at that point. Done once per
    /// document, which keeps the parser linear.
    fn cut_unclosed(&mut self, out: &mut String, content_at: usize, place: Place) {
        if self.backtracked || !matches!(place, Place::InObject | Place::InArray) {
            return;
        }
        let closer = if place == Place::InObject { '}' } else { ']' };
        let raw = &self.text[content_at..];
        let cut = raw.find('\n').or_else(|| raw.rfind(closer));
        let Some(cut) = cut else { return };
        // Only where the raw text and the decoded text agree up to the cut (no escapes).
        if raw[..cut].contains('\\') {
            return;
        }
        self.backtracked = true;
        out.truncate(cut);
        let kept = out.trim_end().len();
        out.truncate(kept);
        self.pos = content_at + cut;
    }

    /// After a double quote: whether it can be a closing one (a delimiter, a line break, a
    /// comment, a `+`, another quote or the end follows; in an array, also another value).
    fn closing_fits(&self, place: Place) -> bool {
        let mut i = self.pos;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                // In an array, another value after the quote means a missing comma.
                b'0'..=b'9' | b'-' | b'{' | b'[' if place == Place::InArray => return true,
                b' ' | b'\t' | b'\r' => i += 1,
                b'\n' | b',' | b'}' | b']' | b':' | b'/' | b'+' | b'"' => return true,
                b')' => return self.paren_closes(i + 1),
                b'`' => return self.text[i..].starts_with(FENCE),
                _ => return false,
            }
        }
        true
    }

    /// After a `)` that follows a quote: whether it closes a wrapper (`ObjectId("1")`), that
    /// is, a delimiter or the end follows it.
    fn paren_closes(&self, from: usize) -> bool {
        self.bytes[from..]
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_none_or(|b| matches!(b, b',' | b'}' | b']' | b';' | b')'))
    }

    fn escape(&mut self, out: &mut String) {
        let at = self.pos;
        self.pos += 1;
        let Some(c) = self.peek_char() else {
            self.repair(RepairKind::UnclosedString, at);
            return;
        };
        self.pos += c.len_utf8();
        match c {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                if let Some(c) = self.unicode_escape() {
                    out.push(c);
                } else {
                    self.repair(RepairKind::InvalidEscape, at);
                    out.push_str("\\u");
                }
            }
            '\'' | '`' => {
                self.repair(RepairKind::InvalidEscape, at);
                out.push(c);
            }
            '\n' => {
                // A backslash before a raw line break: the line break was meant.
                self.repair(RepairKind::ControlCharacter, at);
                out.push('\n');
            }
            other => {
                self.repair(RepairKind::InvalidEscape, at);
                out.push(other);
            }
        }
    }

    /// The code point of `\uXXXX` (after the `u`), joining surrogate pairs; a lone surrogate
    /// becomes U+FFFD. `None` (nothing consumed) when four hex digits do not follow.
    fn unicode_escape(&mut self) -> Option<char> {
        let high = self.hex4(self.pos)?;
        self.pos += 4;
        if !(0xD800..0xE000).contains(&high) {
            return char::from_u32(high);
        }
        let low = (0xD800..0xDC00)
            .contains(&high)
            .then(|| self.rest().starts_with("\\u"))
            .filter(|&escaped| escaped)
            .and_then(|_| self.hex4(self.pos + 2))
            .filter(|low| (0xDC00..0xE000).contains(low));
        if let Some(low) = low {
            self.pos += 6;
            return char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
        }
        self.repair(RepairKind::InvalidEscape, self.pos - 6);
        Some('\u{fffd}')
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.bytes.get(at..at + 4)?;
        digits
            .iter()
            .try_fold(0u32, |acc, &b| Some(acc * 16 + char::from(b).to_digit(16)?))
    }

    pub(super) fn number(&mut self, place: Place) -> Result<Value, JsonError> {
        let start = self.pos;
        let end = start
            + self.bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
                .count();
        let raw = &self.text[start..end];
        // `1/3`, `1_000`, `2024-01-01T10:00`: not a number but text that starts with digits.
        let ends_number = |b: u8| {
            matches!(b, b'{' | b'[')
                || (b == b'/' && matches!(self.bytes.get(end + 1), Some(b'/' | b'*')))
                || (b != b'/' && is_delimiter(b))
        };
        if self.bytes.get(end).is_some_and(|b| !ends_number(*b)) {
            return self.word(place);
        }
        if let Some(value) = non_finite(raw) {
            self.repair(RepairKind::NonFiniteNumber, start);
            self.pos = end;
            return Ok(value);
        }
        if let Ok(number) = serde_json::from_str::<Number>(raw) {
            self.pos = end;
            return Ok(Value::Number(number));
        }
        match normalise_number(raw, end == self.bytes.len()) {
            Some(number) => {
                self.repair(RepairKind::NumberFormat, start);
                self.pos = end;
                Ok(Value::Number(number))
            }
            // Too large for a double (`1e999`): JSON has no infinity.
            None if raw.parse::<f64>().is_ok_and(f64::is_infinite) => {
                self.repair(RepairKind::NonFiniteNumber, start);
                self.pos = end;
                Ok(Value::Null)
            }
            // Not a number after all (a version "1.2.3", "05"): a bare word.
            None => self.word(place),
        }
    }

    /// A bare word: a keyword, or text without quotes.
    pub(super) fn word(&mut self, place: Place) -> Result<Value, JsonError> {
        let start = self.pos;
        let word = self.word_at(start);
        let word_end = start + word.len();
        let ends_input = word_end == self.bytes.len();
        let bounded = self.bytes.get(word_end).is_none_or(|b| is_delimiter(*b));
        if !word.is_empty() && bounded {
            if let Some((value, kind)) = keyword(word) {
                if let Some(kind) = kind {
                    self.repair(kind, start);
                }
                self.pos = word_end;
                return Ok(value);
            }
            if let Some(value) = keyword_prefix(word, ends_input) {
                self.repair(RepairKind::IncompleteKeyword, start);
                self.pos = word_end;
                return Ok(value);
            }
        }
        // Function-call wrappers models copy from code: `ObjectId("1")`, `callback({...})`.
        if !word.is_empty() && self.bytes.get(word_end) == Some(&b'(') {
            self.repair(RepairKind::LeadingText, start);
            self.pos = word_end + 1;
            let value = self.value(place)?;
            self.skip_space();
            if self.peek() == Some(b')') {
                self.pos += 1;
            }
            if place == Place::Top && self.peek() == Some(b';') {
                self.pos += 1;
            }
            return Ok(value);
        }
        // Prose alone is not JSON: a bare word is a string only inside a container.
        if place == Place::Top {
            return Err(self.error(start, "found no JSON value"));
        }
        let stops: &[char] = match place {
            Place::Top | Place::Key => &['\n'],
            Place::InObject => &[',', '}', '\n'],
            Place::InArray => &[',', ']', '\n'],
        };
        let len = self.rest().find(stops).unwrap_or(self.bytes.len() - start);
        let text = self.text[start..start + len].trim_end();
        if text.is_empty() {
            let found = self.peek_char().unwrap_or(' ');
            return Err(self.error(start, format!("expected a value, found `{found}`")));
        }
        let text = text.trim_end_matches(['"', '\'']);
        if text.is_empty()
            || !text
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || "_$/-.+".contains(c))
        {
            let found = self.peek_char().unwrap_or(' ');
            return Err(self.error(start, format!("expected a value, found `{found}`")));
        }
        self.repair(RepairKind::UnquotedString, start);
        self.pos = start + len;
        Ok(Value::String(text.to_owned()))
    }
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b',' | b'}' | b']' | b')' | b';' | b':' | b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'/'
    )
}

pub(super) fn is_quote(c: char) -> bool {
    matches!(
        c,
        '\u{2018}' | '\u{2019}' | '\u{201c}' | '\u{201d}' | '\u{b4}'
    )
}

/// A byte that is text in any string: printable ASCII other than a quote of any kind or a
/// backslash.
#[inline]
fn is_plain(b: u8) -> bool {
    matches!(b, b' '..=b'~') && !matches!(b, b'"' | b'\'' | b'`' | b'\\')
}

fn closes(open: char, c: char) -> bool {
    match open {
        '"' | '\'' => c == open,
        '`' | '\u{b4}' => matches!(c, '`' | '\u{b4}' | '\''),
        '\u{201c}' | '\u{201d}' => matches!(c, '\u{201c}' | '\u{201d}'),
        '\u{2018}' | '\u{2019}' => matches!(c, '\u{2018}' | '\u{2019}'),
        _ => false,
    }
}

pub(super) fn is_odd_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{180e}' | '\u{2000}'
            ..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// JSON keywords, Python's, and other spellings a model uses; the repair it needed, if any.
pub(super) fn keyword(word: &str) -> Option<(Value, Option<RepairKind>)> {
    Some(match word {
        "true" => (Value::Bool(true), None),
        "false" => (Value::Bool(false), None),
        "null" => (Value::Null, None),
        "True" | "TRUE" => (Value::Bool(true), Some(RepairKind::PythonLiteral)),
        "False" | "FALSE" => (Value::Bool(false), Some(RepairKind::PythonLiteral)),
        "None" | "NULL" | "Null" => (Value::Null, Some(RepairKind::PythonLiteral)),
        "undefined" => (Value::Null, Some(RepairKind::Undefined)),
        "NaN" | "Infinity" => (Value::Null, Some(RepairKind::NonFiniteNumber)),
        _ => return None,
    })
}

/// `tru`, `fal`, `nul` and shorter, cut off by the end of the input or a delimiter. A single
/// letter counts only at the end of the input.
fn keyword_prefix(word: &str, ends_input: bool) -> Option<Value> {
    [
        ("true", Value::Bool(true)),
        ("false", Value::Bool(false)),
        ("null", Value::Null),
    ]
    .into_iter()
    .find(|(keyword, _)| (ends_input || word.len() >= 2) && keyword.starts_with(word))
    .map(|(_, value)| value)
}

fn non_finite(raw: &str) -> Option<Value> {
    matches!(
        raw,
        "NaN" | "-NaN" | "+NaN" | "Infinity" | "-Infinity" | "+Infinity"
    )
    .then_some(Value::Null)
}

/// `+1` → `1`, `.5` → `0.5`, `2.` → `2.0`, `1e` / `1e+` → `1`, and `-` alone (at the end of the
/// input) → `-0`. `None` for anything else that is not a number, including leading zeros.
fn normalise_number(raw: &str, at_end: bool) -> Option<Number> {
    let (sign, digits) = match raw.as_bytes().first()? {
        b'+' => ("", &raw[1..]),
        b'-' => ("-", &raw[1..]),
        _ => ("", raw),
    };
    if digits.is_empty() {
        return (at_end && sign == "-")
            .then(|| Number::from_f64(-0.0))
            .flatten();
    }
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(e) => (&digits[..e], &digits[e + 1..]),
        None => (digits, ""),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int)
        || !frac.is_none_or(all_digits)
        || (int.is_empty() && frac.is_none_or(str::is_empty))
    {
        return None;
    }
    if int.len() > 1 && int.starts_with('0') {
        return None;
    }
    let exponent_digits = exponent.trim_start_matches(['+', '-']);
    if !all_digits(exponent_digits) || exponent.len() - exponent_digits.len() > 1 {
        return None;
    }
    let mut text = String::with_capacity(raw.len() + 3);
    text.push_str(sign);
    text.push_str(if int.is_empty() { "0" } else { int });
    if let Some(frac) = frac {
        text.push('.');
        text.push_str(if frac.is_empty() { "0" } else { frac });
    }
    if !exponent_digits.is_empty() {
        text.push('e');
        text.push_str(exponent);
    }
    serde_json::from_str(&text).ok()
}
