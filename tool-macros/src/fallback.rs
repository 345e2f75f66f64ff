//! Output on error: the fn as written plus a dummy of every public generated item, so the rest of
//! the user's crate does not cascade into unrelated errors (thiserror's `fallback.rs`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

pub(crate) fn expand(item: &ItemFn, krate: &syn::Path, errors: &syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    // A fn with a `self` receiver sits in an impl or trait, where no struct can be declared.
    if item.sig.receiver().is_some() {
        return quote!(#errors #item);
    }
    let vis = &item.vis;
    let function = &item.sig.ident;
    let ident = &crate::ast::handle_ident("", function, function.span());
    let rt = quote!(#krate::__private);
    // A tool in every toolbox, so that registering it (`.with(NameTool)`) adds no error of its
    // own to the ones above. Its bodies never run: the build has already failed.
    quote! {
        #errors
        #item
        #[allow(dead_code)]
        #[doc(hidden)]
        #vis struct #ident;

        #[allow(unreachable_code, clippy::all)]
        impl<__ToolCtx: ?::core::marker::Sized> #rt::Tool<__ToolCtx> for #ident {
            type Args = ();

            fn definition(&self) -> &#rt::ToolDefinition {
                ::core::unreachable!()
            }

            fn parse_args(
                &self,
                _: &#rt::Arguments,
                _: &__ToolCtx,
                _: &mut #rt::ParseSession,
            ) -> ::core::result::Result<(), #rt::ArgumentError> {
                ::core::unreachable!()
            }

            fn call<'__tool>(
                &'__tool self,
                _: (),
                _: &'__tool __ToolCtx,
                _: #rt::CallScope<'__tool>,
            ) -> impl ::core::future::Future<Output = #rt::Outcome> + ::core::marker::Send + '__tool {
                ::core::future::ready(#rt::deferred_sync_body())
            }
        }
    }
}
