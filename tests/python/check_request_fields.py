"""Feeds toolwright's request tool fields to the official SDKs' own request types.

Each argument is a JSON file holding one request's tool fields, as
`cargo run --example providers -- <form> --tool-choice <mode>` prints them, named
`<form>--<anything>.json`. The fields are checked against:

- OpenAI Chat (`openai`, `openai-strict`): the `openai` SDK's `CompletionCreateParamsBase`
  TypedDict (`tools`, `tool_choice`, `parallel_tool_calls`);
- OpenAI Responses (`openai-responses`): its `ResponseCreateParamsBase`;
- Anthropic (`anthropic`, `anthropic-strict`): the `anthropic` SDK's `MessageCreateParamsBase`;
- Gemini (`gemini`, `gemini-json-schema`): google-genai's `types.Tool` and `types.ToolConfig`.

The TypedDicts are validated through pydantic's `TypeAdapter`, one field at a time with the
field's own type; a value must come back out of validation unchanged (a key the type does not
know is dropped by validation, and counts as refused). google-genai's models refuse unknown
fields themselves (and take an enum value they do not know with a warning, which counts as
refused here). Exit status 1 when anything is refused, or when the check itself would pass
shapes the providers refuse. Run by `.ci/run` from its virtualenv.
"""

import collections.abc
import json
import sys
import typing
import warnings

from anthropic.types import message_create_params
from google.genai import types as genai
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params
from pydantic import TypeAdapter

from sdk_values import check_files, plain

PARAMS = {
    "openai": completion_create_params.CompletionCreateParamsBase,
    "openai-strict": completion_create_params.CompletionCreateParamsBase,
    "openai-responses": response_create_params.ResponseCreateParamsBase,
    "anthropic": message_create_params.MessageCreateParamsBase,
    "anthropic-strict": message_create_params.MessageCreateParamsBase,
}
GEMINI = {"gemini", "gemini-json-schema"}


def element_type(hint):
    """`Iterable[X]` -> X."""
    origin = typing.get_origin(hint)
    if origin in (collections.abc.Iterable, list, typing.Iterable):
        return typing.get_args(hint)[0]
    return None


def tagged_member(hint, value):
    """The one member of a union of TypedDicts whose `type` is the value's, if just one is: the
    member the API reads it as. (pydantic-core panics iterating a lazy `Iterable` field, as a
    `namespace` tool's `tools`, when it is validated through the whole union.)"""
    if typing.get_origin(hint) is not typing.Union or not isinstance(value, dict):
        return hint
    found = []
    for member in typing.get_args(hint):
        try:
            tag = typing.get_type_hints(member, include_extras=True).get("type")
        except Exception:  # not a TypedDict
            continue
        while typing.get_origin(tag) is typing.Annotated or str(typing.get_origin(tag)).endswith("Required"):
            tag = typing.get_args(tag)[0]
        if typing.get_origin(tag) is typing.Literal and value.get("type") in typing.get_args(tag):
            found.append(member)
    return found[0] if len(found) == 1 else hint


def check_typed(params, key, value):
    """Problems of one field against the TypedDict's type for it (empty when it passes)."""
    hints = typing.get_type_hints(params, include_extras=True)
    if key not in hints:
        return [f"`{key}` is not a field of {params.__name__}"]
    hint = hints[key]
    item = element_type(hint)
    if item is not None:
        if not isinstance(value, list):
            return [f"`{key}` is not a list"]
        checks = [(f"{key}[{at}]", tagged_member(item, entry), entry) for at, entry in enumerate(value)]
    else:
        checks = [(key, hint, value)]
    problems = []
    for where, hint, value in checks:
        try:
            validated = plain(TypeAdapter(hint).validate_python(value))
        except Exception as error:  # the SDK type's validation error, reported as it is
            problems.append(f"{where}: {error}")
            continue
        if validated != value:
            problems.append(f"{where}: the SDK type kept {json.dumps(validated)} of {json.dumps(value)}")
    return problems


def check_gemini(fields):
    """google-genai takes an enum value it does not know with a warning (for newer API
    versions); here a warning is a refusal."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return gemini_problems(fields)


def gemini_problems(fields):
    problems = []
    for key, value in fields.items():
        if key == "tools":
            for at, tool in enumerate(value):
                try:
                    genai.Tool.model_validate(tool)
                except Exception as error:
                    problems.append(f"tools[{at}]: {error}")
        elif key == "toolConfig":
            try:
                config = genai.ToolConfig.model_validate(value)
            except Exception as error:
                problems.append(f"toolConfig: {error}")
                continue
            kept = config.model_dump(mode="json", by_alias=True, exclude_none=True)
            if kept != value:
                problems.append(f"toolConfig: the SDK kept {json.dumps(kept)} of {json.dumps(value)}")
        else:
            problems.append(f"`{key}` is not a tool field of a Gemini request")
    return problems


def check(form, fields):
    if form in GEMINI:
        return check_gemini(fields)
    params = PARAMS[form]
    problems = []
    for key, value in fields.items():
        problems.extend(check_typed(params, key, value))
    return problems


def teeth():
    """Shapes the providers refuse must be refused here, or the check proves nothing."""
    refused = [
        ("openai", {"tool_choice": "any"}),
        ("openai", {"tool_choice": {"type": "function", "name": "add"}}),
        ("openai", {"tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}}),
        ("openai", {"parallel_tool_calls": "no"}),
        ("openai", {"toolConfig": {}}),
        ("openai-responses", {"tool_choice": {"type": "function", "function": {"name": "add"}}}),
        ("openai-responses", {"tool_choice": {"type": "allowed_tools", "mode": "any", "tools": []}}),
        ("openai-responses", {"tools": [{"type": "namespace", "name": "mail", "tools": []}]}),
        ("openai-responses", {"tools": [{"type": "tool_search", "execution": "elsewhere"}]}),
        ("anthropic", {"tools": [{"type": "tool_search_tool_bm25_20251119", "name": "search"}]}),
        ("anthropic", {"tool_choice": {"type": "required"}}),
        ("anthropic", {"tool_choice": "auto"}),
        ("anthropic", {"tool_choice": {"type": "tool"}}),
        ("anthropic", {"tool_choice": {"type": "auto", "parallel": False}}),
        ("anthropic", {"parallel_tool_calls": False}),
        ("gemini", {"toolConfig": {"functionCallingConfig": {"mode": "REQUIRED"}}}),
        ("gemini", {"toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedNames": ["add"]}}}),
        ("gemini", {"tool_choice": "auto"}),
    ]
    passed = [(form, fields) for form, fields in refused if not check(form, fields)]
    for form, fields in passed:
        print(f"the check passed a shape the provider refuses: {form} {json.dumps(fields)}", file=sys.stderr)
    return not passed


def main():
    if not teeth():
        return 1
    forms = set(PARAMS) | GEMINI
    return check_files(sys.argv[1:], forms, check, "requests' tool fields")


if __name__ == "__main__":
    sys.exit(main())
