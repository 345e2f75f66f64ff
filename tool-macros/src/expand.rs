//! Code generation: the fn as written, its handle (a unit struct, `AddTool` for `add`), and
//! beside them (inside `const _: () = { .. };`) the arguments struct, the spanned type checks and
//! the `Tool` impl.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, parse_quote};

use crate::ast::{Owner, ParamKind, ToolFn, unraw};
use crate::ctxt::{self, Ctxt};

use crate::{attr, fallback, valid};

pub(crate) fn tool(args: TokenStream, input: &TokenStream) -> TokenStream {
    let Ok(mut item) = syn::parse2::<ItemFn>(input.clone()) else {
        return ctxt::misplaced(input, "#[tool] goes on a fn: `#[tool] fn name(..) -> T`");
    };
    let mut cx = Ctxt::default();
    let args = attr::parse_tool_args(args, &mut cx);
    let tool = ToolFn::from_item(&mut item, args, Owner::Free, &mut cx);
    let krate = krate(&tool);
    valid::check(&tool, &item.sig, &mut cx);
    match cx.check() {
        Ok(()) => {
            let handle = free_handle(&tool);
            let generated = generate(&tool);
            quote! {
                #item
                #handle
                #[allow(deprecated)]
                const _: () = {
                    #generated
                };
            }
        }
        Err(errors) => fallback::expand(&item, &krate, &errors),
    }
}

/// A free fn's handle: a unit struct named for the fn (`AddTool` for `add`).
fn free_handle(tool: &ToolFn) -> TokenStream {
    let function = &tool.ident;
    let ident = &tool.handle();
    let vis = &tool.vis;
    let name = tool.name();
    let handle_doc = format!(
        "The `{name}` tool: [`{function}`](fn@{function}) as a toolwright tool. Register it with `toolbox.register({ident})`; its typed arguments are `<{ident} as toolwright::Tool>::Args`."
    );
    quote! {
        #[doc = #handle_doc]
        // Not `#[deprecated]` itself, though the fn is: registering a deprecated tool is how an
        // application keeps offering it while it goes away, and the model is told (in every
        // provider form's description); calling the fn directly still warns.
        #vis struct #ident;

        #[allow(deprecated)]
        const _: () = {
            #[automatically_derived]
            impl ::core::clone::Clone for #ident {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }

            #[automatically_derived]
            impl ::core::marker::Copy for #ident {}

            #[automatically_derived]
            impl ::core::default::Default for #ident {
                #[inline]
                fn default() -> Self {
                    #ident
                }
            }

            #[automatically_derived]
            impl ::core::fmt::Debug for #ident {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#name)
                }
            }
        };
    }
}

fn krate(tool: &ToolFn) -> syn::Path {
    facade(tool.args.krate.as_ref())
}

/// Where toolwright is: `crate = path`, or `::toolwright`.
pub(crate) fn facade(krate: Option<&syn::Path>) -> syn::Path {
    krate.cloned().unwrap_or_else(|| parse_quote!(::toolwright))
}

/// The items of a tool beside its handle: its arguments struct, the spanned type checks, the
/// static facts of its definition and the `Tool` impl. To be placed in a block of their own.
// One quote! template, read best whole.
#[expect(
    clippy::too_many_lines,
    reason = "One quote! template, read best whole."
)]
pub(crate) fn generate(tool: &ToolFn) -> TokenStream {
    let krate = krate(tool);
    let rt = quote!(#krate::__private);
    let name = tool.name();
    // The handle the `Tool` impl is for, how the body is called, and where the definition is.
    let (ident, callee, definition) = match &tool.owner {
        Owner::Free => (
            tool.handle(),
            tool.ident.to_token_stream(),
            quote!(__tool_definition()),
        ),
        Owner::Method {
            service, handle, ..
        } => {
            let method = &tool.ident;
            (
                handle.clone(),
                quote!(<#service>::#method),
                quote!(match &self.__tool_definition {
                    ::core::option::Option::Some(__tool_renamed) => &**__tool_renamed,
                    ::core::option::Option::None => __tool_definition(),
                }),
            )
        }
    };
    let ident = &ident;
    let serde_path = format!("{}::__private::serde", quote!(#krate)).replace(' ', "");
    let schemars_path = format!("{}::__private::schemars", quote!(#krate)).replace(' ', "");

    let mut fields = Vec::new();
    let mut generics = Vec::new();
    let mut field_types = Vec::new();
    let mut default_fns = Vec::new();
    let mut checks = Vec::new();
    let mut call_args = Vec::new();
    let service = match &tool.owner {
        Owner::Method {
            service,
            takes_self: true,
            ..
        } => {
            call_args.push(quote!(__tool_self));
            Some(service)
        }
        _ => None,
    };
    let mut bindings = Vec::new();
    let mut param_names = Vec::new();
    for param in &tool.params {
        let ty = &param.ty;
        match param.kind() {
            ParamKind::Context { inner } => {
                call_args.push(quote!(#rt::ContextOf::<#inner>::context(__tool_ctx)));
            }
            ParamKind::CallInfo => {
                call_args.push(quote_spanned!(ty.span()=> #rt::call_info::<#ty>(&__tool_info)));
            }
            ParamKind::Argument { name: wire } => {
                let Some(field) = &param.ident else { continue };
                let rust = unraw(field);
                // A type named like the parameter, so the diagnostic can name it (`{P}`).
                checks.push(quote_spanned! {ty.span()=>
                    {
                        #[allow(non_camel_case_types, dead_code)]
                        struct #field;
                        #rt::assert_arg::<#ty, #field>();
                    }
                });
                let forwarded = &param.forwarded;
                let rename = param
                    .args
                    .rename
                    .as_ref()
                    .map(|lit| quote!(#[serde(rename = #lit)]));
                let description = param
                    .args
                    .description
                    .as_ref()
                    .map(|d| quote!(#[schemars(description = #d)]));
                let default = param.args.default.as_ref().map(|(_, expr)| match expr {
                    None => quote!(#[serde(default)]),
                    Some(expr) => {
                        let default_fn = format_ident!("__tool_default_{}", rust);
                        let default_name = default_fn.to_string();
                        // Typed by a `let` of the parameter's type: a default of the wrong type
                        // is told against the parameter, not a return type the user never wrote.
                        default_fns.push(quote! {
                            fn #default_fn() -> #ty {
                                let __tool_default: #ty = #expr;
                                __tool_default
                            }
                        });
                        quote!(#[serde(default = #default_name)])
                    }
                });
                // A field whose type serde and schemars see only through a type parameter: the
                // derives' code then type-checks whatever the type is, and a type that is not
                // an argument type is told once, by the check above, not again from inside
                // serde's generated code. A default or a serde/schemars attribute of the
                // user's needs the concrete type.
                let field_ty =
                    if default.is_none() && forwarded.iter().all(|a| a.path().is_ident("doc")) {
                        let param = format_ident!("__ToolT{}", generics.len());
                        generics.push(param.clone());
                        field_types.push(ty.to_token_stream());
                        param.to_token_stream()
                    } else {
                        ty.to_token_stream()
                    };
                fields.push(quote! {
                    #(#forwarded)*
                    #rename
                    #description
                    #default
                    pub #field: #field_ty
                });
                // Bound to a name of its own: a parameter named like the fn (`fn url(url: ..)`)
                // would otherwise shadow the fn it is passed to.
                let local = format_ident!("__tool_arg_{}", bindings.len());
                bindings.push(quote!(#field: #local));
                call_args.push(quote!(#local));
                param_names.push(quote!((#rust, #wire)));
            }
        }
    }

    let ctx_ty = tool.context();
    let blocking = tool.args.blocking.as_ref().is_some_and(|b| b.value);
    // A tool taking `&T` works in every toolbox whose context lends a `&T` (`T` itself, an
    // `Arc<T>`, an application's own `ContextOf<T>`); a blocking one where a share of the
    // context can go to another thread.
    let (impl_generics, ctx) = context_generics(&rt, ctx_ty, blocking);
    let takes_info = tool
        .params
        .iter()
        .any(|p| matches!(p.kind(), ParamKind::CallInfo));
    let call_binding = if takes_info {
        quote!(__tool_call)
    } else {
        quote!(_)
    };
    let ctx_binding = if ctx_ty.is_some() {
        quote!(__tool_ctx)
    } else {
        quote!(_)
    };

    let (parse_ctx, parse_body) = match &tool.args.parse_args {
        Some(parser) => (quote!(__tool_ctx), {
            let lent = ctx_ty.map_or_else(
                || quote!(__tool_ctx),
                |ty| quote!(#rt::ContextOf::<#ty>::context(__tool_ctx)),
            );
            quote!(#rt::parse_custom(
                #definition,
                &#parser,
                __tool_arguments,
                #lent,
                __tool_session,
            ))
        }),
        None => (
            quote!(_),
            quote!((&&#rt::ArgsProbe::<__ToolArgsOf>::NEW).__tool_parse(
                #definition,
                __tool_arguments,
                __tool_session,
            )),
        ),
    };

    let ret = tool.ret.clone().unwrap_or_else(|| parse_quote!(()));
    let ret_span = tool
        .ret
        .as_ref()
        .map_or_else(|| ident.span(), Spanned::span);
    let await_ = tool.is_async.then(|| quote!(.await));
    let convert = quote_spanned! {ret_span=>
        {
            #[allow(unused_imports)]
            use #rt::{ViaOutcome as _, ViaResult as _, ViaSerialize as _};
            (&&&#rt::Probe::<#ret>::NEW).__tool_kind().convert(__tool_value)
        }
    };

    // Unpack the arguments, call the fn, convert what it returns: the body of `call`, and for a
    // sync fn also of `call_now`, which runs it at once, sparing the boxed future of `call`.
    let make_info = takes_info.then(|| quote!(let __tool_info = __tool_call.info();));
    let run = quote! {
        let __ToolArgs { #(#bindings),* } = __tool_args;
        let __tool_value = #callee(#(#call_args),*) #await_;
        #convert
    };
    let lend_self =
        service.map(|service| quote!(let __tool_self: &#service = &self.__tool_service;));
    let body = quote!(#make_info #lend_self #run);
    // A blocking body runs on another thread, with its own copies of the context and call info
    // (made before the thread starts, from what is borrowed, then moved in).
    let (call_body, call_now_body) = if blocking {
        let own_ctx =
            ctx_ty.map(|_| quote!(let __tool_ctx = ::core::clone::Clone::clone(__tool_ctx);));
        let lend_ctx = ctx_ty
            .is_some()
            .then(|| quote!(let __tool_ctx = &__tool_ctx;));
        // The thread gets a share of the service of its own.
        let own_service =
            service.map(|_| quote!(let __tool_service = #rt::Arc::clone(&self.__tool_service);));
        let lend_service =
            service.map(|service| quote!(let __tool_self: &#service = &__tool_service;));
        let call_body = quote! {
            #own_ctx
            #own_service
            #make_info
            #rt::run_blocking(move || {
                #lend_ctx
                #lend_service
                #run
            })
        };
        (call_body, None)
    } else {
        (quote!(async move { #body }), Some(&body))
    };
    let call_now = call_now_body.filter(|_| !tool.is_async).map(|body| {
        quote! {
            // Inline into the one place it runs from (the tool's `run_dyn`), wherever that is
            // compiled.
            #[inline]
            fn call_now(
                &self,
                __tool_args: __ToolArgsOf,
                #ctx_binding: &#ctx,
                #call_binding: &#rt::CallScope<'_>,
            ) -> ::core::result::Result<#rt::Outcome, __ToolArgsOf> {
                ::core::result::Result::Ok({ #body })
            }

            const RUNS_NOW: bool = true;
        }
    });
    // A sync body's future is the one `Ready` type all sync tools share, around `call_now`: no
    // state machine of its own, nor a second copy of the body.
    let call_body = if call_now.is_some() {
        quote! {
            ::core::future::ready(
                match <Self as #rt::Tool<#ctx>>::call_now(self, __tool_args, __tool_ctx, &__tool_call) {
                    ::core::result::Result::Ok(__tool_outcome) => __tool_outcome,
                    ::core::result::Result::Err(_) => #rt::deferred_sync_body(),
                }
            )
        }
    } else {
        call_body
    };
    let (call_ctx_binding, call_call_binding) = if call_now.is_some() {
        (quote!(__tool_ctx), quote!(__tool_call))
    } else {
        (ctx_binding.clone(), call_binding.clone())
    };
    let docs = tool.docs.iter();
    let description = option(&rt, tool.args.description.as_ref().map(|d| quote!(#d)));
    let display = option(&rt, tool.args.display.as_ref().map(|d| quote!(#d)));
    let tags = &tool.args.tags;
    let scopes = &tool.args.scopes;
    let deprecation = option(
        &rt,
        tool.deprecated.as_ref().map(|(_, since, note)| {
            let since = option(&rt, since.as_ref().map(|s| quote!(#s)));
            let note = option(&rt, note.as_ref().map(|n| quote!(#n)));
            quote!((#since, #note))
        }),
    );
    let hint = |flag: &Option<syn::LitBool>| option(&rt, flag.as_ref().map(|b| quote!(#b)));
    let (read_only, destructive, idempotent, open_world) = (
        hint(&tool.args.read_only),
        hint(&tool.args.destructive),
        hint(&tool.args.idempotent),
        hint(&tool.args.open_world),
    );
    let (repair, coerce, strict, concurrent) = (
        hint(&tool.args.repair),
        hint(&tool.args.coerce),
        hint(&tool.args.strict),
        hint(&tool.args.concurrent),
    );
    let cut_off = option(
        &rt,
        tool.args.cut_off.as_ref().map(|(_, variant)| {
            let variant = syn::Ident::new(variant, proc_macro2::Span::call_site());
            quote!(#rt::CutOff::#variant)
        }),
    );
    let timeout_ms = option(&rt, tool.args.timeout.as_ref().map(|(_, ms)| quote!(#ms)));
    let needs_approval = tool.args.needs_approval.as_ref().is_some_and(|b| b.value);
    let deferred = tool.args.defer.as_ref().is_some_and(|b| b.value);
    let task = tool.args.task.as_ref().is_some_and(|b| b.value);
    let unknown_args = if let Some((_, true)) = &tool.args.unknown_args {
        quote!(#rt::UnknownArgs::Ignore)
    } else {
        quote!(#rt::UnknownArgs::Reject)
    };

    let entry = match ctx_ty {
        _ if !matches!(tool.owner, Owner::Free) => None,
        None => Some(quote! {
            #rt::ToolEntry::free(|| -> #rt::Arc<dyn #rt::ErasedTool<()>> { #rt::erase(#ident) })
        }),
        Some(ty) => Some(quote! {
            #rt::ToolEntry::with_context(|| -> #rt::Box<dyn #rt::Any> {
                #rt::Box::new(#rt::erase::<#ty, #ident>(#ident))
            })
        }),
    };
    // Free tools are gathered for `Toolbox::collect`; a toolset's need their service.
    let submit = entry.map(|entry| quote!(#rt::submit! { #entry }));
    // A toolset's handle is made with its service, and its definition changed when the toolset
    // changes it (a prefix, scopes).
    let constructor = match &tool.owner {
        Owner::Free => None,
        Owner::Method { service, .. } => Some(quote! {
            impl #ident {
                fn __tool_new(
                    __tool_service: #rt::Arc<#service>,
                    __tool_name: #rt::Member,
                ) -> Self {
                    #ident {
                        __tool_service,
                        __tool_definition: #rt::renamed(__tool_definition(), __tool_name),
                    }
                }
            }
        }),
    };

    quote! {
            // schemars' derive names `Some` unqualified (for defaults); a user's own `Some` must not
            // be what it finds.
            #[allow(unused_imports)]
            use #rt::core::option::Option::Some;

            // First, so that a parameter type's own message comes before serde's.
            const _: () = {
                #(#checks)*
            };

            #[doc(hidden)]
            #[allow(private_interfaces, missing_docs)]
            #[derive(#rt::serde::Deserialize, #rt::schemars::JsonSchema)]
            #[serde(crate = #serde_path, deny_unknown_fields)]
            #[schemars(crate = #schemars_path)]
            pub struct __ToolArgs<#(#generics),*> {
                #(#fields,)*
            }

            type __ToolArgsOf = __ToolArgs<#(#field_types),*>;

            #[allow(unused_imports)]
            use #rt::{ArgsUnchecked as _, ArgsViaSerde as _};

            #(#default_fns)*

            // What the tool's definition is built from, once, by shared code: only the schema
            // fns are the tool's own.
            static __TOOL: #rt::MacroTool = #rt::MacroTool {
                name: #name,
                doc: #rt::core::concat!(#(#docs, "\n",)*),
                description: #description,
                params: &[#(#param_names),*],
                display: #display,
                tags: &[#(#tags),*],
                scopes: &[#(#scopes),*],
                deprecated: #deprecation,
                annotations: #rt::ToolAnnotations {
                    read_only: #read_only,
                    destructive: #destructive,
                    idempotent: #idempotent,
                    open_world: #open_world,
                },
                unknown_args: #unknown_args,
                repair: #repair,
                coerce: #coerce,
                cut_off: #cut_off,
                strict: #strict,
                concurrent: #concurrent,
                timeout_ms: #timeout_ms,
                needs_approval: #needs_approval,
                deferred: #deferred,
                task: #task,
                parameters: || (&&#rt::ArgsProbe::<__ToolArgsOf>::NEW).__tool_schema(),
                output_schema: || {
                    #[allow(unused_imports)]
                    use #rt::{SchemaViaNone as _, SchemaViaResult as _, SchemaViaValue as _};
                    (&&&#rt::SchemaProbe::<#ret>::NEW).__tool_output_schema()
                },
                definition: &__TOOL_DEFINITION,
            };

            static __TOOL_DEFINITION: #rt::OnceLock<#rt::Box<#rt::ToolDefinition>> =
                #rt::OnceLock::new();

            fn __tool_definition() -> &'static #rt::ToolDefinition {
                __TOOL.definition()
            }

            #[automatically_derived]
            impl #impl_generics #rt::Tool<#ctx> for #ident {
                type Args = __ToolArgsOf;

                fn definition(&self) -> &#rt::ToolDefinition {
                    #definition
                }

                fn parse_args(
                    &self,
                    __tool_arguments: &#rt::Arguments,
                    #parse_ctx: &#ctx,
                    __tool_session: &mut #rt::ParseSession,
                ) -> ::core::result::Result<__ToolArgsOf, #rt::ArgumentError> {
                    #parse_body
                }

                #call_now

                fn call<'__tool>(
                    &'__tool self,
                    __tool_args: __ToolArgsOf,
                    #call_ctx_binding: &'__tool #ctx,
                    #call_call_binding: #rt::CallScope<'__tool>,
                ) -> impl ::core::future::Future<Output = #rt::Outcome> + ::core::marker::Send + '__tool {
                    #call_body
                }
            }

            #constructor

            #submit
    }
}

/// The `Tool` impl's generics for a tool (or a toolset's `toolset` fn, for all its tools)
/// taking `ctx` as its context, and the context type they name.
pub(crate) fn context_generics(
    rt: &TokenStream,
    ctx: Option<&syn::Type>,
    blocking: bool,
) -> (TokenStream, TokenStream) {
    let generics = match ctx {
        Some(ty) if blocking => {
            quote_spanned!(ty.span()=> <__ToolCtx: #rt::BlockingContext<#ty>>)
        }
        Some(ty) => quote!(
            <__ToolCtx: ?::core::marker::Sized + ::core::marker::Sync + 'static + #rt::ContextOf<#ty>>
        ),
        None => quote!(<__ToolCtx: ?::core::marker::Sized + ::core::marker::Sync + 'static>),
    };
    (generics, quote!(__ToolCtx))
}

fn option(rt: &TokenStream, value: Option<TokenStream>) -> TokenStream {
    if let Some(value) = value {
        quote!(#rt::core::option::Option::Some(#value))
    } else {
        quote!(#rt::core::option::Option::None)
    }
}
