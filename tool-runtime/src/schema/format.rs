//! The `format` keyword: integer widths (as schemars writes them) and the string formats a
//! model is shown. Unknown formats only annotate, as JSON Schema says.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Format {
    /// `int8` .. `uint64`, `int`, `uint`: an integer within these bounds.
    Integer {
        min: i128,
        max: i128,
    },
    DateTime,
    Date,
    Time,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    JsonPointer,
    Duration,
    Uuid,
    /// Any other format (`float`, `double`, `regex`, ...): an annotation.
    Other,
}

impl Format {
    pub(crate) fn named(name: &str) -> Format {
        let int = |min: i128, max: i128| Format::Integer { min, max };
        match name {
            "int8" => int(i8::MIN.into(), i8::MAX.into()),
            "int16" => int(i16::MIN.into(), i16::MAX.into()),
            "int32" => int(i32::MIN.into(), i32::MAX.into()),
            "int64" | "int" => int(i64::MIN.into(), i64::MAX.into()),
            "uint8" => int(0, u8::MAX.into()),
            "uint16" => int(0, u16::MAX.into()),
            "uint32" => int(0, u32::MAX.into()),
            "uint64" | "uint" => int(0, u64::MAX.into()),
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uri" => Format::Uri,
            "uri-reference" => Format::UriReference,
            "json-pointer" => Format::JsonPointer,
            "duration" => Format::Duration,
            "uuid" => Format::Uuid,
            _ => Format::Other,
        }
    }

    /// The bounds an integer format implies, as schemars writes them in `minimum`/`maximum`.
    pub(crate) fn integer_range(&self) -> Option<(i128, i128)> {
        match self {
            Format::Integer { min, max } => Some((*min, *max)),
            _ => None,
        }
    }

    pub(crate) fn is_checked(&self) -> bool {
        *self != Format::Other
    }

    /// For messages: `in RFC 3339 date-time form`, ...
    pub(crate) fn describe(&self) -> Option<String> {
        Some(
            match self {
                Format::Integer { .. } | Format::Other => return None,
                Format::DateTime => "in RFC 3339 date-time form (2024-05-01T13:45:00Z)",
                Format::Date => "in YYYY-MM-DD form",
                Format::Time => "in HH:MM:SS form with an offset (13:45:00Z)",
                Format::Email => "that is an email address",
                Format::Hostname => "that is a host name",
                Format::Ipv4 => "that is an IPv4 address",
                Format::Ipv6 => "that is an IPv6 address",
                Format::Uri => "that is an absolute URI (scheme:...)",
                Format::UriReference => "that is a URI reference",
                Format::JsonPointer => "that is a JSON pointer (/a/b)",
                Format::Duration => "that is an ISO 8601 duration (P1DT2H)",
                Format::Uuid => "that is a UUID",
            }
            .to_owned(),
        )
    }

    /// Whether a value satisfies the format; formats apply to their own type only.
    pub(crate) fn check(&self, value: &Value) -> bool {
        match value {
            Value::Number(n) => self.check_number(n),
            Value::String(s) => self.check_str(s),
            _ => true,
        }
    }

    /// [`check`](Self::check) for a number.
    pub(crate) fn check_number(&self, n: &serde_json::Number) -> bool {
        match self {
            Format::Integer { min, max } => {
                match n
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from))
                {
                    Some(n) => (*min..=*max).contains(&n),
                    // An integral float (`-8.4e21`): within the bounds as a float. Beyond 2^53
                    // floats are spaced wider than 1, so a float at a bound there may stand for
                    // an integer just past it (`-9223372036854775809` reads as -2^63, and
                    // `i64::MAX` rounds up to 2^63): only floats strictly inside count.
                    #[allow(clippy::cast_precision_loss)]
                    None => n.as_f64().is_some_and(|f| {
                        let (low, high) = (*min as f64, *max as f64);
                        let exact = |bound: f64| bound.abs() <= 9_007_199_254_740_992.0;
                        (if exact(low) { f >= low } else { f > low })
                            && (if exact(high) { f <= high } else { f < high })
                    }),
                }
            }
            _ => true,
        }
    }

    pub(crate) fn check_str(&self, s: &str) -> bool {
        match self {
            Format::DateTime => s
                .split_once(['T', 't'])
                .is_some_and(|(date, time)| is_date(date) && is_time(time)),
            Format::Date => is_date(s),
            Format::Time => is_time(s),
            Format::Duration => is_duration(s),
            Format::Email => is_email(s),
            Format::Hostname => is_hostname(s),
            Format::Ipv4 => s.parse::<Ipv4Addr>().is_ok(),
            Format::Ipv6 => s.parse::<Ipv6Addr>().is_ok(),
            Format::Uri => uri::is_uri(s, true),
            Format::UriReference => uri::is_uri(s, false),
            Format::JsonPointer => is_json_pointer(s),
            Format::Uuid => {
                let groups: Vec<&str> = s.split('-').collect();
                groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
                    && groups
                        .iter()
                        .all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
            }
            Format::Integer { .. } | Format::Other => true,
        }
    }
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn is_date(s: &str) -> bool {
    let mut parts = s.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(year), Some(month), Some(day)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac]` and `Z` or `±HH:MM`; a leap second (`:60`) only at
/// 23:59 UTC.
fn is_time(s: &str) -> bool {
    let (clock, offset) = match s.find(['Z', 'z', '+', '-']) {
        Some(at) => s.split_at(at),
        None => return false,
    };
    // Minutes east of UTC.
    let offset_minutes = if matches!(offset, "Z" | "z") {
        Some(0)
    } else if offset.len() == 6 {
        offset[1..].split_once(':').and_then(|(h, m)| {
            let h = digits(h, 2).filter(|h| *h < 24)?;
            let m = digits(m, 2).filter(|m| *m < 60)?;
            let minutes = i64::from(h * 60 + m);
            Some(if offset.starts_with('-') {
                -minutes
            } else {
                minutes
            })
        })
    } else {
        None
    };
    let Some(offset_minutes) = offset_minutes else {
        return false;
    };
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let mut parts = clock.split(':');
    let (Some(h), Some(m), Some(sec), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(h), Some(m), Some(sec)) = (
        digits(h, 2).filter(|h| *h < 24),
        digits(m, 2).filter(|m| *m < 60),
        digits(sec, 2).filter(|s| *s <= 60),
    ) else {
        return false;
    };
    let utc = (i64::from(h * 60 + m) - offset_minutes).rem_euclid(24 * 60);
    !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && (sec < 60 || utc == 23 * 60 + 59)
}

/// RFC 3339 appendix A: `P1Y2M3DT4H5M6S`, `P2W`; the units in order, without gaps.
fn is_duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('P') else {
        return false;
    };
    if let Some(weeks) = rest.strip_suffix('W') {
        return !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    let units = |part: &str, order: &[u8]| -> Option<usize> {
        // The units written, as positions in `order`: consecutive, each once, in order.
        let mut last: Option<usize> = None;
        let mut count = 0;
        let mut number = false;
        for b in part.bytes() {
            if b.is_ascii_digit() {
                number = true;
                continue;
            }
            let at = order.iter().position(|u| *u == b)?;
            if !number || last.is_some_and(|last| at != last + 1) {
                return None;
            }
            last = Some(at);
            number = false;
            count += 1;
        }
        (!number).then_some(count)
    };
    let Some(date_units) = units(date, b"YMD") else {
        return false;
    };
    match time {
        None => date_units > 0,
        Some(time) => units(time, b"HMS").is_some_and(|n| n > 0),
    }
}

/// RFC 6901: empty, or `/`-separated tokens where `~` is always `~0` or `~1`.
fn is_json_pointer(s: &str) -> bool {
    (s.is_empty() || s.starts_with('/'))
        && s.split('~')
            .skip(1)
            .all(|after| after.starts_with(['0', '1']))
}

/// RFC 5321 `Mailbox`: a dot-atom or quoted local part, `@`, a host name or an address
/// literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
fn is_email(s: &str) -> bool {
    let (local, domain) = if s.starts_with('"') {
        // A quoted local part may hold `@`: it ends at the closing quote.
        let bytes = s.as_bytes();
        let mut i = 1;
        let mut end = None;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if i + 1 < bytes.len() && (32..=126).contains(&bytes[i + 1]) => i += 2,
                b'"' => {
                    end = Some(i);
                    break;
                }
                b if (32..=126).contains(&b) && b != b'\\' => i += 1,
                _ => return false,
            }
        }
        let Some(end) = end else {
            return false;
        };
        match s[end + 1..].strip_prefix('@') {
            Some(domain) => (&s[..=end], domain),
            None => return false,
        }
    } else {
        let Some((local, domain)) = s.rsplit_once('@') else {
            return false;
        };
        let atext = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b);
        if !local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.bytes().all(atext))
        {
            return false;
        }
        (local, domain)
    };
    if local.is_empty() {
        return false;
    }
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<Ipv6Addr>().is_ok(),
            None => literal.parse::<Ipv4Addr>().is_ok(),
        },
        None => is_hostname(domain),
    }
}

/// RFC 1123 host names (no trailing dot), with A-labels (`xn--`) that must decode as Punycode
/// to a label that is not plain ASCII, has no `--` in its 3rd and 4th places, and keeps IDNA
/// 2008's rules (`idna`).
fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            let ldh = !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if !ldh {
                return false;
            }
            let lower = label.to_ascii_lowercase();
            match lower.strip_prefix("xn--") {
                Some(encoded) => punycode::decode(encoded).is_some_and(|decoded| {
                    let hyphens = decoded.get(2..4) == Some(&['-', '-'][..]);
                    !decoded.is_empty()
                        && !decoded.iter().all(char::is_ascii)
                        && !hyphens
                        && decoded.first() != Some(&'-')
                        && decoded.last() != Some(&'-')
                        && super::idna::label_ok(&decoded)
                }),
                // `--` in the 3rd and 4th places is reserved for such encodings.
                None => lower.get(2..4) != Some("--"),
            }
        })
}

/// Punycode (RFC 3492) decoding, for A-labels.
mod punycode {
    const BASE: u32 = 36;
    const T_MIN: u32 = 1;
    const T_MAX: u32 = 26;

    fn adapt(mut delta: u32, points: u32, first: bool) -> u32 {
        delta /= if first { 700 } else { 2 };
        delta += delta / points;
        let mut k = 0;
        while delta > ((BASE - T_MIN) * T_MAX) / 2 {
            delta /= BASE - T_MIN;
            k += BASE;
        }
        k + (BASE - T_MIN + 1) * delta / (delta + 38)
    }

    fn digit(b: u8) -> Option<u32> {
        match b {
            b'a'..=b'z' => Some(u32::from(b - b'a')),
            b'A'..=b'Z' => Some(u32::from(b - b'A')),
            b'0'..=b'9' => Some(u32::from(b - b'0') + 26),
            _ => None,
        }
    }

    pub(super) fn decode(input: &str) -> Option<Vec<char>> {
        let (basic, extended) = match input.rfind('-') {
            Some(at) => (&input[..at], &input[at + 1..]),
            None => ("", input),
        };
        let mut output: Vec<char> = basic.chars().collect();
        if !basic.is_ascii() {
            return None;
        }
        let (mut code, mut index, mut bias) = (128_u32, 0_u32, 72_u32);
        let bytes = extended.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let old = index;
            let mut weight = 1_u32;
            let mut threshold = BASE;
            loop {
                let d = digit(*bytes.get(at)?)?;
                at += 1;
                index = index.checked_add(d.checked_mul(weight)?)?;
                let t = if threshold <= bias {
                    T_MIN
                } else if threshold >= bias + T_MAX {
                    T_MAX
                } else {
                    threshold - bias
                };
                if d < t {
                    break;
                }
                weight = weight.checked_mul(BASE - t)?;
                threshold += BASE;
            }
            let points = u32::try_from(output.len()).ok()? + 1;
            bias = adapt(index - old, points, old == 0);
            code = code.checked_add(index / points)?;
            index %= points;
            output.insert(usize::try_from(index).ok()?, char::from_u32(code)?);
            index += 1;
        }
        Some(output)
    }
}

/// RFC 3986 URIs and URI references, checked character by character.
mod uri {
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn unreserved(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b"-._~".contains(&b)
    }

    fn sub_delim(b: u8) -> bool {
        b"!$&'()*+,;=".contains(&b)
    }

    /// Whether every character is allowed (`extra` beside unreserved and sub-delims) and
    /// every `%` starts an escape.
    fn chars(s: &str, extra: &[u8]) -> bool {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'%' {
                let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
                continue;
            }
            if !(unreserved(b) || sub_delim(b) || extra.contains(&b)) {
                return false;
            }
            i += 1;
        }
        true
    }

    fn authority(authority: &str) -> bool {
        let (userinfo, host_port) = match authority.rsplit_once('@') {
            Some((userinfo, rest)) => (Some(userinfo), rest),
            None => (None, authority),
        };
        if userinfo.is_some_and(|u| !chars(u, b":")) {
            return false;
        }
        let (host, port) = if let Some(literal) = host_port.strip_prefix('[') {
            let Some((inside, rest)) = literal.split_once(']') else {
                return false;
            };
            let ip = inside.parse::<Ipv6Addr>().is_ok()
                || inside.strip_prefix(['v', 'V']).is_some_and(|future| {
                    future.split_once('.').is_some_and(|(version, rest)| {
                        !version.is_empty()
                            && version.bytes().all(|b| b.is_ascii_hexdigit())
                            && !rest.is_empty()
                            && chars(rest, b":")
                    })
                });
            if !ip {
                return false;
            }
            match rest {
                "" => ("", None),
                _ => match rest.strip_prefix(':') {
                    Some(port) => ("", Some(port)),
                    None => return false,
                },
            }
        } else {
            match host_port.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (host_port, None),
            }
        };
        // A host that looks like an IPv4 address need not be one: it is a reg-name then.
        let _ = host.parse::<Ipv4Addr>();
        chars(host, b"") && port.is_none_or(|p| p.bytes().all(|b| b.is_ascii_digit()))
    }

    /// A URI (`absolute`) or a URI reference.
    pub(super) fn is_uri(s: &str, absolute: bool) -> bool {
        let (rest, fragment) = match s.split_once('#') {
            Some((rest, fragment)) => (rest, Some(fragment)),
            None => (s, None),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query)),
            None => (rest, None),
        };
        if fragment.is_some_and(|f| !chars(f, b":@/?")) || query.is_some_and(|q| !chars(q, b":@/?"))
        {
            return false;
        }
        let scheme_end = rest.find(':').filter(|at| !rest[..*at].contains('/'));
        let rest = match scheme_end {
            Some(at) => {
                let scheme = &rest[..at];
                let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                    && scheme
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
                if !valid {
                    return false;
                }
                &rest[at + 1..]
            }
            None if absolute => return false,
            None => rest,
        };
        let path = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find('/').unwrap_or(after.len());
                if !authority(&after[..end]) {
                    return false;
                }
                &after[end..]
            }
            None => rest,
        };
        chars(path, b":@/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_formats_accept_good_and_refuse_bad_values() {
        let cases = [
            ("date-time", "2024-02-29T13:45:00Z", "2023-02-29T13:45:00Z"),
            (
                "date-time",
                "2024-05-01T13:45:00.5+02:00",
                "2024-05-01 noon",
            ),
            ("date", "2024-12-31", "2024-13-01"),
            ("time", "23:59:60Z", "24:00:00Z"),
            ("email", "ada@example.org", "ada at example"),
            ("hostname", "api.example.org", "-bad-.org"),
            ("ipv4", "192.168.0.1", "256.1.1.1"),
            ("ipv6", "::1", "12345::"),
            ("uri", "https://example.org/a?b=c", "not a uri"),
            (
                "uuid",
                "67e55044-10b1-426f-9247-bb680e5fe0c8",
                "67e55044-10b1-426f",
            ),
        ];
        for (name, good, bad) in cases {
            let format = Format::named(name);
            assert!(format.check(&json!(good)), "{name}: {good}");
            assert!(!format.check(&json!(bad)), "{name}: {bad}");
            assert!(format.check(&json!(3)), "{name} applies to strings only");
        }
    }

    #[test]
    fn integer_formats_bound_their_values() {
        let byte = Format::named("uint8");
        assert!(byte.check(&json!(255)));
        assert!(!byte.check(&json!(256)));
        assert!(!byte.check(&json!(-1)));
        assert!(Format::named("uint64").check(&json!(u64::MAX)));
        assert!(!Format::named("int64").check(&json!(u64::MAX)));
        assert_eq!(byte.integer_range(), Some((0, 255)));
        // Integral floats: within the bounds, and `2^63` is not an i64.
        assert!(byte.check(&json!(255.0)));
        assert!(!byte.check(&json!(256.0)));
        assert!(!Format::named("int64").check(&json!(9.223_372_036_854_776e18)));
        // -2^63 as a float is also what `-9223372036854775809` reads as: it cannot be told
        // from an integer out of range, so only floats strictly inside a bound past 2^53 count
        // (issue 13; `-9223372036854775808` sent as an integer is taken).
        assert!(!Format::named("int64").check(&json!(-9.223_372_036_854_776e18)));
        assert!(Format::named("int64").check(&json!(i64::MIN)));
        assert!(Format::named("int64").check(&json!(-9.223_372_036_854_775e18)));
        assert!(!Format::named("int64").check(&json!(-8.4e21)));
        assert!(!Format::named("double").is_checked());
    }
}
