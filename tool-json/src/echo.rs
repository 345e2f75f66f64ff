//! What a model sent, shown back to it: bounded, and with control characters escaped.
//!
//! Names, keys and ids come from the model (or whoever wrote the request) and can be of any
//! length and hold any character. Text for the model shows at most [`MAX_NAME`] characters of
//! one, says how long it was when it is cut, and writes control characters (NUL, ESC, CR, LF,
//! ...) as JSON escapes, so that nothing sent can make the model's text arbitrarily large or
//! reshape it. Plain data: this module imports nothing from the crate.

use std::borrow::Cow;
use std::fmt::{self, Write};

/// The most characters of one name, key or id shown in text for the model.
pub const MAX_NAME: usize = 64;

/// A name, key or id in backticks for text for the model: `` `get_weather` ``, or cut and
/// escaped, `` `aaaa…` (5000000 characters) ``.
pub struct Name<'a>(pub &'a str);

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('`')?;
        let total = write_cut(f, self.0, MAX_NAME)?;
        f.write_char('`')?;
        match total {
            Some(total) => write!(f, " ({total} characters)"),
            None => Ok(()),
        }
    }
}

/// `name` as it is when it is short and holds no control character; otherwise escaped and cut
/// to [`MAX_NAME`] characters (ending in `…`), without the length.
pub fn bare(name: &str) -> Cow<'_, str> {
    if is_plain(name) {
        return Cow::Borrowed(name);
    }
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_cut(&mut out, name, MAX_NAME);
    Cow::Owned(out)
}

/// Whether `name` can be shown as it is: at most [`MAX_NAME`] characters, none of them control
/// characters.
pub fn is_plain(name: &str) -> bool {
    let mut count = 0;
    name.chars().all(|c| {
        count += 1;
        count <= MAX_NAME && !c.is_control()
    })
}

/// A key as a JSON string (control characters escaped the JSON way), cut to [`MAX_NAME`]
/// characters with its length stated: `"aaaa…" (5000000 characters)`.
pub fn quoted(key: &str) -> String {
    let total = key.chars().count();
    if total <= MAX_NAME {
        return serde_json::Value::from(key).to_string();
    }
    let shown: String = key.chars().take(MAX_NAME).chain(['…']).collect();
    format!("{} ({total} characters)", serde_json::Value::from(shown))
}

/// Writes at most `max` characters of `text`, control characters escaped, and `…` when cut;
/// returns the whole length in characters when it was cut.
fn write_cut(out: &mut impl Write, text: &str, max: usize) -> Result<Option<usize>, fmt::Error> {
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.write_char('…')?;
            return Ok(Some(text.chars().count()));
        }
        match c {
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c if c.is_control() => write!(out, "\\u{:04x}", u32::from(c))?,
            c => out.write_char(c)?,
        }
    }
    Ok(None)
}

/// `text` cut to at most about `max_bytes` (on a character boundary), with the whole length
/// stated when cut: for long text quoted in messages for the application.
pub fn cut(text: &str, max_bytes: usize) -> Cow<'_, str> {
    if text.len() <= max_bytes {
        return Cow::Borrowed(text);
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}… ({} bytes in all)", &text[..end], text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_shown_as_they_are() {
        assert_eq!(Name("get_weather").to_string(), "`get_weather`");
        assert_eq!(bare("city"), "city");
        assert!(matches!(bare("é".repeat(64).as_str()), Cow::Borrowed(_)));
    }

    #[test]
    fn long_names_are_cut_with_their_length() {
        let long = "x".repeat(5_000_000);
        let shown = Name(&long).to_string();
        assert_eq!(
            shown,
            format!("`{}…` (5000000 characters)", "x".repeat(MAX_NAME))
        );
        assert_eq!(bare(&long), format!("{}…", "x".repeat(MAX_NAME)));
        assert_eq!(
            quoted(&long),
            format!("\"{}…\" (5000000 characters)", "x".repeat(MAX_NAME))
        );
        assert_eq!(quoted("a\nb"), r#""a\nb""#);
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            Name("a\0b\x1b[31mc\r\nd\te").to_string(),
            r"`a\u0000b\u001b[31mc\r\nd\te`"
        );
        assert_eq!(bare("x\u{85}"), r"x\u0085");
    }

    #[test]
    fn text_is_cut_on_a_character_boundary() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("ééé", 3), "é… (6 bytes in all)");
    }
}
