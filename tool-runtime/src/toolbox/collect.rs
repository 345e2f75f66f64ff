//! Every `#[tool]` of the binary in one toolbox (feature `inventory`).

#[cfg(feature = "inventory")]
use std::sync::Arc;

#[cfg(feature = "inventory")]
use crate::collect::ToolEntry;
#[cfg(feature = "inventory")]
use crate::tool::ErasedTool;

#[cfg(feature = "inventory")]
impl<C: ?Sized + Sync + 'static> super::Toolbox<C> {
    /// A toolbox of every `#[tool]` in the binary that works with context `C` (tools that take no
    /// context, and tools that take `&C`), ordered by name.
    ///
    /// # Errors
    /// When two collected tools share a name.
    pub fn collect() -> Result<Self, crate::toolbox::RegisterError> {
        let mut tools: Vec<Arc<dyn ErasedTool<C>>> = inventory::iter::<ToolEntry>
            .into_iter()
            .filter_map(ToolEntry::make::<C>)
            .collect();
        tools.sort_by(|a, b| a.definition().name().cmp(b.definition().name()));
        let mut toolbox = crate::toolbox::Toolbox::for_context();
        for tool in tools {
            toolbox.register_dyn(tool)?;
        }
        Ok(toolbox)
    }
}
