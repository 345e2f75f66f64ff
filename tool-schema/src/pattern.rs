//! `pattern` and `patternProperties`: JSON Schema patterns are ECMA-262 regular expressions.
//! They are translated where ECMA-262 and `regex-lite` read the same text differently, then
//! compiled by `regex-lite`:
//! - `.` matches anything but a line terminator (`\n`, `\r`, U+2028, U+2029), not only `\n`;
//! - `\s` (and `\S`) is ECMA-262's white space and line terminators, Unicode spaces and U+FEFF
//!   included, not ASCII's six;
//! - `\cX` is a control character, `\0` the NUL character;
//! - `[`, `&` and `~` inside a class are plain characters (no nested classes or set operations).
//!
//! `\d`, `\w` and `\b` are ASCII in both. Unicode property classes (`\p{Letter}`), look-around
//! and back-references do not compile: the schema lists such a pattern as unsupported.

/// ECMA-262's `\s`, as the members of a class.
#[cfg(feature = "patterns")]
const SPACE: &str = r"\t\n\x0B\x0C\r\x20\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

#[cfg(feature = "patterns")]
const ANYTHING: &str = r"[\x00-\x{10FFFF}]";
#[cfg(feature = "patterns")]
const NOTHING: &str = r"[^\x00-\x{10FFFF}]";

#[cfg(feature = "patterns")]
pub use regex_lite::Regex;

/// A compiled pattern, of which there is none without the feature `patterns`: every pattern is
/// then listed as unsupported.
#[cfg(not(feature = "patterns"))]
#[derive(Debug, Clone)]
pub enum Regex {}

#[cfg(not(feature = "patterns"))]
impl Regex {
    /// Never called: there is no value of this type.
    pub fn is_match(&self, _text: &str) -> bool {
        match *self {}
    }
}

/// Compiles an ECMA-262 pattern; `None` when it uses what cannot be translated, and always
/// without the feature `patterns`.
#[cfg(feature = "patterns")]
pub fn compile(source: &str) -> Option<Regex> {
    regex_lite::Regex::new(&translate(source)).ok()
}

/// Compiles an ECMA-262 pattern; `None` when it uses what cannot be translated, and always
/// without the feature `patterns`.
#[cfg(not(feature = "patterns"))]
pub fn compile(_source: &str) -> Option<Regex> {
    None
}

#[cfg(feature = "patterns")]
fn translate(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 16);
    let mut chars = source.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                match next {
                    's' if in_class => out.push_str(SPACE),
                    's' => {
                        out.push('[');
                        out.push_str(SPACE);
                        out.push(']');
                    }
                    'S' => {
                        out.push_str("[^");
                        out.push_str(SPACE);
                        out.push(']');
                    }
                    'c' if chars.peek().is_some_and(char::is_ascii_alphabetic) => {
                        let letter = chars.next().unwrap_or('@');
                        out.push_str(&format!("\\x{{{:02X}}}", u32::from(letter) % 32));
                    }
                    '0' if !chars.peek().is_some_and(char::is_ascii_digit) => {
                        out.push_str(r"\x00");
                    }
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '.' if !in_class => out.push_str(r"[^\n\r\x{2028}\x{2029}]"),
            '[' if !in_class => {
                let negated = chars.peek() == Some(&'^');
                if negated {
                    chars.next();
                }
                // ECMA-262's `[]` matches nothing and `[^]` anything.
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str(if negated { ANYTHING } else { NOTHING });
                    continue;
                }
                in_class = true;
                out.push_str(if negated { "[^" } else { "[" });
            }
            '[' | '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(all(test, feature = "patterns"))]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        compile(pattern).expect("compiles").is_match(text)
    }

    #[test]
    fn ecma_262_semantics() {
        assert!(!matches("^.$", "\r"));
        assert!(!matches("^.$", "\u{2028}"));
        assert!(matches("^.$", "\u{e9}"));
        assert!(matches(r"^\s$", "\u{feff}"));
        assert!(matches(r"^\s$", "\u{3000}"));
        assert!(!matches(r"^\S$", "\u{a0}"));
        assert!(matches(r"^[\s]$", "\u{2003}"));
        assert!(matches(r"^\cC$", "\u{3}"));
        assert!(matches(r"^\cc$", "\u{3}"));
        assert!(matches(r"^\d$", "7"));
        assert!(!matches(r"^\d$", "\u{967}"));
        assert!(!matches(r"^\w$", "\u{e9}"));
        assert!(matches("^[a[]$", "["));
        assert!(matches("^[a&&b]+$", "&&"));
        assert!(!matches("^[]$", "a"));
        assert!(matches("^[^]$", "\n"));
        assert!(compile(r"\p{Letter}").is_none());
    }
}
