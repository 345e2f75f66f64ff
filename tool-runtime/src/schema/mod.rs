//! The JSON Schema draft 2020-12 validator arguments are checked with: a schema compiled once
//! per tool ([`CompiledSchema`]), its formats, ECMA-262 patterns and exact numbers, the
//! coercions toward it ([`Coercion`]) and the problems it finds ([`Problem`]), each with its
//! path. It knows JSON and nothing of tools; `args` runs it.

mod coerce;
pub(crate) mod compiled;
mod format;
mod idna;
pub(crate) mod inline;
mod number;
mod pattern;
pub(crate) mod problem;
mod validate;

pub use self::coerce::{Coercion, CoercionKind};
pub use self::compiled::CompiledSchema;
pub use self::problem::{Problem, ProblemKind};
