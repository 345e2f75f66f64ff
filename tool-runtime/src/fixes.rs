//! What the argument pipeline changed to make a call's arguments usable.

use serde::Serialize;

use toolwright_json::Repair;
use toolwright_schema::Coercion;

/// What the pipeline changed to make a call's arguments usable: JSON repairs and schema
/// coercions. Applications log these to see how often a model needed help.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Fixes {
    /// Repairs of the arguments text, with byte offsets.
    pub repairs: Vec<Repair>,
    /// Coercions of values, with paths.
    pub coercions: Vec<Coercion>,
}

impl Fixes {
    /// Whether nothing needed fixing.
    pub fn is_empty(&self) -> bool {
        self.repairs.is_empty() && self.coercions.is_empty()
    }

    /// Drops fixes known to be empty: with no storage either (the commonest case, a call that
    /// needed nothing), there is nothing to free, and the out-of-line drop of both lists is
    /// skipped.
    #[inline(always)]
    pub(crate) fn discard_empty(self) {
        if self.repairs.capacity() == 0 && self.coercions.capacity() == 0 {
            std::mem::forget(self);
        }
    }
}
