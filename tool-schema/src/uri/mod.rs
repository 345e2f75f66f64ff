//! URIs (RFC 3986), one reading of their parts for everything the validator does with them:
//! references resolved against a base (section 5.2) for `$id` and `$ref`, and the `uri` and
//! `uri-reference` formats checked part by part (feature `formats`).

#[cfg(feature = "formats")]
use std::net::{Ipv4Addr, Ipv6Addr};

/// The base of a document that names none: hierarchical, so relative `$id`s and `$ref`s resolve
/// against it as they would against a real address.
pub const DEFAULT_BASE: &str = "json-schema:///";

/// The parts of a URI reference.
pub(crate) struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

/// A URI reference split into its parts; a scheme only where its characters make one.
pub(crate) fn parse(reference: &str) -> Parts<'_> {
    let (rest, fragment) = match reference.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (reference, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let scheme_end = rest.find(':').filter(|&at| {
        at > 0
            && rest[..at].starts_with(|c: char| c.is_ascii_alphabetic())
            && rest[..at]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest[..at].contains('/')
    });
    let (scheme, rest) = match scheme_end {
        Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
        None => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// `reference` resolved against the absolute URI `base`.
pub fn resolve(base: &str, reference: &str) -> String {
    let r = parse(reference);
    let b = parse(base);
    let (scheme, authority, path, query);
    if r.scheme.is_some() {
        scheme = r.scheme;
        authority = r.authority;
        path = remove_dots(r.path);
        query = r.query;
    } else {
        scheme = b.scheme;
        if r.authority.is_some() {
            authority = r.authority;
            path = remove_dots(r.path);
            query = r.query;
        } else {
            authority = b.authority;
            if r.path.is_empty() {
                path = b.path.to_owned();
                query = r.query.or(b.query);
            } else {
                path = if r.path.starts_with('/') {
                    remove_dots(r.path)
                } else {
                    remove_dots(&merge(&b, r.path))
                };
                query = r.query;
            }
        }
    }
    let mut out = String::new();
    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(authority) = authority {
        out.push_str("//");
        out.push_str(authority);
    }
    out.push_str(&path);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = r.fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

fn merge(base: &Parts<'_>, path: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{path}");
    }
    match base.path.rfind('/') {
        Some(at) => format!("{}{path}", &base.path[..=at]),
        None => path.to_owned(),
    }
}

fn remove_dots(path: &str) -> String {
    if !path.contains('.') {
        return path.to_owned();
    }
    let mut output: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {
                if i == last {
                    output.push("");
                }
            }
            ".." => {
                if output.len() > usize::from(absolute) {
                    output.pop();
                }
                if i == last {
                    output.push("");
                }
            }
            other => output.push(other),
        }
    }
    output.join("/")
}

/// A URI without its fragment, and the fragment (empty when there is none).
pub fn split_fragment(uri: &str) -> (&str, &str) {
    uri.split_once('#').unwrap_or((uri, ""))
}

#[cfg(feature = "formats")]
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~".contains(&b)
}

#[cfg(feature = "formats")]
fn sub_delim(b: u8) -> bool {
    b"!$&'()*+,;=".contains(&b)
}

#[cfg(feature = "formats")]
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

#[cfg(feature = "formats")]
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

#[cfg(feature = "formats")]
/// A URI (`absolute`) or a URI reference: its parts as [`parse`] reads them, each checked.
pub fn is_uri(s: &str, absolute: bool) -> bool {
    let parts = parse(s);
    if parts.scheme.is_none() {
        // No scheme: a colon before the first slash would have begun one, so the text is
        // neither a URI nor a relative reference (whose first segment holds no colon).
        let first = parts.path.split('/').next().unwrap_or_default();
        if absolute || (parts.authority.is_none() && first.contains(':')) {
            return false;
        }
    }
    parts.fragment.is_none_or(|f| chars(f, b":@/?"))
        && parts.query.is_none_or(|q| chars(q, b":@/?"))
        && parts.authority.is_none_or(authority)
        && chars(parts.path, b":@/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_as_rfc_3986_says() {
        // RFC 3986, section 5.4.1 (normal examples).
        let base = "http://a/b/c/d;p?q";
        for (reference, target) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
        ] {
            assert_eq!(resolve(base, reference), target, "{reference}");
        }
        assert_eq!(
            resolve("urn:uuid:deadbeef-1234", "#/$defs/a"),
            "urn:uuid:deadbeef-1234#/$defs/a"
        );
        assert_eq!(resolve(DEFAULT_BASE, "folder/"), "json-schema:///folder/");
        assert_eq!(
            resolve("http://localhost:1234/folder/", "folderInteger.json"),
            "http://localhost:1234/folder/folderInteger.json"
        );
    }
}
