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
}
