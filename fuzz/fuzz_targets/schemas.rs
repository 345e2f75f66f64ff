//! Any schema a third-party server might send, with any value: compiling and checking it must not
//! panic, overflow a 1 MiB stack or hang, whatever the nesting, references (`$ref`, `$id`,
//! `$anchor`, `$dynamicRef`), patterns, formats or numbers. The input is two JSON texts on two
//! lines: the schema, then the value (`{}` when there is no second line).

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwright_runtime::args::CompiledSchema;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (schema, value) = text.split_once('\n').unwrap_or((text, "{}"));
    let (Ok(schema), Ok(value)) = (
        serde_json::from_str::<Value>(schema),
        serde_json::from_str::<Value>(value),
    ) else {
        return;
    };
    // A second document for any reference to another one: the schema itself.
    let retrieved = schema.clone();
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn_scoped(scope, || {
                let compiled = CompiledSchema::compile_with(&schema, &|_| Some(retrieved.clone()));
                let problems = compiled.validate(&value);
                for problem in &problems {
                    let _ = problem.to_string();
                }
                let mut coerced = value.clone();
                let _ = compiled.coerce(&mut coerced);
                let _ = compiled.validate(&coerced);
            })
            .expect("a thread")
            .join()
            .expect("no panic");
    });
});
