use toolwright::tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Measure a point's distance from the origin.
#[tool]
fn norm(point: Point) -> f64 {
    (point.x * point.x + point.y * point.y).sqrt()
}

fn main() {}
