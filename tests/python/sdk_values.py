"""What the SDK checks share: a value validated by an SDK type, as plain JSON data."""

import collections.abc


def plain(value):
    """A validated value as plain JSON data: pydantic validates `Iterable` fields lazily, and a
    union may take a response model for a request block (only the fields the input set count)."""
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(mode="json", exclude_unset=True))
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Iterable):
        return [plain(item) for item in value]
    return value


def check_files(paths, kinds, check, what):
    """Checks each JSON file named `<kind>--<anything>.json` with `check(kind, value)` (a list of
    problems), prints the problems and a count, and gives the exit status: 1 when anything was
    refused, a file's kind is not in `kinds`, or no file was checked."""
    import json
    import os
    import sys

    failures = []
    checked = 0
    for path in paths:
        kind = os.path.basename(path).split("--")[0]
        if kind not in kinds:
            failures.append(f"{path}: no SDK type for `{kind}`")
            continue
        with open(path) as f:
            value = json.load(f)
        checked += 1
        failures.extend(f"{path}: {problem}" for problem in check(kind, value))
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{checked} {what} checked against the SDKs' request types: {len(failures)} refused")
    return 1 if failures or checked == 0 else 0
