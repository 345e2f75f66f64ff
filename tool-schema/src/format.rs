//! The `format` keyword: integer widths (as schemars writes them) and the string formats a
//! model is shown. Unknown formats only annotate, as JSON Schema says.

#[cfg(feature = "formats")]
use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum Format {
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
    pub fn named(name: &str) -> Format {
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
            // Without the feature `formats`, string formats only annotate.
            _ if cfg!(not(feature = "formats")) => Format::Other,
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
    pub fn integer_range(&self) -> Option<(i128, i128)> {
        match self {
            Format::Integer { min, max } => Some((*min, *max)),
            _ => None,
        }
    }

    pub fn is_checked(&self) -> bool {
        *self != Format::Other
    }

    /// For messages: `in RFC 3339 date-time form`, ...
    pub fn describe(&self) -> Option<String> {
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
    pub fn check(&self, value: &Value) -> bool {
        match value {
            Value::Number(n) => self.check_number(n),
            Value::String(s) => self.check_str(s),
            _ => true,
        }
    }

    /// [`check`](Self::check) for a number.
    pub fn check_number(&self, n: &serde_json::Number) -> bool {
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
                    #[expect(
                        clippy::cast_precision_loss,
                        reason = "An integral float (`-8.4e21`): within the bounds as a float. Beyond 2^53 floats are spaced wider than 1, so a float at a bound there may stand for an integer just past it (`-9223372036854775809` reads as -2^63, and `i64::MAX` rounds up to 2^63): only floats strictly inside count."
                    )]
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

    #[cfg(not(feature = "formats"))]
    #[expect(
        clippy::unused_self,
        reason = "The same signature with and without the feature."
    )]
    pub fn check_str(&self, _s: &str) -> bool {
        true
    }

    #[cfg(feature = "formats")]
    pub fn check_str(&self, s: &str) -> bool {
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
            Format::Uri => crate::uri::is_uri(s, true),
            Format::UriReference => crate::uri::is_uri(s, false),
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

#[cfg(feature = "formats")]
fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

#[cfg(feature = "formats")]
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

#[cfg(feature = "formats")]
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

#[cfg(feature = "formats")]
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

#[cfg(feature = "formats")]
/// RFC 6901: empty, or `/`-separated tokens where `~` is always `~0` or `~1`.
fn is_json_pointer(s: &str) -> bool {
    (s.is_empty() || s.starts_with('/'))
        && s.split('~')
            .skip(1)
            .all(|after| after.starts_with(['0', '1']))
}

#[cfg(feature = "formats")]
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

#[cfg(feature = "formats")]
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
                Some(encoded) => crate::idna::decode(encoded).is_some_and(|decoded| {
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

#[cfg(all(test, feature = "formats"))]
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
