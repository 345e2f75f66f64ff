//! The model of a `#[tool]` fn: what the expansion needs, with the user's tokens and spans.
//!
//! Building it also strips the helper attributes it consumed from the fn, which is then emitted
//! as written otherwise.

use proc_macro2::Span;
use syn::{Attribute, Expr, FnArg, Ident, ItemFn, LitStr, Meta, Pat, ReturnType, Type};

use crate::attr::{self, ParamArgs, ToolArgs};
use crate::ctxt::Ctxt;

pub(crate) struct ToolFn {
    pub(crate) args: ToolArgs,
    pub(crate) owner: Owner,
    pub(crate) ident: Ident,
    pub(crate) vis: syn::Visibility,
    pub(crate) is_async: bool,
    /// The expressions of the fn's `#[doc = ..]` attributes.
    pub(crate) docs: Vec<Expr>,
    /// The fn's `#[deprecated]`, as written, and its `since`/`note`.
    pub(crate) deprecated: Option<(Attribute, Option<LitStr>, Option<LitStr>)>,
    pub(crate) params: Vec<Param>,
    /// The declared return type; `None` for `()`.
    pub(crate) ret: Option<Type>,
}

/// Where the tool's fn is declared.
pub(crate) enum Owner {
    /// A free fn: its handle is a unit struct named for it ([`handle_ident`]: `AddTool` for
    /// `add`).
    Free,
    /// A method of a `#[toolset]` impl block: its handle (named `handle`) holds an `Arc` of the
    /// service type, lent to the method when it takes `&self`.
    Method {
        service: Box<Type>,
        takes_self: bool,
        handle: Ident,
    },
}

pub(crate) struct Param {
    /// The parameter's name; `None` when it is a pattern (already reported).
    pub(crate) ident: Option<Ident>,
    pub(crate) ty: Type,
    pub(crate) args: ParamArgs,
    /// `#[doc]`, `#[serde]` and `#[schemars]` attributes, forwarded to the arguments struct.
    pub(crate) forwarded: Vec<Attribute>,
    pub(crate) span: Span,
}

pub(crate) enum ParamKind<'a> {
    /// An argument the model sends, under this name.
    Argument { name: String },
    /// `#[tool(context)]`: the application context, `&C`.
    Context { inner: &'a Type },
    /// `#[tool(call_info)]`.
    CallInfo,
}

impl Param {
    pub(crate) fn kind(&self) -> ParamKind<'_> {
        if self.args.call_info.is_some() {
            return ParamKind::CallInfo;
        }
        if self.args.context.is_some() {
            let inner = match &self.ty {
                Type::Reference(reference) => &*reference.elem,
                other => other,
            };
            return ParamKind::Context { inner };
        }
        ParamKind::Argument {
            name: self.argument_name(),
        }
    }

    pub(crate) fn argument_name(&self) -> String {
        match (&self.args.rename, &self.ident) {
            (Some(rename), _) => rename.value(),
            (None, Some(ident)) => unraw(ident),
            (None, None) => String::new(),
        }
    }
}

pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map_or(text.clone(), str::to_owned)
}

/// A tool's handle, one scheme for free fns and toolset methods: the fn's name in
/// upper camel case after the service's, then `Tool` (`AddTool` for `add`, `ShopFindOrdersTool`
/// for `Shop::find_orders`), spanned at `span`.
pub(crate) fn handle_ident(service: &str, function: &Ident, span: Span) -> Ident {
    Ident::new(&format!("{service}{}Tool", camel(function)), span)
}

/// A fn's name in upper camel case: `FindOrders` for `find_orders`.
pub(crate) fn camel(function: &Ident) -> String {
    unraw(function)
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect()
}

impl ToolFn {
    /// The handle the tool's `Tool` impl is for. A free fn's has the fn's span, so that
    /// diagnostics about it point at the fn.
    pub(crate) fn handle(&self) -> Ident {
        match &self.owner {
            Owner::Free => handle_ident("", &self.ident, self.ident.span()),
            Owner::Method { handle, .. } => handle.clone(),
        }
    }
    /// Reads the fn and strips the helper attributes on its parameters. Receivers are reported here
    /// (they have no type to model); everything else is checked in `valid`.
    pub(crate) fn from_item(
        item: &mut ItemFn,
        args: ToolArgs,
        mut owner: Owner,
        cx: &mut Ctxt,
    ) -> ToolFn {
        let docs = item.attrs.iter().filter_map(doc_expr).cloned().collect();
        let deprecated = item
            .attrs
            .iter()
            .find(|a| a.path().is_ident("deprecated"))
            .map(|attr| {
                let (since, note) = deprecation(attr, cx);
                (attr.clone(), since, note)
            });
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            match input {
                FnArg::Receiver(receiver) => receive(receiver, &mut owner, cx),
                FnArg::Typed(typed) => {
                    let mut param_args = ParamArgs::default();
                    let mut forwarded = Vec::new();
                    typed.attrs.retain(|attr| {
                        if attr.path().is_ident("tool") {
                            attr::parse_param_attr(attr, &mut param_args, cx);
                            false
                        } else if ["doc", "serde", "schemars"]
                            .iter()
                            .any(|n| attr.path().is_ident(n))
                        {
                            forwarded.push(attr.clone());
                            false
                        } else {
                            true
                        }
                    });
                    let ident = match &*typed.pat {
                        Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => {
                            Some(pat.ident.clone())
                        }
                        other => {
                            cx.spanned(other, "tool parameters must be plain names, not patterns: the name is the argument's name; destructure it in the body");
                            None
                        }
                    };
                    params.push(Param {
                        ident,
                        ty: (*typed.ty).clone(),
                        args: param_args,
                        forwarded,
                        span: syn::spanned::Spanned::span(&typed.pat),
                    });
                }
            }
        }
        ToolFn {
            args,
            owner,
            ident: item.sig.ident.clone(),
            vis: item.vis.clone(),
            is_async: item.sig.asyncness.is_some(),
            docs,
            deprecated,
            params,
            ret: match &item.sig.output {
                ReturnType::Default => None,
                ReturnType::Type(_, ty) => Some((**ty).clone()),
            },
        }
    }

    /// The tool's name: `#[tool(name)]` or the fn's name.
    pub(crate) fn name(&self) -> String {
        match &self.args.name {
            Some(name) => name.value(),
            None => unraw(&self.ident),
        }
    }

    pub(crate) fn context(&self) -> Option<&Type> {
        self.params.iter().find_map(|p| match p.kind() {
            ParamKind::Context { inner } => Some(inner),
            _ => None,
        })
    }
}

/// A method's receiver: `&self` in a `#[toolset]` impl; nothing else anywhere.
fn receive(receiver: &syn::Receiver, owner: &mut Owner, cx: &mut Ctxt) {
    let token = &receiver.self_token;
    let Owner::Method { takes_self, .. } = owner else {
        cx.spanned(
            token,
            "a #[tool] method needs #[toolset] on its impl block: `#[toolset] impl Service { #[tool] fn name(&self, ..) }`; a free #[tool] fn takes shared state through a #[tool(context)] parameter",
        );
        return;
    };
    match &receiver.kind {
        syn::ReceiverKind::Reference(_, _, None) => *takes_self = true,
        syn::ReceiverKind::Reference(and, _, Some(mutability)) => cx.spanned(
            quote::quote!(#and #mutability #token),
            "a toolset's tools take `&self`, not `&mut self`: calls may run concurrently on the one shared service; keep mutable state behind a `Mutex` or `RwLock`",
        ),
        syn::ReceiverKind::Value => cx.spanned(
            token,
            "a toolset's tools take `&self`, not `self`: every call borrows the one service the toolset shares (in an `Arc`)",
        ),
        _ => cx.spanned(
            receiver,
            "a toolset's tools take `&self`: the toolset holds the service in an `Arc` and lends it to each call",
        ),
    }
}

fn doc_expr(attr: &Attribute) -> Option<&Expr> {
    match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("doc") => Some(&nv.value),
        _ => None,
    }
}

/// `#[deprecated]`, `#[deprecated = "note"]`, `#[deprecated(since = "..", note = "..")]`.
fn deprecation(attr: &Attribute, cx: &mut Ctxt) -> (Option<LitStr>, Option<LitStr>) {
    match &attr.meta {
        Meta::Path(_) => (None, None),
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(note),
                ..
            }) => (None, Some(note.clone())),
            _ => (None, None),
        },
        Meta::List(_) => {
            let (mut since, mut note) = (None, None);
            let result = attr.parse_nested_meta(|meta| {
                let value: LitStr = meta.value()?.parse()?;
                if meta.path.is_ident("since") {
                    since = Some(value);
                } else if meta.path.is_ident("note") {
                    note = Some(value);
                }
                Ok(())
            });
            if let Err(error) = result {
                cx.error(error);
            }
            (since, note)
        }
    }
}
