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
            "uuid" => Format::Uuid,
            _ => Format::Other,
        }
    }

    /// The bounds an integer format implies, as schemars writes them in `minimum`/`maximum`.
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn integer_bounds(&self) -> Option<(f64, f64)> {
        match self {
            Format::Integer { min, max } => Some((*min as f64, *max as f64)),
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
                Format::Uuid => "that is a UUID",
            }
            .to_owned(),
        )
    }

    /// Whether a value satisfies the format; formats apply to their own type only.
    pub(crate) fn check(&self, value: &Value) -> bool {
        match (self, value) {
            (Format::Integer { min, max }, Value::Number(n)) => {
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
            (_, Value::String(s)) => self.check_str(s),
            _ => true,
        }
    }

    pub(crate) fn check_str(&self, s: &str) -> bool {
        match self {
            Format::DateTime => s
                .split_once(['T', 't', ' '])
                .is_some_and(|(date, time)| is_date(date) && is_time(time)),
            Format::Date => is_date(s),
            Format::Time => is_time(s),
            Format::Email => s.rsplit_once('@').is_some_and(|(local, domain)| {
                !local.is_empty() && !local.contains(char::is_whitespace) && is_hostname(domain)
            }),
            Format::Hostname => is_hostname(s),
            Format::Ipv4 => s.parse::<Ipv4Addr>().is_ok(),
            Format::Ipv6 => s.parse::<Ipv6Addr>().is_ok(),
            Format::Uri => s.split_once(':').is_some_and(|(scheme, rest)| {
                scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                    && !rest.contains(char::is_whitespace)
            }),
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

/// `HH:MM:SS[.frac]` followed by `Z` or `±HH:MM`.
fn is_time(s: &str) -> bool {
    let (clock, offset) = match s.find(['Z', 'z', '+', '-']) {
        Some(at) => s.split_at(at),
        None => return false,
    };
    let offset_ok = matches!(offset, "Z" | "z")
        || (offset.len() == 6
            && offset[1..].split_once(':').is_some_and(|(h, m)| {
                digits(h, 2).is_some_and(|h| h < 24) && digits(m, 2).is_some_and(|m| m < 60)
            }));
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let mut parts = clock.split(':');
    let (Some(h), Some(m), Some(sec), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    offset_ok
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && digits(h, 2).is_some_and(|h| h < 24)
        && digits(m, 2).is_some_and(|m| m < 60)
        && digits(sec, 2).is_some_and(|s| s <= 60)
}

fn is_hostname(s: &str) -> bool {
    let s = s.strip_suffix('.').unwrap_or(s);
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
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
        assert_eq!(byte.integer_bounds(), Some((0.0, 255.0)));
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
