//! Cross-checks of the model: everything that can be known from syntax alone. Type-dependent
//! checks (argument types, the return type, the call-info type) are emitted as spanned trait
//! bounds by `expand`, so that aliases and re-exports are judged by what they are.

use std::collections::HashMap;

use syn::{GenericArgument, PathArguments, Signature, Type};

use crate::ast::{ParamKind, ToolFn};
use crate::ctxt::Ctxt;

pub(crate) fn check(tool: &ToolFn, sig: &Signature, cx: &mut Ctxt) {
    check_signature(tool, sig, cx);
    check_name(tool, cx);
    check_description(tool, cx);
    check_params(tool, cx);
    check_execution(tool, cx);
    if let Some(impl_trait) = tool.ret.as_ref().and_then(find_impl_trait) {
        cx.spanned(impl_trait, "#[tool] fns cannot return `impl Trait`: name the return type, so the tool's result can be converted");
    }
    if let Some(error) = tool.ret.as_ref().and_then(unsendable_box_error) {
        cx.spanned(error, "`Box<dyn Error>` is not `Send`, and a tool's error may cross threads: use `Box<dyn Error + Send + Sync>` or `anyhow::Error`");
    }
}

/// `Result<_, Box<dyn Error>>` without `+ Send`, as written (an alias is judged by its type,
/// through `ToolError`).
fn unsendable_box_error(ret: &Type) -> Option<&Type> {
    let error = *last_args(ret, "Result")?.get(1)?;
    let GenericArgument::Type(error) = error else {
        return None;
    };
    let object = *last_args(error, "Box")?.first()?;
    let GenericArgument::Type(Type::TraitObject(object)) = object else {
        return None;
    };
    let sends = object.bounds.iter().any(|bound| match bound {
        syn::TypeParamBound::Trait(bound) => bound
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "Send"),
        _ => false,
    });
    (!sends).then_some(error)
}

/// The generic arguments of a path type whose last segment is `name`.
fn last_args<'a>(ty: &'a Type, name: &str) -> Option<Vec<&'a GenericArgument>> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    if segment.ident != name {
        return None;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => Some(args.args.iter().collect()),
        _ => None,
    }
}

/// A lifetime other than `'static` inside a type: a borrowed argument.
fn borrowed_lifetime(ty: &Type) -> Option<&syn::Lifetime> {
    find_in_type(ty, &|part| match part {
        Part::Lifetime(lifetime) if lifetime.ident != "static" => Some(lifetime),
        _ => None,
    })
}

/// A type, or a lifetime, met walking a type.
enum Part<'a> {
    Type(&'a Type),
    Lifetime(&'a syn::Lifetime),
}

/// The first thing `pick` takes among a type and what it is made of (the types and lifetimes of
/// references, slices, arrays, tuples and generic arguments), outermost first.
fn find_in_type<'a, R>(ty: &'a Type, pick: &dyn Fn(Part<'a>) -> Option<R>) -> Option<R> {
    if let Some(found) = pick(Part::Type(ty)) {
        return Some(found);
    }
    match ty {
        Type::Reference(r) => r
            .lifetime
            .as_ref()
            .and_then(|l| pick(Part::Lifetime(l)))
            .or_else(|| find_in_type(&r.elem, pick)),
        Type::Slice(s) => find_in_type(&s.elem, pick),
        Type::Array(a) => find_in_type(&a.elem, pick),
        Type::Paren(p) => find_in_type(&p.elem, pick),
        Type::Group(g) => find_in_type(&g.elem, pick),
        Type::Tuple(t) => t.elems.iter().find_map(|ty| find_in_type(ty, pick)),
        Type::Path(p) => p
            .path
            .segments
            .iter()
            .find_map(|segment| match &segment.arguments {
                PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                    GenericArgument::Lifetime(l) => pick(Part::Lifetime(l)),
                    GenericArgument::Type(ty) => find_in_type(ty, pick),
                    _ => None,
                }),
                _ => None,
            }),
        _ => None,
    }
}

fn check_signature(tool: &ToolFn, sig: &Signature, cx: &mut Ctxt) {
    // Lifetimes only, each for a borrowed argument: told at the argument (`check_params`).
    let lifetimes_only = sig
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    let borrowing = tool.params.iter().any(|p| {
        matches!(p.kind(), ParamKind::Argument { .. }) && borrowed_lifetime(&p.ty).is_some()
    });
    if lifetimes_only && borrowing {
        // Nothing to add.
    } else if !sig.generics.params.is_empty() {
        cx.spanned(
            &sig.generics,
            "#[tool] fns cannot be generic: the arguments' schema needs concrete types",
        );
    } else if let Some(where_clause) = &sig.generics.where_clause {
        cx.spanned(where_clause, "#[tool] fns cannot have a where clause");
    }
    if let syn::Safety::Unsafe(token) = &sig.safety {
        cx.spanned(token, "#[tool] fns cannot be `unsafe`: a model's call must not be able to cause undefined behaviour");
    }
    if let Some(variadic) = &sig.variadic {
        cx.spanned(variadic, "#[tool] fns cannot be variadic");
    }
}

fn check_execution(tool: &ToolFn, cx: &mut Ctxt) {
    if let Some(blocking) = &tool.args.blocking
        && blocking.value
        && tool.is_async
    {
        cx.spanned(
            blocking,
            "#[tool(blocking)] is for sync fns that block; an async fn must not block: drop `blocking`, or make the fn sync",
        );
    }
    // A sync body runs on the thread that calls it, where no timer can stop it: a timeout
    // holds only for a body run off that thread.
    let blocking = tool.args.blocking.as_ref().is_some_and(|b| b.value);
    if let Some((timeout, _)) = &tool.args.timeout
        && !tool.is_async
        && !blocking
    {
        cx.spanned(
            timeout,
            "#[tool(timeout)] on a sync fn needs `blocking`: a sync body runs on the caller's thread, where no timer can stop it; write #[tool(blocking, timeout = \"..\")], or make the fn async",
        );
    }
}

fn check_name(tool: &ToolFn, cx: &mut Ctxt) {
    let name = tool.name();
    let valid = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !valid {
        let message = format!(
            "tool name `{name}` is not accepted by providers: use 1 to 64 of `A-Z a-z 0-9 _ -` (#[tool(name = \"...\")] sets another)"
        );
        match &tool.args.name {
            Some(lit) => cx.spanned(lit, message),
            None => cx.spanned(&tool.ident, message),
        }
    }
}

fn check_description(tool: &ToolFn, cx: &mut Ctxt) {
    if tool.docs.is_empty() && tool.args.description.is_none() {
        cx.spanned(
            &tool.ident,
            format!(
                "tool `{}` has no description: add a doc comment (`/// What it does.`) or #[tool(description = \"...\")]; the model chooses tools by their descriptions",
                tool.name()
            ),
        );
    }
}

fn check_params(tool: &ToolFn, cx: &mut Ctxt) {
    let mut names: HashMap<String, &syn::Ident> = HashMap::new();
    let mut context_seen = false;
    let mut call_info_seen = false;
    for param in &tool.params {
        let args = &param.args;
        if let Some(impl_trait) = find_impl_trait(&param.ty) {
            cx.spanned(impl_trait, "tool parameters cannot be `impl Trait`: the arguments' schema needs concrete types");
            continue;
        }
        if let (Some(context), Some(_)) = (args.context, args.call_info) {
            cx.error(syn::Error::new(
                context,
                "a parameter is either #[tool(context)] or #[tool(call_info)], not both",
            ));
            continue;
        }
        if args.context.is_some() || args.call_info.is_some() {
            let marker = if args.context.is_some() {
                "context"
            } else {
                "call_info"
            };
            for (present, key) in [
                (
                    args.rename.as_ref().map(syn::spanned::Spanned::span),
                    "rename",
                ),
                (
                    args.description.as_ref().map(syn::spanned::Spanned::span),
                    "description",
                ),
                (args.default.as_ref().map(|d| d.0), "default"),
            ] {
                if let Some(span) = present {
                    cx.error(syn::Error::new(
                        span,
                        format!("`{key}` does not apply to a #[tool({marker})] parameter: it is injected, not sent by the model"),
                    ));
                }
            }
        }
        match param.kind() {
            ParamKind::Context { .. } => {
                if context_seen {
                    cx.error(syn::Error::new(
                        param.span,
                        "a tool takes at most one #[tool(context)] parameter",
                    ));
                }
                context_seen = true;
                match &param.ty {
                    Type::Reference(reference) if reference.mutability.is_some() => cx.spanned(
                        reference,
                        "a #[tool(context)] parameter is a shared reference `&T`: tools may run concurrently; use interior mutability for state",
                    ),
                    Type::Reference(reference) if reference.lifetime.is_some() => cx.spanned(
                        reference,
                        "a #[tool(context)] parameter takes no named lifetime: write `&T`",
                    ),
                    Type::Reference(_) => {}
                    other => cx.spanned(other, "a #[tool(context)] parameter is taken by reference: write `&T`"),
                }
            }
            ParamKind::CallInfo => {
                if call_info_seen {
                    cx.error(syn::Error::new(
                        param.span,
                        "a tool takes at most one #[tool(call_info)] parameter",
                    ));
                }
                call_info_seen = true;
            }
            ParamKind::Argument { name } => {
                if let Type::Reference(reference) = &param.ty {
                    cx.spanned(reference, borrowed_message(&reference.elem));
                    continue;
                }
                if let Some(message) = borrowed_generic_message(&param.ty) {
                    cx.spanned(&param.ty, message);
                    continue;
                }
                let Some(ident) = &param.ident else { continue };
                if let Some(first) = names.get(&name) {
                    let span = param
                        .args
                        .rename
                        .as_ref()
                        .map_or_else(|| ident.span(), syn::LitStr::span);
                    cx.error(syn::Error::new(
                        span,
                        format!("two parameters are both the argument `{name}` (the other is `{first}`); rename one with #[tool(rename = \"...\")]"),
                    ));
                } else {
                    names.insert(name, ident);
                }
            }
        }
    }
}

/// A type that borrows through a lifetime in its generics (`Cow<'a, str>`).
fn borrowed_generic_message(ty: &Type) -> Option<String> {
    borrowed_lifetime(ty)?;
    let owned = if last_args(ty, "Cow").is_some() {
        "`String` (or the owned form of what the `Cow` holds)"
    } else {
        "an owned type, without a lifetime"
    };
    let written = quote::quote!(#ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("< ", "<")
        .replace(" ,", ",")
        .replace("' ", "'");
    Some(format!(
        "tool arguments are owned values decoded from the model's JSON: `{written}` borrows; take {owned}"
    ))
}

fn borrowed_message(elem: &Type) -> String {
    let owned = match elem {
        Type::Path(path) if path.path.is_ident("str") => "`String` instead of `&str`".to_owned(),
        Type::Path(path) if path.path.is_ident("Path") => "`PathBuf` instead of `&Path`".to_owned(),
        Type::Slice(slice) => {
            let item = &slice.elem;
            format!(
                "`Vec<{}>` instead of `&[{}]`",
                quote::quote!(#item),
                quote::quote!(#item)
            )
        }
        other => format!("`{}` by value", quote::quote!(#other)),
    };
    format!(
        "tool arguments are owned values decoded from the model's JSON: take {owned}; if this is the application context, mark it #[tool(context)]"
    )
}

fn find_impl_trait(ty: &Type) -> Option<&syn::TypeImplTrait> {
    find_in_type(ty, &|part| match part {
        Part::Type(Type::ImplTrait(impl_trait)) => Some(impl_trait),
        _ => None,
    })
}
