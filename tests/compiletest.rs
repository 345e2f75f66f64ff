//! The macro's compile errors (one mistake per file, with its `.stderr`) and pass cases.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
