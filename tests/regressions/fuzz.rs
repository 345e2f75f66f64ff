//! Bugs the fuzz targets found (`fuzz/README.md`), each kept as the input that showed it.

use serde_json::{Value, json};
use toolwright::ToolDefinition;
use toolwright::args::{CompiledSchema, ProblemKind};

/// Found by the `arguments` fuzz target: a deeply nested array under `uniqueItems` made the
/// duplicate check quote its items level by level, doubling the size at each level (2 GB).
#[test]
fn unique_items_over_deeply_nested_values_stays_linear() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "uniqueItems": true},
    }});
    let definition = ToolDefinition::new("t", "T.", schema).unwrap();
    let nested = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let value: Value =
        serde_json::from_str(&format!(r#"{{"tags": [{nested}, {nested}, "x\"y"]}}"#)).unwrap();
    let problems = definition.compiled_schema().validate(&value);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].kind, ProblemKind::Items);
}

#[test]
fn a_retriever_that_answers_everything_does_not_make_compiling_endless() {
    // Found by the `schemas` fuzz target: a relative reference resolves to a new address in
    // every document retrieved for it; a retriever that answers every address (here: the same
    // schema again) would be asked forever. Documents per schema are bounded (64).
    let schema = json!({"$ref": " http://example.com/ref", "type": "integer"});
    let asked = std::cell::Cell::new(0);
    let compiled = CompiledSchema::compile_with(&schema, &|_| {
        asked.set(asked.get() + 1);
        Some(schema.clone())
    });
    assert!(asked.get() <= 65, "{}", asked.get());
    assert!(
        !compiled.unsupported().is_empty(),
        "the reference left unresolved is listed"
    );
    // Refused, the rule said once although every document in the chain says it.
    let problems: Vec<String> = compiled
        .validate(&json!("text"))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems
            .iter()
            .filter(|p| p.contains("expected an integer"))
            .count(),
        1,
        "{problems:?}"
    );
}

#[test]
fn a_union_that_refers_back_to_itself_is_coerced_in_bounded_stack() {
    // Found by the `schemas` fuzz target: coercing a scalar no branch takes tries each branch
    // on a copy; a branch that refers back to the union started its trials at the same depth
    // again, and recursed until the stack overflowed. Trials now go deeper each time.
    let schema = json!({"anyOf": [{"$ref": "#", "type": "number"}, {"type": "boolean"}]});
    let worker = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let compiled = CompiledSchema::compile(&schema);
            let mut value = json!("x");
            let _ = compiled.coerce(&mut value);
            assert!(!compiled.validate(&value).is_empty());
        });
    worker.unwrap().join().expect("no overflow");
}
