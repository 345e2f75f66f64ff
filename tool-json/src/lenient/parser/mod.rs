//! The lenient parser itself: one forward pass over the input.

use serde_json::{Map, Value};

mod scalars;

use self::scalars::{is_odd_space, is_quote, keyword};
use super::{JsonError, Repair, RepairKind, Repaired};

pub(super) fn parse(text: &str, max_depth: usize) -> Result<Repaired, JsonError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
        max_depth,
        repairs: Vec::new(),
        backtracked: false,
    };
    let value = parser.document()?;
    // Closing repairs are found at the end of what they close: put all in input order.
    if !parser.repairs.is_sorted_by_key(|repair| repair.offset) {
        parser.repairs.sort_by_key(|repair| repair.offset);
    }
    Ok(Repaired {
        value,
        repairs: parser.repairs,
    })
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    repairs: Vec<Repair>,
    backtracked: bool,
}

/// Where a bare word ends: depends on whether it is a key, an object value or an array element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Top,
    Key,
    InObject,
    InArray,
}

const FENCE: &str = "```";

#[derive(Clone, Copy)]
enum Container {
    Object,
    Array,
}

/// What comes next inside a container.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Element,
    End,
}

impl Parser<'_> {
    fn repair(&mut self, kind: RepairKind, offset: usize) {
        self.repairs.push(Repair { kind, offset });
    }

    fn error(&self, offset: usize, reason: impl Into<String>) -> JsonError {
        JsonError::at(self.text, offset, reason)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_char(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    /// Skips whitespace (including the Unicode spaces models emit) and comments.
    #[inline]
    fn skip_space(&mut self) {
        // Most calls find a token at once: printable ASCII other than `/`.
        if let Some(b'!'..=b'.' | b'0'..=b'~') = self.peek() {
            return;
        }
        self.skip_space_slow();
    }

    #[inline(never)]
    fn skip_space_slow(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'/') => {
                    self.repair(RepairKind::Comment, self.pos);
                    self.skip_line();
                }
                Some(b'/') if self.bytes.get(self.pos + 1) == Some(&b'*') => {
                    self.repair(RepairKind::Comment, self.pos);
                    match self.rest()[2..].find("*/") {
                        Some(end) => self.pos += 2 + end + 2,
                        None => self.pos = self.bytes.len(),
                    }
                }
                Some(b) if b >= 0x80 => match self.peek_char() {
                    Some(c) if is_odd_space(c) => {
                        self.repair(RepairKind::Whitespace, self.pos);
                        self.pos += c.len_utf8();
                    }
                    _ => return,
                },
                _ => return,
            }
        }
    }

    fn skip_line(&mut self) {
        match self.rest().find('\n') {
            Some(end) => self.pos += end + 1,
            None => self.pos = self.bytes.len(),
        }
    }

    /// Skips a code fence and its language tag, if one starts here.
    fn skip_fence(&mut self) -> bool {
        if !self.rest().starts_with(FENCE) {
            return false;
        }
        self.repair(RepairKind::CodeFence, self.pos);
        self.pos += FENCE.len();
        let tag = self
            .rest()
            .bytes()
            .take_while(u8::is_ascii_alphanumeric)
            .count();
        self.pos += tag;
        true
    }

    fn document(&mut self) -> Result<Value, JsonError> {
        if self.rest().starts_with('\u{feff}') {
            self.repair(RepairKind::Whitespace, 0);
            self.pos += '\u{feff}'.len_utf8();
        }
        self.skip_space();
        let mut fenced = self.skip_fence();
        self.skip_space();
        // A markdown list bullet before the JSON: `- {..}`.
        if self.rest().starts_with("- ") || self.rest().starts_with("* ") {
            let after = self.rest()[2..].trim_start();
            if after.starts_with(['{', '[']) {
                let json_at = self.bytes.len() - after.len();
                self.repair(RepairKind::LeadingText, self.pos);
                self.pos = json_at;
            }
        }
        if !self.at_value_start() {
            // Prose before the JSON: skip to a fence, or else to the first bracket.
            let start = self.pos;
            let fence = self.rest().find(FENCE);
            let bracket = self.rest().find(['{', '[']);
            match (fence, bracket) {
                (Some(f), b) if b.is_none_or(|b| f < b) => {
                    self.repair(RepairKind::LeadingText, start);
                    self.pos += f;
                    fenced = self.skip_fence();
                    self.skip_space();
                }
                (_, Some(b)) => {
                    self.repair(RepairKind::LeadingText, start);
                    self.pos += b;
                }
                _ if !self.at_end() && !self.at_word_start() => {
                    return Err(self.error(self.pos, "found no JSON value"));
                }
                _ => {}
            }
        }
        if self.at_end() || self.rest().starts_with(FENCE) {
            return Err(self.error(self.pos, "found no JSON value"));
        }
        let value = self.value(Place::Top)?;
        self.skip_space();
        if fenced && self.rest().starts_with(FENCE) {
            self.repair(RepairKind::CodeFence, self.pos);
            self.pos += FENCE.len();
            self.skip_space();
        }
        while self.peek() == Some(b',') || self.peek() == Some(b';') {
            self.pos += 1;
            self.skip_space();
        }
        if !self.at_end() {
            self.repair(RepairKind::TrailingText, self.pos);
        }
        Ok(value)
    }

    fn at_value_start(&self) -> bool {
        match self.peek() {
            Some(b'`') => !self.rest().starts_with(FENCE),
            Some(b'{' | b'[' | b'"' | b'\'' | b'-' | b'+' | b'.' | b'0'..=b'9') => true,
            Some(b'\\') => self.bytes.get(self.pos + 1) == Some(&b'"'),
            Some(b) if b >= 0x80 => self.peek_char().is_some_and(is_quote),
            Some(_) => self.at_keyword(),
            None => false,
        }
    }

    /// A JSON or Python keyword (complete, or cut off by the end of the input) starts here.
    fn at_keyword(&self) -> bool {
        let word = self.word_at(self.pos);
        !word.is_empty() && (keyword(word).is_some() || self.pos + word.len() == self.bytes.len())
    }

    fn at_word_start(&self) -> bool {
        self.peek()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
    }

    fn word_at(&self, at: usize) -> &str {
        let len = self.bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        &self.text[at..at + len]
    }

    fn value(&mut self, place: Place) -> Result<Value, JsonError> {
        self.skip_space();
        match self.peek() {
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"' | b'\'' | b'`') => self.string_value(place),
            Some(b'-' | b'+' | b'.' | b'0'..=b'9') => self.number(place),
            Some(b) if b >= 0x80 && self.peek_char().is_some_and(is_quote) => {
                self.string_value(place)
            }
            Some(b'\\') if self.bytes.get(self.pos + 1) == Some(&b'"') => self.string_value(place),
            Some(_) => self.word(place),
            None => Err(self.error(self.pos, "expected a value, found the end of the input")),
        }
    }

    fn nested(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<Value, JsonError>,
    ) -> Result<Value, JsonError> {
        if self.depth >= self.max_depth {
            return Err(self.error(
                self.pos,
                format!("nesting deeper than the limit of {}", self.max_depth),
            ));
        }
        self.depth += 1;
        let value = inner(self);
        self.depth -= 1;
        value
    }

    /// Between the elements of an object or array: skips separators, repairing stray, trailing
    /// and missing commas and `...` placeholders, and says whether the container ends here (its
    /// own closer; or, left open, the end of the input, a fence, or a bracket that belongs to an
    /// enclosing container or starts its next element).
    fn between(&mut self, open: usize, container: Container, after_element: &mut bool) -> Step {
        let (closer, unclosed) = match container {
            Container::Object => (b'}', RepairKind::UnclosedObject),
            Container::Array => (b']', RepairKind::UnclosedArray),
        };
        loop {
            self.skip_space();
            let Some(b) = self.peek() else {
                self.repair(unclosed, open);
                return Step::End;
            };
            if b == closer {
                self.pos += 1;
                return Step::End;
            }
            let foreign = match container {
                Container::Object => matches!(b, b']' | b'{' | b'['),
                Container::Array => b == b'}',
            };
            if foreign || (b == b'`' && self.rest().starts_with(FENCE)) {
                self.repair(unclosed, open);
                return Step::End;
            }
            if b == b',' {
                let at = self.pos;
                self.pos += 1;
                self.skip_space();
                if !*after_element {
                    self.repair(RepairKind::StrayComma, at);
                } else if matches!(self.peek(), Some(b'}' | b']') | None) {
                    self.repair(RepairKind::TrailingComma, at);
                }
                *after_element = false;
                continue;
            }
            if b == b'.' && self.rest().starts_with("...") {
                self.repair(RepairKind::TrailingText, self.pos);
                self.pos += 3;
                continue;
            }
            if *after_element {
                self.repair(RepairKind::MissingComma, self.pos);
            }
            return Step::Element;
        }
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        let open = self.pos;
        self.pos += 1;
        let mut map = Map::new();
        let mut after_member = false;
        loop {
            if self.between(open, Container::Object, &mut after_member) == Step::End {
                return Ok(Value::Object(map));
            }
            let key_at = self.pos;
            let Some(key) = self.key()? else {
                self.cut_off(key_at, open);
                return Ok(Value::Object(map));
            };
            self.skip_space();
            match self.peek() {
                Some(b':') => self.pos += 1,
                Some(b'=') => {
                    self.repair(RepairKind::MissingColon, self.pos);
                    self.pos += 1;
                }
                None => {
                    self.cut_off(key_at, open);
                    return Ok(Value::Object(map));
                }
                Some(b',' | b'}' | b']') => {
                    return Err(self.error(
                        self.pos,
                        format!("expected `:` and a value after the key {key:?}"),
                    ));
                }
                Some(_) => self.repair(RepairKind::MissingColon, self.pos),
            }
            self.skip_space();
            match self.peek() {
                None => {
                    self.cut_off(key_at, open);
                    return Ok(Value::Object(map));
                }
                Some(b',' | b'}') => {
                    self.repair(RepairKind::MissingValue, key_at);
                    after_member = true;
                    continue;
                }
                _ if self.rest().starts_with(FENCE) => {
                    self.cut_off(key_at, open);
                    return Ok(Value::Object(map));
                }
                _ => {}
            }
            let value = self.value(Place::InObject)?;
            if map.insert(key, value).is_some() {
                self.repair(RepairKind::DuplicateKey, key_at);
            }
            after_member = true;
        }
    }

    /// The input ended inside a member: it is dropped, and its object closed.
    fn cut_off(&mut self, member_at: usize, object_at: usize) {
        self.repair(RepairKind::TruncatedMember, member_at);
        self.repair(RepairKind::UnclosedObject, object_at);
    }

    /// An object key; `None` when the input ends inside it.
    fn key(&mut self) -> Result<Option<String>, JsonError> {
        let start = self.pos;
        match self.peek() {
            Some(b'"' | b'\'' | b'`') => self.string(Place::Key).map(|s| {
                Some(s).filter(|_| {
                    !self
                        .repairs
                        .last()
                        .is_some_and(|r| r.kind == RepairKind::UnclosedString && r.offset >= start)
                })
            }),
            Some(b) if b >= 0x80 && self.peek_char().is_some_and(is_quote) => {
                self.string(Place::Key).map(Some)
            }
            Some(b'\\') if self.bytes.get(self.pos + 1) == Some(&b'"') => {
                self.string(Place::Key).map(Some)
            }
            _ => {
                let len = self.rest().find(|c: char| {
                    matches!(c, ':' | ',' | '{' | '}' | '[' | ']' | '"' | '\'' | '=')
                        || c.is_whitespace()
                        || c.is_control()
                });
                let len = len.unwrap_or(self.bytes.len() - self.pos);
                if len == 0 {
                    let found = self.peek_char().unwrap_or(' ');
                    return Err(self.error(self.pos, format!("expected a key, found `{found}`")));
                }
                if self.pos + len == self.bytes.len() {
                    return Ok(None);
                }
                self.repair(RepairKind::UnquotedKey, start);
                let key = self.text[start..start + len].to_owned();
                self.pos += len;
                Ok(Some(key))
            }
        }
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        let open = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        let mut after_item = false;
        loop {
            if self.between(open, Container::Array, &mut after_item) == Step::End {
                return Ok(Value::Array(items));
            }
            items.push(self.value(Place::InArray)?);
            after_item = true;
        }
    }
}
