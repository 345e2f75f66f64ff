//! `#[resource]` and `#[prompt]`: a fn as what an MCP server offers beside its tools.
//!
//! The fn is emitted as written (its parameters' doc comments taken off: they describe a prompt's
//! arguments). Beside it, a unit struct named for it (`ReadmeResource` for `fn readme`,
//! `ReviewPrompt` for `fn review`) converts into toolwright-mcp's `Resource`, `ResourceTemplate`
//! (a URI with variables) or `Prompt`. The generated code is what depends on the fn (reading
//! each parameter from the request, calling the fn); the declaration's facts are a static record
//! that `mcp::__private` turns into the value.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, Ident, ItemFn, LitStr, Meta, Pat, Path, ReturnType, Type};

use crate::ast::{camel, unraw};
use crate::attr::{check_scopes, closest, list, strings};
use crate::ctxt::{self, Ctxt};
use crate::expand::facade;

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Resource,
    Prompt,
}

impl Kind {
    fn attr(self) -> &'static str {
        match self {
            Kind::Resource => "#[resource]",
            Kind::Prompt => "#[prompt]",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Resource => &[
                "uri",
                "name",
                "title",
                "mime_type",
                "scopes",
                "complete",
                "crate",
            ],
            Kind::Prompt => &["name", "title", "scopes", "complete", "crate"],
        }
    }

    /// What a parameter of the fn is, in messages.
    fn parameter(self) -> &'static str {
        match self {
            Kind::Resource => "a variable of the resource's URI",
            Kind::Prompt => "an argument of the prompt",
        }
    }
}

#[derive(Default)]
struct Args {
    uri: Option<LitStr>,
    name: Option<LitStr>,
    title: Option<LitStr>,
    mime_type: Option<LitStr>,
    scopes: Vec<LitStr>,
    /// `complete(name = fn_path, ..)`.
    complete: Vec<(Ident, Expr)>,
    /// `uri = ..` was written, if not as a string (already reported).
    uri_written: bool,
    krate: Option<Path>,
}

struct Param {
    name: String,
    span: Span,
    ty: Type,
    /// An `Option<..>`: a prompt argument the client may leave out.
    optional: bool,
    docs: Vec<Expr>,
}

pub(crate) fn offer(kind: Kind, args: TokenStream, input: &TokenStream) -> TokenStream {
    let Ok(mut item) = syn::parse2::<ItemFn>(input.clone()) else {
        let message = match kind {
            Kind::Resource => {
                "#[resource] goes on a fn: `#[resource(uri = \"docs://readme\")] fn readme() -> String`"
            }
            Kind::Prompt => "#[prompt] goes on a fn: `#[prompt] fn review(code: String) -> String`",
        };
        return ctxt::misplaced(input, message);
    };
    let mut cx = Ctxt::default();
    let args = parse_args(kind, args, &mut cx);
    let params = read_params(kind, &mut item, &mut cx);
    // `None` when the URI is not a template the macro reads (already reported).
    let variables = match (kind, &args.uri) {
        (Kind::Resource, Some(uri)) => variables(uri, &mut cx),
        _ => Some(Vec::new()),
    };
    check(kind, &item, &args, &params, variables.as_deref(), &mut cx);
    let handle = Ident::new(
        &format!(
            "{}{}",
            camel(&item.sig.ident),
            if kind == Kind::Resource {
                "Resource"
            } else {
                "Prompt"
            }
        ),
        item.sig.ident.span(),
    );
    let krate = facade(args.krate.as_ref());
    let target = match kind {
        Kind::Resource
            if args
                .uri
                .as_ref()
                .is_some_and(|uri| uri.value().contains('{')) =>
        {
            quote!(#krate::mcp::ResourceTemplate)
        }
        Kind::Resource => quote!(#krate::mcp::Resource),
        Kind::Prompt => quote!(#krate::mcp::Prompt),
    };
    let vis = &item.vis;
    if item.sig.receiver().is_some() {
        // A method sits in an impl or trait, where no struct can be declared.
        let errors = cx.check().err().map(|errors| errors.to_compile_error());
        return quote!(#errors #item);
    }
    let body = match cx.check() {
        Ok(()) => generate(kind, &item, &args, &params, &krate),
        Err(errors) => {
            // The handle still converts, so that registering it adds no error of its own.
            let errors = errors.to_compile_error();
            quote!(#errors ::core::unreachable!())
        }
    };
    quote! {
        #item

        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #handle;

        impl ::core::convert::From<#handle> for #target {
            #[allow(unreachable_code, clippy::all)]
            fn from(_: #handle) -> Self {
                #body
            }
        }
    }
}

fn parse_args(kind: Kind, tokens: TokenStream, cx: &mut Ctxt) -> Args {
    let mut args = Args::default();
    let attr = kind.attr();
    let parser = syn::meta::parser(|meta| {
        let key = if meta.path.is_ident("crate") {
            "crate".to_owned()
        } else {
            meta.path.get_ident().map(unraw).unwrap_or_default()
        };
        if !kind.keys().contains(&key.as_str()) {
            let mut message = format!("unknown {attr} argument `{key}`");
            match closest(&key, kind.keys()) {
                Some(close) => message.push_str(&format!("; did you mean `{close}`?")),
                None => message.push_str(&format!("; expected one of {}", list(kind.keys()))),
            }
            return Err(meta.error(message));
        }
        let duplicate = match key.as_str() {
            "uri" => args.uri.is_some(),
            "name" => args.name.is_some(),
            "title" => args.title.is_some(),
            "mime_type" => args.mime_type.is_some(),
            "scopes" => !args.scopes.is_empty(),
            "crate" => args.krate.is_some(),
            _ => false,
        };
        if duplicate {
            return Err(meta.error(format!("duplicate {attr} argument `{key}`")));
        }
        match key.as_str() {
            "uri" => {
                args.uri_written = true;
                match meta.value()?.parse::<Expr>()? {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(uri),
                        ..
                    }) => args.uri = Some(uri),
                    other => cx.spanned(
                        other,
                        "`uri` is a string literal, the URI itself (`uri = \"docs://readme\"`): the macro reads its variables",
                    ),
                }
            }
            "name" => args.name = Some(meta.value()?.parse()?),
            "title" => args.title = Some(meta.value()?.parse()?),
            "mime_type" => args.mime_type = Some(meta.value()?.parse()?),
            "crate" => args.krate = Some(meta.value()?.parse()?),
            "scopes" => {
                args.scopes = strings(&meta)?;
                check_scopes(&args.scopes, cx);
            }
            // complete(id = note_ids, ..)
            _ => meta.parse_nested_meta(|inner| {
                let name = inner.path.get_ident().cloned();
                let Some(name) = name.filter(|_| inner.input.peek(syn::Token![=])) else {
                    return Err(inner.error(format!(
                        "complete(..) takes `name = fn` pairs: the name of {}, and the fn that suggests its values",
                        kind.parameter()
                    )));
                };
                args.complete.push((name, inner.value()?.parse()?));
                Ok(())
            })?,
        }
        Ok(())
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, tokens) {
        cx.error(error);
    }
    if let Some(name) = args.name.as_ref().filter(|name| name.value().is_empty()) {
        cx.spanned(name, format!("{attr}'s name cannot be empty"));
    }
    args
}

/// The fn's parameters, their doc comments taken off the fn (rustc refuses them there).
fn read_params(kind: Kind, item: &mut ItemFn, cx: &mut Ctxt) -> Vec<Param> {
    let mut params = Vec::new();
    for input in &mut item.sig.inputs {
        let FnArg::Typed(typed) = input else {
            cx.spanned(
                &*input,
                format!(
                    "{} goes on a free fn, not a method: build a value with state from a closure instead (`{}::new(.., move |..| ..)`)",
                    kind.attr(),
                    if kind == Kind::Resource {
                        "Resource"
                    } else {
                        "Prompt"
                    }
                ),
            );
            continue;
        };
        let docs = take_docs(&mut typed.attrs);
        let Pat::Ident(pat) = &*typed.pat else {
            cx.spanned(
                &typed.pat,
                format!(
                    "a {} parameter needs a name: it is {}",
                    kind.attr(),
                    kind.parameter()
                ),
            );
            continue;
        };
        let ty = (*typed.ty).clone();
        let optional = option_inner(&ty).is_some();
        params.push(Param {
            name: unraw(&pat.ident),
            span: pat.ident.span(),
            ty,
            optional,
            docs,
        });
    }
    params
}

fn take_docs(attrs: &mut Vec<Attribute>) -> Vec<Expr> {
    let mut docs = Vec::new();
    attrs.retain(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("doc") => {
            docs.push(nv.value.clone());
            false
        }
        _ => true,
    });
    docs
}

fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match (last.ident == "Option", args.args.first()) {
        (true, Some(syn::GenericArgument::Type(inner))) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// The variables of a URI template (RFC 6570 level 1: `{name}`), each once.
fn variables(uri: &LitStr, cx: &mut Ctxt) -> Option<Vec<String>> {
    let text = uri.value();
    let mut found = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            cx.spanned(uri, "the URI has a `}` without its `{`");
            return None;
        }
        let Some(close) = rest[open + 1..].find(['{', '}']).map(|at| open + 1 + at) else {
            cx.spanned(uri, "the URI has a `{` without its `}`");
            return None;
        };
        let name = &rest[open + 1..close];
        if rest[close..].starts_with('{') {
            cx.spanned(uri, "the URI has a `{` without its `}`");
            return None;
        }
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            cx.spanned(
                uri,
                format!(
                    "`{{{name}}}` is not a variable #[resource] reads: a variable is `{{name}}`, its name letters, digits and `_` (RFC 6570 level 1)"
                ),
            );
            return None;
        }
        if found.iter().any(|known| known == name) {
            cx.spanned(uri, format!("the URI has `{{{name}}}` twice"));
            return None;
        }
        found.push(name.to_owned());
        rest = &rest[close + 1..];
    }
    Some(found)
}

fn check(
    kind: Kind,
    item: &ItemFn,
    args: &Args,
    params: &[Param],
    variables: Option<&[String]>,
    cx: &mut Ctxt,
) {
    let attr = kind.attr();
    if !item.sig.generics.params.is_empty() {
        cx.spanned(
            &item.sig.generics,
            format!("a {attr} fn cannot be generic: its parameters are read from text as the types written"),
        );
    }
    if kind == Kind::Resource && !args.uri_written {
        cx.error(syn::Error::new(
            Span::call_site(),
            "#[resource] needs the URI it serves: `#[resource(uri = \"docs://readme\")]`, or a template such as `uri = \"notes://{id}\"` whose variables are the fn's parameters",
        ));
    }
    for param in params {
        if let Type::Reference(_) = &param.ty {
            cx.spanned(
                &param.ty,
                format!(
                    "{} arrives as text: take `String`, or a type that implements `FromStr`, not a reference",
                    kind.parameter()
                ),
            );
        }
        if let (Kind::Resource, Some(uri), Some(variables)) = (kind, &args.uri, variables) {
            if !variables.contains(&param.name) {
                cx.error(syn::Error::new(
                    param.span,
                    format!(
                        "`{}` is not a variable of the URI `{}`: a #[resource] fn's parameters are its URI's variables (`notes://{{{}}}`)",
                        param.name,
                        uri.value(),
                        param.name
                    ),
                ));
            } else if param.optional {
                cx.spanned(
                    &param.ty,
                    "a URI's variable is always in the URI read: take its type, not an `Option`",
                );
            }
        }
    }
    if let (Some(uri), Some(variables)) = (&args.uri, variables) {
        for variable in variables {
            if !params.iter().any(|param| &param.name == variable) {
                cx.spanned(
                    uri,
                    format!(
                        "`{{{variable}}}` in the URI has no parameter: add `{variable}: String` (or another `FromStr` type) to the fn"
                    ),
                );
            }
        }
    }
    for (name, _) in &args.complete {
        if !params.iter().any(|param| param.name == unraw(name)) {
            cx.spanned(
                name,
                format!("complete(..): `{name}` is not {}", kind.parameter()),
            );
        }
    }
}

fn generate(kind: Kind, item: &ItemFn, args: &Args, params: &[Param], krate: &Path) -> TokenStream {
    let m = quote!(#krate::mcp);
    let function = &item.sig.ident;
    let name = args
        .name
        .as_ref()
        .map_or_else(|| unraw(function), LitStr::value);
    let title = option(args.title.as_ref());
    let scopes = &args.scopes;
    let docs = item.attrs.iter().filter_map(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("doc") => Some(&nv.value),
        _ => None,
    });
    let doc = quote!(::core::concat!(#(#docs, "\n",)*));
    let values: Vec<Ident> = (0..params.len())
        .map(|i| format_ident!("__a{}", i))
        .collect();
    let call_await = item.sig.asyncness.map(|_| quote!(.await));
    let ret_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => function.span(),
    };
    // What the fn returned, named at its return type: a type that converts into no answer is
    // reported there.
    let out = Ident::new("__out", ret_span);
    let reads = reads(kind, params, &values);
    let completes = args.complete.iter().map(|(name, complete)| {
        let name = unraw(name);
        quote!(.complete(#name, #complete))
    });
    match kind {
        Kind::Resource => {
            let uri = &args.uri;
            let mime_type = option(args.mime_type.as_ref());
            let template = uri.as_ref().is_some_and(|uri| uri.value().contains('{'));
            let make = if template {
                quote!(template)
            } else {
                quote!(resource)
            };
            let into = quote_spanned!(ret_span=> #m::IntoContents::into_contents(#out, &__read.uri, __SPEC.mime_type));
            quote! {
                static __SPEC: #m::__private::MacroResource = #m::__private::MacroResource {
                    uri: #uri,
                    name: #name,
                    title: #title,
                    mime_type: #mime_type,
                    doc: #doc,
                    scopes: &[#(#scopes),*],
                };
                #m::__private::#make(&__SPEC, |__read: #m::ResourceRead| async move {
                    let __fn = #function;
                    #(#reads)*
                    let __out = __fn(#(#values),*) #call_await;
                    #into
                })
                #(#completes)*
            }
        }
        Kind::Prompt => {
            let arguments = params.iter().map(|param| {
                let (name, docs, required) = (&param.name, &param.docs, !param.optional);
                quote! {
                    #m::__private::MacroArgument {
                        name: #name,
                        doc: ::core::concat!(#(#docs, "\n",)*),
                        required: #required,
                    }
                }
            });
            let into = quote_spanned!(ret_span=> #m::IntoPrompt::into_prompt(#out));
            quote! {
                static __SPEC: #m::__private::MacroPrompt = #m::__private::MacroPrompt {
                    name: #name,
                    title: #title,
                    doc: #doc,
                    arguments: &[#(#arguments),*],
                    scopes: &[#(#scopes),*],
                };
                #m::__private::prompt(&__SPEC, |__given: #m::PromptArguments| async move {
                    let __fn = #function;
                    let __arguments = #m::__private::Arguments {
                        arguments: &__given,
                        prompt: __SPEC.name,
                    };
                    #(#reads)*
                    let __out = __fn(#(#values),*) #call_await;
                    #into
                })
                #(#completes)*
            }
        }
    }
}

/// Each parameter's value, read from the request as its type, into `values`.
fn reads(kind: Kind, params: &[Param], values: &[Ident]) -> Vec<TokenStream> {
    params
        .iter()
        .zip(values)
        .map(|(param, value)| {
            let (ty, name) = (&param.ty, &param.name);
            // At the type, the called method's name too: a type that does not parse from text
            // is reported there.
            let span = option_inner(ty).unwrap_or(ty).span();
            let read = match kind {
                Kind::Resource => quote_spanned!(span=> __read.variable(#name)),
                Kind::Prompt if param.optional => {
                    quote_spanned!(span=> __arguments.optional(#name))
                }
                Kind::Prompt => quote_spanned!(span=> __arguments.required(#name)),
            };
            quote!(let #value: #ty = #read?;)
        })
        .collect()
}

fn option(value: Option<&LitStr>) -> TokenStream {
    value.map_or_else(
        || quote!(::core::option::Option::None),
        |value| quote!(::core::option::Option::Some(#value)),
    )
}
