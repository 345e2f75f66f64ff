//! Collects every error of one expansion, to report them all at once (serde's `Ctxt`).

use std::fmt::Display;

use quote::ToTokens;

#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Option<syn::Error>,
}

impl Ctxt {
    pub(crate) fn error(&mut self, error: syn::Error) {
        match &mut self.errors {
            Some(all) => all.combine(error),
            None => self.errors = Some(error),
        }
    }

    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.error(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn check(self) -> Result<(), syn::Error> {
        match self.errors {
            Some(errors) => Err(errors),
            None => Ok(()),
        }
    }
}

/// The output for an item the attribute does not go on: the error, and the item as written.
pub(crate) fn misplaced(
    input: &proc_macro2::TokenStream,
    message: &str,
) -> proc_macro2::TokenStream {
    let error = syn::Error::new(proc_macro2::Span::call_site(), message).to_compile_error();
    quote::quote!(#error #input)
}
