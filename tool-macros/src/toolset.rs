//! `#[toolset]` on an impl block: each `#[tool]` method becomes a tool whose handle holds the
//! service in an `Arc`, and `Service::toolset(self: Arc<Self>)` gives them all for registration.
//!
//! The impl block is emitted as written, less the `#[tool]` attributes (on methods and their
//! parameters) it consumed. Beside it, each tool's handle struct (`ShopFindOrdersTool` for
//! `Shop::find_orders`), and in `const _: () = { .. };` the `toolset` fn and, in a block of its
//! own per tool, what `#[tool]` generates for a free fn.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, ImplItem, ItemFn, ItemImpl, Path, Type};

use crate::ast::{Owner, ToolFn};
use crate::attr;
use crate::ctxt::{self, Ctxt};
use crate::expand;
use crate::valid;

pub(crate) fn toolset(args: TokenStream, input: &TokenStream) -> TokenStream {
    let Ok(mut item) = syn::parse2::<ItemImpl>(input.clone()) else {
        return ctxt::misplaced(
            input,
            "#[toolset] goes on an impl block: `#[toolset] impl Service { #[tool] fn name(&self, ..) }`",
        );
    };
    let mut cx = Ctxt::default();
    let krate = parse_args(args, &mut cx);
    check_impl(&item, &mut cx);
    let service = (*item.self_ty).clone();

    let mut tools = Vec::new();
    for impl_item in &mut item.items {
        let (attrs, what) = match impl_item {
            ImplItem::Fn(method) => {
                let Some(tool_args) = take_tool_attr(&mut method.attrs, &mut cx) else {
                    continue;
                };
                let mut tool_args = attr::parse_tool_args(tool_args, &mut cx);
                if tool_args.krate.is_none() {
                    tool_args.krate.clone_from(&krate);
                }
                // The method as a fn, to model it as `#[tool]` does; its signature, stripped
                // of the helper attributes, goes back into the impl.
                let mut as_fn = ItemFn {
                    attrs: method.attrs.clone(),
                    vis: method.vis.clone(),
                    modifiers: method.modifiers.clone(),
                    sig: method.sig.clone(),
                    block: Box::new(method.block.clone()),
                };
                let owner = Owner::Method {
                    service: Box::new(service.clone()),
                    takes_self: false,
                    handle: handle_name(&service, &method.sig.ident),
                };
                let tool = ToolFn::from_item(&mut as_fn, tool_args, owner, &mut cx);
                valid::check(&tool, &as_fn.sig, &mut cx);
                method.sig = as_fn.sig;
                tools.push(tool);
                continue;
            }
            ImplItem::Const(item) => (&mut item.attrs, "an associated const"),
            ImplItem::Type(item) => (&mut item.attrs, "an associated type"),
            ImplItem::Macro(item) => (&mut item.attrs, "a macro call"),
            _ => continue,
        };
        if let Some(position) = attrs.iter().position(|a| a.path().is_ident("tool")) {
            let attr = attrs.remove(position);
            cx.spanned(
                &attr,
                format!("#[tool] goes on a method of the toolset, not on {what}"),
            );
        }
    }
    check_names(&tools, &mut cx);
    let context = context(&tools, &mut cx);

    let krate = expand::facade(krate.as_ref());
    let rt = quote!(#krate::__private);
    if let Err(errors) = cx.check() {
        let errors = errors.to_compile_error();
        // The `toolset` fn still exists, so that its callers do not add errors of their own.
        let fallback = toolset_fn(&rt, &service, context.as_ref(), &[]);
        return quote! {
            #errors
            #item
            #fallback
        };
    }

    generate(&rt, &service, &item, &tools, context.as_ref())
}

/// The impl block as written (less what the macro consumed), each tool's handle beside it, and
/// in a block of its own what `#[tool]` generates for each, with `Service::toolset`.
fn generate(
    rt: &TokenStream,
    service: &Type,
    item: &ItemImpl,
    tools: &[ToolFn],
    context: Option<&Type>,
) -> TokenStream {
    // Each tool's handle, named so that its typed arguments can be (`<ShopFindOrdersTool as
    // toolwright::Tool>::Args`, for a parser of its own), beside the impl block.
    let structs = tools.iter().map(|tool| {
        let handle = tool.handle();
        let vis = &tool.vis;
        let method = &tool.ident;
        let doc = format!(
            "The `{}` tool: [`{}::{method}`] as a toolwright tool, holding the service in an `Arc`. Made by `toolset()`; its typed arguments are `<{handle} as toolwright::Tool>::Args`.",
            tool.name(),
            quote!(#service).to_string().replace(' ', ""),
        );
        quote! {
            #[doc = #doc]
            #vis struct #handle {
                __tool_service: #rt::Arc<#service>,
                __tool_definition: ::core::option::Option<#rt::Box<#rt::ToolDefinition>>,
            }
        }
    });
    let handles = tools.iter().map(|tool| {
        let handle = tool.handle();
        let name = tool.name();
        let generated = expand::generate(tool);
        quote! {
            #[automatically_derived]
            impl ::core::fmt::Debug for #handle {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#name)
                }
            }

            const _: () = {
                #generated
            };
        }
    });
    let toolset = toolset_fn(rt, service, context, tools);
    quote! {
        #item

        #(#structs)*

        #[allow(deprecated)]
        const _: () = {
            #(#handles)*

            #toolset
        };
    }
}

/// `Service::toolset`: every tool of the set, made with a share of the service.
fn toolset_fn(
    rt: &TokenStream,
    service: &Type,
    context: Option<&Type>,
    tools: &[ToolFn],
) -> TokenStream {
    let blocking = tools.iter().any(|tool| {
        tool.context().is_some() && tool.args.blocking.as_ref().is_some_and(|b| b.value)
    });
    let (generics, ctx) = expand::context_generics(rt, context, blocking);
    let service_name = quote!(#service).to_string().replace(' ', "");
    let names: Vec<String> = tools.iter().map(ToolFn::name).collect();
    let list = names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let doc = format!(
        "The tools of this `#[toolset]` ({list}), each with a share of `self`, to register with `Toolbox::with_all` (`toolbox.with_all(service.toolset())`). `.prefixed(\"..\")` renames them all."
    );
    let pushes = tools.iter().zip(&names).map(|(tool, name)| {
        let handle = tool.handle();
        quote! {
            __tool_set.push(#name, {
                let __tool_service = #rt::Arc::clone(&self);
                #rt::Box::new(move |__tool_name| {
                    #rt::erase::<#ctx, #handle>(#handle::__tool_new(__tool_service, __tool_name))
                })
            });
        }
    });
    quote! {
        impl #service {
            #[doc = #doc]
            #[allow(dead_code)]
            pub fn toolset #generics(self: #rt::Arc<Self>) -> #rt::Toolset<#ctx> {
                let mut __tool_set = #rt::Toolset::new(#service_name);
                #(#pushes)*
                __tool_set
            }
        }
    }
}

/// A toolset tool's handle: `ShopFindOrdersTool` for `Shop::find_orders`.
fn handle_name(service: &Type, method: &syn::Ident) -> syn::Ident {
    let service = match service {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .map_or_else(|| "Toolset".to_owned(), |s| s.ident.to_string()),
        _ => "Toolset".to_owned(),
    };
    crate::ast::handle_ident(&service, method, proc_macro2::Span::call_site())
}

/// `#[toolset]` or `#[toolset(crate = path)]`.
fn parse_args(args: TokenStream, cx: &mut Ctxt) -> Option<Path> {
    let mut krate = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            krate = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            Err(meta.error(
                "#[toolset] takes no options but `crate = path`; tool options go on each method's #[tool(..)]",
            ))
        }
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        cx.error(error);
    }
    krate
}

fn check_impl(item: &ItemImpl, cx: &mut Ctxt) {
    if let Some((path, _)) = &item.trait_ {
        cx.spanned(
            path,
            "#[toolset] goes on an inherent impl (`impl Service { .. }`), not a trait impl",
        );
    }
    if !item.generics.params.is_empty() {
        cx.spanned(
            &item.generics,
            "#[toolset] impl blocks cannot be generic: each tool's schema and handle need concrete types; write the impl for a concrete type (`impl Service<Concrete>`)",
        );
    } else if let Some(where_clause) = &item.generics.where_clause {
        cx.spanned(
            where_clause,
            "#[toolset] impl blocks cannot have a where clause",
        );
    }
}

/// Removes the method's `#[tool]` / `#[tool(..)]` and gives its arguments.
fn take_tool_attr(attrs: &mut Vec<Attribute>, cx: &mut Ctxt) -> Option<TokenStream> {
    let position = attrs.iter().position(|a| a.path().is_ident("tool"))?;
    let attr = attrs.remove(position);
    if let Some(again) = attrs.iter().position(|a| a.path().is_ident("tool")) {
        cx.spanned(
            &attrs[again],
            "one #[tool] per method: put every option in one #[tool(..)]",
        );
        attrs.remove(again);
    }
    match attr.meta {
        syn::Meta::Path(_) => Some(TokenStream::new()),
        syn::Meta::List(list) => Some(list.tokens),
        syn::Meta::NameValue(nv) => {
            cx.spanned(nv, "write #[tool] or #[tool(option, ..)]");
            Some(TokenStream::new())
        }
    }
}

/// Two tools of one toolset cannot share a name: told at the second.
fn check_names(tools: &[ToolFn], cx: &mut Ctxt) {
    let mut seen: HashMap<String, &syn::Ident> = HashMap::new();
    for tool in tools {
        let name = tool.name();
        if let Some(first) = seen.get(&name) {
            let message = format!(
                "two tools of this toolset are both named `{name}` (the other is the method `{first}`): give one another name with #[tool(name = \"...\")]"
            );
            match &tool.args.name {
                Some(lit) => cx.spanned(lit, message),
                None => cx.spanned(&tool.ident, message),
            }
        } else {
            seen.insert(name, &tool.ident);
        }
    }
}

/// The one context type the set's tools take, if any takes one.
fn context(tools: &[ToolFn], cx: &mut Ctxt) -> Option<Type> {
    let mut found: Option<(&Type, &syn::Ident)> = None;
    for tool in tools {
        let Some(ty) = tool.context() else { continue };
        match found {
            None => found = Some((ty, &tool.ident)),
            Some((first, method)) if quote!(#first).to_string() != quote!(#ty).to_string() => {
                cx.spanned(
                    ty,
                    format!(
                        "the tools of one toolset take one context type: `{}` here, `{}` in `{method}`; they are registered in one `Toolbox<C>`",
                        quote!(#ty),
                        quote!(#first),
                    ),
                );
            }
            Some(_) => {}
        }
    }
    found.map(|(ty, _)| ty.clone())
}
