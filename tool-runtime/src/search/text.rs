//! Text into search terms: words split where a name's parts meet (`_`, `.`, `-`, a change of
//! case, letters and digits), lowercased, common English words left out, and each word cut to
//! its stem so that `orders`, `ordered` and `ordering` meet at `order`.

/// Words too common to tell tools apart: the list, and a `match` on it (a match compares the
/// length first, so most words cost one comparison).
macro_rules! stop_words {
    ($($word:literal)*) => {
        #[cfg(test)]
        const STOP: &[&str] = &[$($word),*];

        fn is_stop(word: &str) -> bool {
            matches!(word, $($word)|*)
        }
    };
}

stop_words! {
    "a" "about" "after" "all" "also" "an" "and" "any" "are" "as" "at" "be" "been" "by" "can"
    "could" "do" "does" "each" "for" "from" "given" "has" "have" "how" "i" "if" "in" "into" "is"
    "it" "its" "me" "my" "of" "on" "or" "our" "please" "should" "so" "some" "such" "than" "that"
    "the" "their" "them" "then" "there" "these" "this" "those" "to" "us" "was" "we" "were"
    "what" "when" "where" "which" "while" "who" "will" "with" "would" "you" "your"
}

/// The terms of `text`, in order, each passed to `each`.
pub(crate) fn terms(text: &str, mut each: impl FnMut(&str)) {
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if !word.is_empty() {
            if !is_stop(word) {
                each(stem(word));
            }
            word.clear();
        }
    };
    if text.is_ascii() {
        // Byte by byte, without decoding: builds read megabytes of names and descriptions.
        let bytes = text.as_bytes();
        for (at, &c) in bytes.iter().enumerate() {
            if !c.is_ascii_alphanumeric() {
                flush(&mut word);
                continue;
            }
            if let Some(&before) = at.checked_sub(1).and_then(|i| bytes.get(i))
                && before.is_ascii_alphanumeric()
            {
                let next = bytes.get(at + 1).map(|&n| char::from(n));
                if meet(char::from(before), char::from(c), next) {
                    flush(&mut word);
                }
            }
            word.push(char::from(c.to_ascii_lowercase()));
        }
        flush(&mut word);
        return;
    }
    let mut chars = text.chars().peekable();
    let mut before: Option<char> = None;
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            flush(&mut word);
            before = None;
            continue;
        }
        if before.is_some_and(|before| meet(before, c, chars.peek().copied())) {
            flush(&mut word);
        }
        word.extend(c.to_lowercase());
        before = Some(c);
    }
    flush(&mut word);
}

/// Whether two letters or digits side by side are where a name's parts meet: `getWeather`,
/// `HTTPServer` (before the last capital), `sha256`.
#[inline]
fn meet(before: char, c: char, next: Option<char>) -> bool {
    (before.is_lowercase() && c.is_uppercase())
        || (before.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
        || before.is_alphabetic() != c.is_alphabetic()
}

/// The stem of a lowercased word: plural and verb endings cut (a light Porter step 1, enough
/// for names and one-line descriptions).
pub(crate) fn stem(word: &str) -> &str {
    if word.len() <= 3 || !word.is_ascii() {
        return word;
    }
    let cut = |suffix: &str| &word[..word.len() - suffix.len()];
    let has_vowel = |stem: &str| stem.bytes().any(|b| b"aeiouy".contains(&b));
    if let Some(base) = word.strip_suffix("ies")
        && base.len() >= 2
    {
        // `queries` -> `quer`, as `query` -> `quer`.
        return base;
    }
    if word.ends_with("sses") {
        return cut("es");
    }
    for suffix in ["ing", "ed"] {
        if let Some(base) = word.strip_suffix(suffix)
            && base.len() >= 3
            && has_vowel(base)
        {
            // `stopped` -> `stop`; `created` -> `creat` (as `creates` -> `creat`).
            let bytes = base.as_bytes();
            let n = bytes.len();
            if bytes[n - 1] == bytes[n - 2] && !b"lsz".contains(&bytes[n - 1]) {
                return &base[..n - 1];
            }
            return base.strip_suffix('e').unwrap_or(base);
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        let base = cut("s");
        return base
            .strip_suffix('e')
            .filter(|b| b.len() >= 3)
            .unwrap_or(base);
    }
    if let Some(base) = word.strip_suffix('y')
        && !base.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        return base;
    }
    word.strip_suffix('e')
        .filter(|b| b.len() >= 3)
        .unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        terms(text, |t| out.push(t.to_owned()));
        out
    }

    #[test]
    fn names_split_where_their_parts_meet() {
        assert_eq!(all("get_weather"), ["get", "weather"]);
        assert_eq!(all("ChaDri.change_drink"), ["cha", "dri", "chang", "drink"]);
        assert_eq!(all("HTTPServerConfig"), ["http", "server", "config"]);
        assert_eq!(all("sha256Sum"), ["sha", "256", "sum"]);
        assert_eq!(all("find-orders"), ["find", "order"]);
    }

    #[test]
    fn words_meet_at_their_stems() {
        for (a, b) in [
            ("orders", "order"),
            ("ordered", "ordering"),
            ("creates", "created"),
            ("stopped", "stop"),
            ("queries", "query"),
            ("addresses", "address"),
            ("changes", "change"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("analysis"), "analysis");
    }

    #[test]
    fn the_common_words_are_each_left_out() {
        assert!(STOP.iter().all(|word| is_stop(word)));
        assert!(!is_stop("weather") && !is_stop(""));
    }

    #[test]
    fn common_words_are_left_out() {
        assert_eq!(all("What is the weather in Paris?"), ["weather", "paris"]);
    }
}
