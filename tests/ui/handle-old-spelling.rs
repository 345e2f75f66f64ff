// Before the handles of free fns and of toolset methods were named one way, a free fn's handle
// was a braced struct named like the fn (`add {}`). No transition is kept (nothing was
// published with it): that spelling now names the fn and does not compile; the handle is
// `AddTool`.
use toolwright::{Toolbox, tool};

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let _ = Toolbox::<()>::new().with(add {});
}
