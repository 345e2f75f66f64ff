//! Argument types with unions and sets, as real tools have them: an internally tagged enum (a
//! `oneOf` of objects told apart by `kind`), a recursive untagged enum (an `anyOf` of a number
//! and an object), documented unit variants (a `oneOf` of constants), sets (`uniqueItems`).
//! Shared by the agreement and differential tests and the schema benches.

// Read by serde and printed in some tests, looked into by none.
#![allow(dead_code)]

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;

/// A shape.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// Radius, at least 0.
        #[schemars(range(min = 0.0))]
        radius: f64,
    },
    /// A rectangle.
    Rect {
        /// Width.
        width: u32,
        /// Height, at most 100.
        #[schemars(range(max = 100))]
        height: u32,
    },
    /// A text label.
    Label {
        /// The text, 1 to 8 characters.
        #[schemars(length(min = 1, max = 8))]
        text: String,
    },
}

/// A layer of a drawing.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Layer {
    /// The layer's name.
    pub name: String,
    /// Its shapes.
    pub shapes: Vec<Shape>,
    /// Distinct tags.
    pub tags: BTreeSet<String>,
    /// Whether it is hidden.
    pub hidden: Option<bool>,
}

/// An expression: a number, or an operation over expressions.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Expr {
    /// A literal, at most 1000.
    Number(#[schemars(range(max = 1000))] f64),
    /// An operation.
    Op {
        /// The operator.
        op: Op,
        /// The operands, at least 1.
        #[schemars(length(min = 1))]
        args: Vec<Expr>,
    },
}

/// An operator.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Sum.
    Add,
    /// Product.
    Mul,
}
