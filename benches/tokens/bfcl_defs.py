"""Writes real function definitions as JSON Schema tools, one JSON object a line (`name`,
`description`, `parameters`): the Berkeley Function Calling Leaderboard's (BFCL v4, the
`bfcl-eval` package on PyPI, Apache-2.0), one per name, with its Python-flavoured types made
JSON Schema's (`dict` -> `object`, `float` -> `number`, `tuple` -> `array`, `any` -> no type).

    python3 benches/tokens/bfcl_defs.py DATA_DIR [N] > defs.jsonl
"""

import json
import os
import sys

TYPES = {"dict": "object", "float": "number", "tuple": "array", "list": "array", "int": "integer",
         "str": "string", "bool": "boolean", "String": "string", "Boolean": "boolean"}


def fix(node):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "type" and isinstance(value, str):
                if value == "any":
                    continue
                out[key] = TYPES.get(value, value)
            else:
                out[key] = fix(value)
        return out
    if isinstance(node, list):
        return [fix(item) for item in node]
    return node


def main():
    data = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
    seen = set()
    for name in sorted(os.listdir(data)):
        if not name.endswith(".json") or any(k in name for k in ("multi_turn", "memory", "web_search", "format")):
            continue
        with open(os.path.join(data, name)) as f:
            for line in f:
                for function in json.loads(line).get("function", []):
                    if function["name"] in seen:
                        continue
                    seen.add(function["name"])
                    print(json.dumps({"name": function["name"], "description": function.get("description", ""),
                                      "parameters": fix(function.get("parameters") or {"type": "object"})}))
                    if limit and len(seen) >= limit:
                        return


if __name__ == "__main__":
    main()
