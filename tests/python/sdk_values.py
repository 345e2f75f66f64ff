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
