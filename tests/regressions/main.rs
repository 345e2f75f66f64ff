//! Regressions: each test here is a bug found after its feature shipped (by an issue, a fuzz
//! target or an outside check), kept as the input that showed it so that it stays fixed. A new
//! one goes in the file of its finder, naming it. `properties.proptest-regressions` holds the
//! failing cases proptest found in `tests/schema/properties.rs`, replayed before new ones.

pub mod fuzz;
pub mod rules;
