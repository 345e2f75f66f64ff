"""Feeds toolwright's Gemini tool lists to the official SDK's own models.

google-genai's `types.Tool` and `types.FunctionDeclaration` are pydantic models that refuse
unknown fields (`$ref`, `$defs`, `additionalProperties` spelled wrong, any keyword Gemini does not
know) offline. Each argument is a JSON file holding a Gemini request's `tools` value (a list of
`{"functionDeclarations": [...]}`), as `cargo run --example providers -- gemini` prints it.

Exit status 1 when the SDK refuses anything, or when a declaration loses a parameter on the way
through the SDK. Run by `.ci/run` from a virtualenv with google-genai 3.6.1.
"""

import json
import sys

from google.genai import types


def property_names(schema):
    """Every property name in a schema, with its path (the SDK keeps names as keys)."""
    names = set()

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in (node.get("properties") or {}).items():
                names.add(f"{path}/{key}")
                walk(value, f"{path}/{key}")
            for key in ("items", "anyOf", "any_of"):
                child = node.get(key)
                if isinstance(child, list):
                    for i, item in enumerate(child):
                        walk(item, f"{path}/{key}/{i}")
                elif child is not None:
                    walk(child, f"{path}/{key}")

    walk(schema, "")
    return names


def check_file(path):
    failures = []
    declarations = 0
    with open(path) as f:
        tools = json.load(f)
    for tool in tools:
        try:
            types.Tool.model_validate(tool)
        except Exception as error:  # the SDK's validation error, reported as it is
            failures.append(f"{path}: types.Tool refused the list: {error}")
        for declaration in tool["functionDeclarations"]:
            declarations += 1
            name = declaration.get("name")
            try:
                parsed = types.FunctionDeclaration.model_validate(declaration)
            except Exception as error:
                failures.append(f"{path}: {name}: {error}")
                continue
            dumped = parsed.model_dump(mode="json", by_alias=True, exclude_none=True)
            for key in ("parameters", "parametersJsonSchema"):
                if key in declaration:
                    sent = property_names(declaration[key])
                    kept = property_names(dumped.get(key) or {})
                    if sent != kept:
                        failures.append(
                            f"{path}: {name}: the SDK kept {sorted(kept)} of {sorted(sent)}"
                        )
    return declarations, failures


def main():
    # The check has teeth: the SDK refuses what Gemini refuses.
    try:
        types.FunctionDeclaration.model_validate(
            {"name": "f", "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}}
        )
        print("google-genai accepted a $ref in parameters; this check proves nothing", file=sys.stderr)
        return 1
    except Exception:
        pass
    total = 0
    failures = []
    for path in sys.argv[1:]:
        count, found = check_file(path)
        total += count
        failures += found
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"google-genai checked {total} declaration(s) in {len(sys.argv) - 1} file(s): "
          f"{len(failures)} refused")
    return 1 if failures or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
