//! Auto-collection of every `#[tool]` in the binary (the `inventory` feature).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::args::{ArgumentError, ArgumentPolicy, ParseSession};
use crate::call::Arguments;
use crate::result::ToolResult;
use crate::task::CallScope;
use crate::task::MaybeReady;
use crate::tool::{ErasedTool, ToolDefinition};

/// A generated tool's entry in the binary-wide registry.
pub struct ToolEntry {
    kind: EntryKind,
}

enum EntryKind {
    /// A tool that takes no context: usable in every toolbox.
    Free(fn() -> Arc<dyn ErasedTool<()>>),
    /// A tool for one context type: makes a boxed `Arc<dyn ErasedTool<C>>`.
    Context(fn() -> Box<dyn Any>),
}

impl fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolEntry").finish_non_exhaustive()
    }
}

impl ToolEntry {
    /// The entry of a tool that takes no context.
    pub const fn free(make: fn() -> Arc<dyn ErasedTool<()>>) -> Self {
        ToolEntry {
            kind: EntryKind::Free(make),
        }
    }

    /// The entry of a tool for one context type; `make` boxes an `Arc<dyn ErasedTool<C>>`.
    pub const fn with_context(make: fn() -> Box<dyn Any>) -> Self {
        ToolEntry {
            kind: EntryKind::Context(make),
        }
    }

    /// The tool for a toolbox of context `C`, or `None` when it needs another context.
    #[cfg_attr(not(feature = "inventory"), allow(dead_code))]
    pub(crate) fn make<C: ?Sized + Sync + 'static>(&self) -> Option<Arc<dyn ErasedTool<C>>> {
        match self.kind {
            EntryKind::Free(make) => Some(Arc::new(AnyContext(make()))),
            EntryKind::Context(make) => make()
                .downcast::<Arc<dyn ErasedTool<C>>>()
                .ok()
                .map(|tool| *tool),
        }
    }
}

#[cfg(feature = "inventory")]
inventory::collect!(ToolEntry);

/// A context-free tool in a toolbox of any context type.
struct AnyContext(Arc<dyn ErasedTool<()>>);

impl<C: ?Sized + Sync + 'static> ErasedTool<C> for AnyContext {
    fn definition(&self) -> &ToolDefinition {
        self.0.definition()
    }

    fn parse_dyn(
        &self,
        arguments: &Arguments,
        _ctx: &C,
        session: &mut ParseSession,
    ) -> Result<Box<dyn Any + Send>, ArgumentError> {
        self.0.parse_dyn(arguments, &(), session)
    }

    fn run_dyn<'a>(
        &'a self,
        arguments: &'a Arguments,
        _ctx: &'a C,
        call: CallScope<'a>,
        policy: &ArgumentPolicy,
    ) -> MaybeReady<'a, ToolResult> {
        self.0.run_dyn(arguments, &(), call, policy)
    }
}
