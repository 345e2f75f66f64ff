//! Parsing of `#[tool(..)]`: the attribute's own arguments and those on parameters.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, LitBool, LitStr, Path};

use crate::ctxt::Ctxt;

/// `#[tool(..)]` on the fn.
#[derive(Default)]
pub(crate) struct ToolArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<Expr>,
    pub(crate) display: Option<LitStr>,
    pub(crate) tags: Vec<LitStr>,
    pub(crate) scopes: Vec<LitStr>,
    pub(crate) read_only: Option<LitBool>,
    pub(crate) destructive: Option<LitBool>,
    pub(crate) idempotent: Option<LitBool>,
    pub(crate) open_world: Option<LitBool>,
    pub(crate) unknown_args: Option<(LitStr, bool)>,
    pub(crate) repair: Option<LitBool>,
    pub(crate) coerce: Option<LitBool>,
    /// `cut_off = "run" | "refuse" | "read_only"`, with the literal and the variant's name.
    pub(crate) cut_off: Option<(LitStr, &'static str)>,
    pub(crate) strict: Option<LitBool>,
    pub(crate) concurrent: Option<LitBool>,
    /// The timeout in milliseconds, with the literal it was read from.
    pub(crate) timeout: Option<(LitStr, u64)>,
    pub(crate) blocking: Option<LitBool>,
    pub(crate) needs_approval: Option<LitBool>,
    pub(crate) defer: Option<LitBool>,
    pub(crate) task: Option<LitBool>,
    pub(crate) parse_args: Option<Path>,
    pub(crate) krate: Option<Path>,
}

const TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "display",
    "tags",
    "scopes",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "unknown_args",
    "repair",
    "coerce",
    "cut_off",
    "strict",
    "concurrent",
    "timeout",
    "blocking",
    "needs_approval",
    "defer",
    "task",
    "parse_args",
    "crate",
];

/// `#[tool(..)]` on a parameter.
#[derive(Default)]
pub(crate) struct ParamArgs {
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<Expr>,
    pub(crate) default: Option<(Span, Option<Expr>)>,
    pub(crate) context: Option<Span>,
    pub(crate) call_info: Option<Span>,
}

const PARAM_KEYS: &[&str] = &["rename", "description", "default", "context", "call_info"];

#[expect(clippy::too_many_lines, reason = "one arm per key, read in one place")]
pub(crate) fn parse_tool_args(tokens: TokenStream, cx: &mut Ctxt) -> ToolArgs {
    let mut args = ToolArgs::default();
    let mut errors = Ctxt::default();
    let parser = syn::meta::parser(|meta| {
        let Some(key) = known_key(&meta, TOOL_KEYS, &mut errors)? else {
            return Ok(());
        };
        match key.as_str() {
            // name = "get_weather"
            "name" => set_some(
                &meta,
                &mut args.name,
                string(&meta, &mut errors)?,
                &mut errors,
            ),
            // description = "..." (any expression of type &'static str, e.g. include_str!)
            "description" => set(
                &meta,
                &mut args.description,
                meta.value()?.parse()?,
                &mut errors,
            ),
            // display = "Weather lookup"
            "display" => set_some(
                &meta,
                &mut args.display,
                string(&meta, &mut errors)?,
                &mut errors,
            ),
            // tags = ["weather", "read"]
            "tags" => {
                if !args.tags.is_empty() {
                    errors.error(meta.error("duplicate #[tool] argument `tags`"));
                }
                args.tags = strings(&meta)?;
                Ok(())
            }
            // scopes = ["notes:write"]: what a caller must hold to see and call the tool
            "scopes" => {
                if !args.scopes.is_empty() {
                    errors.error(meta.error("duplicate #[tool] argument `scopes`"));
                }
                args.scopes = strings(&meta)?;
                check_scopes(&args.scopes, &mut errors);
                Ok(())
            }
            // read_only, read_only = true, destructive = false, ...; repair = false,
            // coerce = false (this tool's argument handling, over the toolbox's); strict = false
            // (how strict-mode providers are sent it); concurrent (whether calls may run beside
            // others in a batch); blocking (a sync body that blocks, run off the executor);
            // needs_approval (every call waits for a person); defer (sent once a tool search
            // finds it); task (a task where tasks are on)
            "read_only" | "destructive" | "idempotent" | "open_world" | "repair" | "coerce"
            | "strict" | "concurrent" | "blocking" | "needs_approval" | "defer" | "task" => {
                let slot = match key.as_str() {
                    "read_only" => &mut args.read_only,
                    "destructive" => &mut args.destructive,
                    "idempotent" => &mut args.idempotent,
                    "open_world" => &mut args.open_world,
                    "repair" => &mut args.repair,
                    "coerce" => &mut args.coerce,
                    "strict" => &mut args.strict,
                    "concurrent" => &mut args.concurrent,
                    "blocking" => &mut args.blocking,
                    "defer" => &mut args.defer,
                    "task" => &mut args.task,
                    _ => &mut args.needs_approval,
                };
                set_some(&meta, slot, flag(&meta, &mut errors)?, &mut errors)
            }
            // timeout = "5s": how long a call may run
            "timeout" => {
                let timeout = timeout(&meta, &mut errors)?;
                set_some(&meta, &mut args.timeout, timeout, &mut errors)
            }
            // unknown_args = "reject" | "ignore"
            "unknown_args" => {
                let options = [("reject", false), ("ignore", true)];
                let policy = choice(&meta, &key, &options, &mut errors)?;
                set_some(&meta, &mut args.unknown_args, policy, &mut errors)
            }
            // cut_off = "run" | "refuse" | "read_only": whether the tool runs on arguments that
            // ended early
            "cut_off" => {
                let options = [
                    ("run", "Run"),
                    ("refuse", "Refuse"),
                    ("read_only", "ReadOnly"),
                ];
                let rule = choice(&meta, &key, &options, &mut errors)?;
                set_some(&meta, &mut args.cut_off, rule, &mut errors)
            }
            // parse_args = my_parser
            "parse_args" => set(
                &meta,
                &mut args.parse_args,
                meta.value()?.parse()?,
                &mut errors,
            ),
            // crate = my_reexport::toolwright, or crate = "my_reexport::toolwright"
            "crate" => {
                let input = meta.value()?;
                let path = if input.peek(LitStr) {
                    input.parse::<LitStr>()?.parse()?
                } else {
                    input.parse()?
                };
                set(&meta, &mut args.krate, path, &mut errors)
            }
            _ => unreachable!("known_key returns known keys only"),
        }
    });
    if let Err(error) = parser.parse2(tokens) {
        errors.error(error);
    }
    if let Err(error) = errors.check() {
        cx.error(error);
    }
    args
}

/// `key = "one of options"`: the literal and what it stands for; another string is an error
/// naming the choices.
fn choice<T: Copy>(
    meta: &ParseNestedMeta,
    key: &str,
    options: &[(&str, T)],
    errors: &mut Ctxt,
) -> syn::Result<Option<(LitStr, T)>> {
    Ok(string(meta, errors)?.and_then(|literal| {
        let value = literal.value();
        if let Some((_, meaning)) = options.iter().find(|(name, _)| *name == value) {
            return Some((literal, *meaning));
        }
        let names: Vec<String> = options
            .iter()
            .map(|(name, _)| format!("\"{name}\""))
            .collect();
        let (last, rest) = names.split_last().expect("options are never empty");
        errors.error(syn::Error::new(
            literal.span(),
            format!(
                "{key} must be {} or {last}, not \"{value}\"",
                rest.join(", ")
            ),
        ));
        None
    }))
}

pub(crate) fn parse_param_attr(attr: &syn::Attribute, args: &mut ParamArgs, cx: &mut Ctxt) {
    let mut errors = Ctxt::default();
    let result = attr.parse_nested_meta(|meta| {
        let Some(key) = known_key(&meta, PARAM_KEYS, &mut errors)? else {
            return Ok(());
        };
        let span = meta
            .path
            .get_ident()
            .map_or_else(Span::call_site, syn::Ident::span);
        match key.as_str() {
            // #[tool(rename = "file")]
            "rename" => set(&meta, &mut args.rename, meta.value()?.parse()?, &mut errors),
            // #[tool(description = "...")]
            "description" => set(
                &meta,
                &mut args.description,
                meta.value()?.parse()?,
                &mut errors,
            ),
            // #[tool(default)] or #[tool(default = expr)]
            "default" => {
                let expr = if meta.input.peek(syn::Token![=]) {
                    Some(meta.value()?.parse()?)
                } else {
                    None
                };
                set(&meta, &mut args.default, (span, expr), &mut errors)
            }
            // #[tool(context)]
            "context" => set(&meta, &mut args.context, span, &mut errors),
            // #[tool(call_info)]
            "call_info" => set(&meta, &mut args.call_info, span, &mut errors),
            _ => unreachable!("known_key returns known keys only"),
        }
    });
    if let Err(error) = result {
        errors.error(error);
    }
    if let Err(error) = errors.check() {
        cx.error(error);
    }
}

/// The key of this argument when it is a known one. An unknown key is recorded in `errors` and
/// its value skipped, so that parsing goes on and later mistakes are reported too.
fn known_key(
    meta: &ParseNestedMeta,
    known: &[&str],
    errors: &mut Ctxt,
) -> syn::Result<Option<String>> {
    match key_of(meta, known) {
        Ok(key) => Ok(Some(key)),
        Err(error) => {
            errors.error(error);
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _: TokenStream = meta.input.parse::<proc_macro2::Group>()?.stream();
            }
            Ok(None)
        }
    }
}

fn key_of(meta: &ParseNestedMeta, known: &[&str]) -> syn::Result<String> {
    let key = match meta.path.get_ident() {
        Some(ident) => ident.to_string(),
        None if meta.path.is_ident("crate") => "crate".to_owned(),
        None => {
            let path = &meta.path;
            let text = quote::quote!(#path).to_string().replace(' ', "");
            return Err(meta.error(format!("unknown #[tool] argument `{text}`")));
        }
    };
    let key = key.trim_start_matches("r#").to_owned();
    if known.contains(&key.as_str()) {
        return Ok(key);
    }
    let mut message = format!("unknown #[tool] argument `{key}`");
    match closest(&key, known) {
        Some(close) => message.push_str(&format!("; did you mean `{close}`?")),
        None => message.push_str(&format!("; expected one of {}", list(known))),
    }
    Err(meta.error(message))
}

/// Fills a slot; a second value for it is recorded as an error and parsing goes on, so that every
/// mistake shows in one build. Returns a `Result` so that every match arm above is one.
#[expect(
    clippy::unnecessary_wraps,
    reason = "a `Result` so that every match arm of the attribute's parse is one"
)]
fn set<T>(
    meta: &ParseNestedMeta,
    slot: &mut Option<T>,
    value: T,
    errors: &mut Ctxt,
) -> syn::Result<()> {
    if slot.is_some() {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        errors.error(meta.error(format!("duplicate #[tool] argument `{key}`")));
    } else {
        *slot = Some(value);
    }
    Ok(())
}

/// [`set`] for a value that may have been refused (and the refusal recorded).
fn set_some<T>(
    meta: &ParseNestedMeta,
    slot: &mut Option<T>,
    value: Option<T>,
    errors: &mut Ctxt,
) -> syn::Result<()> {
    match value {
        Some(value) => set(meta, slot, value, errors),
        None => Ok(()),
    }
}

/// The key's name, for messages.
fn key_name(meta: &ParseNestedMeta) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// A value of any form, read whole (so that the next key is read after it) and judged here:
/// a value of the wrong form is recorded, and parsing goes on.
fn any_value(meta: &ParseNestedMeta) -> syn::Result<Expr> {
    meta.value()?.parse()
}

/// `key = "text"`.
fn string(meta: &ParseNestedMeta, errors: &mut Ctxt) -> syn::Result<Option<LitStr>> {
    match any_value(meta)? {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Ok(Some(text)),
        other => {
            let key = key_name(meta);
            errors.spanned(other, format!("`{key}` takes a string: `{key} = \"...\"`"));
            Ok(None)
        }
    }
}

/// `key` alone is `true`; `key = true` and `key = false` say so.
fn flag(meta: &ParseNestedMeta, errors: &mut Ctxt) -> syn::Result<Option<LitBool>> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Some(LitBool::new(
            true,
            meta.path
                .get_ident()
                .map_or_else(Span::call_site, syn::Ident::span),
        )));
    }
    match any_value(meta)? {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(flag),
            ..
        }) => Ok(Some(flag)),
        other => {
            let key = key_name(meta);
            errors.spanned(
                other,
                format!("`{key}` is `{key}` (true), `{key} = true` or `{key} = false`"),
            );
            Ok(None)
        }
    }
}

/// `timeout = "5s"`; a bare number is told the string it means (`5` -> `"5s"`).
fn timeout(meta: &ParseNestedMeta, errors: &mut Ctxt) -> syn::Result<Option<(LitStr, u64)>> {
    match any_value(meta)? {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => match duration_ms(&text.value()) {
            Ok(ms) => Ok(Some((text, ms))),
            Err(message) => {
                errors.error(syn::Error::new(text.span(), message));
                Ok(None)
            }
        },
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(number),
            ..
        }) => {
            let digits = number.base10_digits();
            errors.spanned(
                &number,
                format!("the timeout is a string with a unit: write `timeout = \"{digits}s\"` for {digits} seconds (or \"{digits}ms\", \"{digits}m\")"),
            );
            Ok(None)
        }
        other => {
            errors.spanned(
                other,
                "the timeout is a string with a unit: `timeout = \"5s\"` (\"500ms\", \"1.5s\", \"2m\", \"1h\")",
            );
            Ok(None)
        }
    }
}

/// Milliseconds in a duration written as a number and a unit: `500ms`, `5s`, `1.5s`, `2m`, `1h`.
fn duration_ms(text: &str) -> Result<u64, String> {
    let usage = "write the timeout as a number and a unit, like \"500ms\", \"5s\", \"1.5s\", \"2m\" or \"1h\"";
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .ok_or_else(|| {
            if text.is_empty() {
                format!("the timeout is empty; {usage}")
            } else {
                format!("the timeout `{text}` has no unit: write \"{text}s\" for {text} seconds; {usage}")
            }
        })?;
    let (number, unit) = text.split_at(split);
    let scale = match unit.trim() {
        "ms" => 1.0,
        "s" => 1_000.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        other => return Err(format!("unknown unit `{other}` in the timeout; {usage}")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{number}` is not a number; {usage}"))?;
    let ms = (value * scale).round();
    if ms < 1.0 {
        return Err(format!(
            "the timeout must be at least 1ms, not `{text}`; {usage}"
        ));
    }
    // Years: more than any call can mean; above this f64 stops holding whole milliseconds.
    if ms > 9_007_199_254_740_991.0 {
        return Err(format!("the timeout `{text}` is too long"));
    }
    // In range: checked above.
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "In range: checked above."
    )]
    Ok(ms as u64)
}

pub(crate) fn list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The known key closest to a misspelled one, if any is close enough.
pub(crate) fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (levenshtein(key, k), *k))
        .filter(|(d, k)| {
            *d <= (k.len().max(key.len()) / 3).max(1) || k.contains(key) || key.contains(k)
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// `["a", "b"]`: a bracketed list of string literals.
pub(crate) fn strings(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let value = meta.value()?;
    let content;
    syn::bracketed!(content in value);
    Ok(content
        .parse_terminated(syn::parse::ParseBuffer::parse::<LitStr>, syn::Token![,])?
        .into_iter()
        .collect())
}

/// Records an error at each scope that is not one OAuth scope token.
pub(crate) fn check_scopes(scopes: &[LitStr], errors: &mut Ctxt) {
    for scope in scopes {
        if !is_scope_token(&scope.value()) {
            errors.error(syn::Error::new(
                scope.span(),
                "a scope is one OAuth scope token (RFC 6749 section 3.3): printable ASCII, no \
                 spaces, quotes or backslashes, not empty; list several scopes as several strings",
            ));
        }
    }
}

/// An OAuth 2.0 scope token (RFC 6749, section 3.3): `%x21 / %x23-5B / %x5D-7E`, at least one.
fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::duration_ms;

    #[test]
    fn timeouts_are_read_in_their_units() {
        for (text, ms) in [
            ("500ms", 500),
            ("5s", 5_000),
            ("1.5s", 1_500),
            (" 2 m", 120_000),
            ("2min", 120_000),
            ("1h", 3_600_000),
        ] {
            assert_eq!(duration_ms(text), Ok(ms), "{text}");
        }
        for bad in [
            "5", "s", "5 days", "0ms", "0.4ms", "1.2.3s", "-1s", "1e400h",
        ] {
            assert!(duration_ms(bad).is_err(), "{bad}");
        }
    }
}
