//! The macro's compile errors (one mistake per file, with its `.stderr`) and pass cases.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    t.pass("ui/pass/*.rs");
}
