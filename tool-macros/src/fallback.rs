//! Output on error: the fn as written plus a dummy of every public generated item, so the rest of
//! the user's crate does not cascade into unrelated errors (thiserror's `fallback.rs`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

pub(crate) fn expand(item: &ItemFn, errors: &syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    // A fn with a `self` receiver sits in an impl or trait, where no struct can be declared.
    if item.sig.receiver().is_some() {
        return quote!(#errors #item);
    }
    let vis = &item.vis;
    let ident = &item.sig.ident;
    quote! {
        #errors
        #item
        #[allow(non_camel_case_types, dead_code)]
        #[doc(hidden)]
        #vis struct #ident {}
    }
}
