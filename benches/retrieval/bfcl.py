"""Retrieval quality of toolwright's tool search on real function definitions and questions.

The corpus is the Berkeley Function Calling Leaderboard's data (BFCL v4, the `bfcl-eval`
package on PyPI, Apache-2.0, https://github.com/ShishirPatil/gorilla): every function
definition of its single-turn categories, one per name (the first definition of a name), and
every question whose expected answer is one call, with that call's function as the right tool.
Each question is searched among all the definitions.

toolwright's answers come from the `tool_search` driver (`cargo build --release --example
tool_search`), the line interface the toolbox's search tool uses. Beside it, plain BM25
(`rank_bm25`'s BM25Okapi, lowercase word tokens) over the same text of each definition: name,
description, parameter names, parameter descriptions and enum values.

    python3 benches/retrieval/bfcl.py DATA_DIR DRIVER [--check]

DATA_DIR is `bfcl_eval/data` of the unpacked wheel. With `--check`, exits 1 unless the right tool
is in the top 5 for at least 85% of questions and the top 1 for at least 60%, and toolwright is
ahead of BM25 at every k.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

CATEGORIES = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "live_simple",
    "live_multiple",
    "parallel",
    "parallel_multiple",
    "live_parallel",
    "live_parallel_multiple",
]
KS = [1, 3, 5, 10]


def load(data):
    defs, queries, seen = {}, [], set()
    for category in CATEGORIES:
        answers = {}
        with open(os.path.join(data, "possible_answer", f"BFCL_v4_{category}.json")) as f:
            for line in f:
                row = json.loads(line)
                answers[row["id"]] = row["ground_truth"]
        with open(os.path.join(data, f"BFCL_v4_{category}.json")) as f:
            for line in f:
                row = json.loads(line)
                for function in row["function"]:
                    defs.setdefault(function["name"], function)
                truth = answers.get(row["id"]) or []
                names = {name for call in truth for name in call}
                if len(names) != 1:
                    continue
                turns = row["question"][0]
                question = " ".join(t["content"] for t in turns if t["role"] == "user").strip()
                key = (question, next(iter(names)))
                if question and key not in seen:
                    seen.add(key)
                    queries.append(key)
    return defs, queries


def parameter_text(schema, names, docs, budget=[0]):
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                names.append(name)
                if isinstance(prop, dict):
                    for key in ("description", "title"):
                        if isinstance(prop.get(key), str):
                            docs.append(prop[key])
                    for value in prop.get("enum") or []:
                        if isinstance(value, str):
                            docs.append(value)
                    stack.append(prop)
            for key in ("items", "additionalProperties"):
                if isinstance(node.get(key), dict):
                    stack.append(node[key])


def bm25_ranks(defs, queries, k):
    from rank_bm25 import BM25Okapi

    names = list(defs)
    corpus = []
    for name in names:
        d = defs[name]
        pnames, pdocs = [], []
        parameter_text(d.get("parameters") or {}, pnames, pdocs)
        text = " ".join([name, d.get("description") or ""] + pnames + pdocs)
        corpus.append(re.findall(r"\w+", text.lower()))
    bm25 = BM25Okapi(corpus)
    out = []
    for question, _ in queries:
        scores = bm25.get_scores(re.findall(r"\w+", question.lower()))
        best = sorted(range(len(names)), key=lambda i: -scores[i])[:k]
        out.append([names[i] for i in best if scores[i] > 0])
    return out


def toolwright_ranks(defs, queries, driver, k):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for d in defs.values():
            f.write(json.dumps({"name": d["name"], "description": d.get("description"),
                                "parameters": d.get("parameters")}) + "\n")
        path = f.name
    questions = "".join(q.replace("\n", " ") + "\n" for q, _ in queries)
    done = subprocess.run([driver, path, "--k", str(k)], input=questions, capture_output=True,
                          text=True, check=True)
    os.unlink(path)
    return [json.loads(line) for line in done.stdout.splitlines()]


def rates(ranks, queries):
    return {k: sum(truth in r[:k] for r, (_, truth) in zip(ranks, queries)) / len(queries) for k in KS}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    data, driver = args
    defs, queries = load(data)
    ours = rates(toolwright_ranks(defs, queries, driver, max(KS)), queries)
    theirs = rates(bm25_ranks(defs, queries, max(KS)), queries)
    print(f"{len(defs)} definitions, {len(queries)} questions (BFCL v4)")
    print("| search | " + " | ".join(f"top {k}" for k in KS) + " |")
    print("| --- |" + " --- |" * len(KS))
    print("| toolwright | " + " | ".join(f"{ours[k]:.1%}" for k in KS) + " |")
    print("| BM25 (rank_bm25) | " + " | ".join(f"{theirs[k]:.1%}" for k in KS) + " |")
    if "--check" in sys.argv:
        failed = []
        if ours[5] < 0.85:
            failed.append(f"top 5 {ours[5]:.1%} < 85%")
        if ours[1] < 0.60:
            failed.append(f"top 1 {ours[1]:.1%} < 60%")
        failed += [f"top {k}: behind BM25" for k in KS if ours[k] <= theirs[k]]
        if failed:
            print("FAILED: " + "; ".join(failed), file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
