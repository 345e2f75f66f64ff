//! Who may see and call which tool: the scopes each tool requires (its own, and those of the
//! toolbox's rules), checked against a [`Caller`]'s.

use std::sync::Arc;

use crate::caller::Caller;
use crate::tool::ToolDefinition;

use super::Toolbox;

/// Which tools a scope rule applies to.
pub(crate) type ScopeRule = dyn Fn(&ToolDefinition) -> bool + Send + Sync;

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// Requires `scopes` of every caller, for every tool `when` selects (registered before or
    /// after), besides each tool's own ([`ToolDefinition::scopes`]): a caller without them does
    /// not see those tools and cannot call them. Calls made for no caller in particular
    /// ([`execute`](Self::execute), a batch without
    /// [`on_behalf_of`](crate::exec::BatchOptions::on_behalf_of)) are not affected.
    ///
    /// ```
    /// use toolwright::{Toolbox, tool, exec::Caller};
    ///
    /// /// Read a note.
    /// #[tool(read_only)]
    /// fn read_note(id: u32) -> String { format!("note {id}") }
    ///
    /// /// Delete a note.
    /// #[tool(destructive)]
    /// fn delete_note(id: u32) -> String { format!("deleted {id}") }
    ///
    /// let tools = Toolbox::new()
    ///     .with_all((ReadNoteTool, DeleteNoteTool))
    ///     .unwrap()
    ///     .require_scopes(["admin"], |tool| tool.annotations().destructive == Some(true));
    /// let reader = Caller::new("ada").with_scopes(["notes"]);
    /// assert!(tools.may_call(&reader, "read_note"));
    /// assert!(!tools.may_call(&reader, "delete_note"));
    /// assert!(tools.may_call(&Caller::new("root").with_scopes(["admin"]), "delete_note"));
    /// ```
    #[must_use]
    pub fn require_scopes<I, S>(
        mut self,
        scopes: I,
        when: impl Fn(&ToolDefinition) -> bool + Send + Sync + 'static,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scope_rules
            .push((scopes.into_iter().map(Into::into).collect(), Arc::new(when)));
        self
    }

    /// The scopes a caller must hold for the tool `name`: the tool's own, then each rule's that
    /// selects it, each once; `None` when there is no such tool.
    pub fn required_scopes(&self, name: &str) -> Option<Vec<&str>> {
        let definition = self.get(name)?.definition();
        let mut scopes: Vec<&str> = definition.scopes().iter().map(String::as_str).collect();
        for (required, when) in &self.scope_rules {
            if when(definition) {
                for scope in required {
                    if !scopes.contains(&scope.as_str()) {
                        scopes.push(scope);
                    }
                }
            }
        }
        Some(scopes)
    }

    /// Whether `caller` may see and call the tool `name` (false when there is no such tool).
    pub fn may_call(&self, caller: &Caller, name: &str) -> bool {
        self.get(name)
            .is_some_and(|tool| self.permits(caller, tool.definition()))
    }

    /// The definitions of the tools `caller` may see and call, in registration order: what to
    /// offer a model working for that caller.
    pub fn definitions_for<'a>(
        &'a self,
        caller: &'a Caller,
    ) -> impl Iterator<Item = &'a ToolDefinition> + 'a {
        self.definitions()
            .filter(move |definition| self.permits(caller, definition))
    }

    /// Whether `caller` holds every scope `definition`'s tool requires here.
    pub(crate) fn permits(&self, caller: &Caller, definition: &ToolDefinition) -> bool {
        caller.has_scopes(definition.scopes())
            && self
                .scope_rules
                .iter()
                .all(|(required, when)| !when(definition) || caller.has_scopes(required))
    }
}
