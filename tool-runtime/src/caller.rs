//! Who a call is made for: the identity and scopes an authenticated request carries, which
//! decide the tools it may see and call.

use std::collections::BTreeSet;

/// Who a call is made for: an identity (the token's subject, a user id) and the scopes it was
/// granted. A toolbox shows a caller only the tools whose scopes it holds and refuses it the
/// others exactly as it refuses an unknown tool
/// ([`Toolbox::may_call`](crate::Toolbox::may_call),
/// [`BatchOptions::on_behalf_of`](crate::exec::BatchOptions::on_behalf_of)); a tool body learns it
/// from [`CallInfo::caller`](crate::CallInfo::caller).
///
/// It holds no secret: whatever authenticated the caller (a bearer token) is checked before a
/// `Caller` is made and is not kept.
///
/// ```
/// use toolwright::exec::Caller;
///
/// let caller = Caller::new("ada").with_scopes(["notes:read", "notes:write"]);
/// assert!(caller.has_scope("notes:write"));
/// assert!(caller.has_scopes(["notes:read", "notes:write"]));
/// assert!(!caller.has_scope("admin"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Caller {
    subject: String,
    scopes: BTreeSet<String>,
}

impl Caller {
    /// A caller known as `subject`, with no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Caller {
            subject: subject.into(),
            scopes: BTreeSet::new(),
        }
    }

    /// The same caller, granted `scopes` as well.
    #[must_use]
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Who the caller is: the subject its credentials name.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The scopes granted, in order.
    pub fn scopes(&self) -> impl ExactSizeIterator<Item = &str> {
        self.scopes.iter().map(String::as_str)
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// Whether every one of `scopes` was granted.
    pub fn has_scopes<I, S>(&self, scopes: I) -> bool
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        scopes
            .into_iter()
            .all(|scope| self.scopes.contains(scope.as_ref()))
    }
}
