"""Feeds what toolwright writes for Cohere's v2 chat to the official `cohere` SDK's own types,
and the recorded responses and streams it read to the SDK's response and event types.

Each argument is a JSON file:

- `cohere-fields--<mode>.json`: one request's tool fields, as `cargo run --example providers --
  cohere --tool-choice <mode>` prints them: each key must be a parameter of `ClientV2.chat`,
  each tool a `ToolV2`, the tool choice one of the SDK's `V2ChatRequestToolChoice` literals;
- `cohere--<sample>.json`, written by `tests/wire/cohere.rs` (`COHERE_OUT=<dir>`): the
  recording (`recorded`, read as a `V2ChatResponse`, or line by line as
  `StreamedChatResponseV2` events), the assistant message built from it (an
  `AssistantChatMessageV2`) and the results built for its calls (each a `ToolChatMessageV2`).
  For a whole response, the SDK's own reading of its tool calls must be the message's.

The SDK's models take unknown fields (`extra="allow"`); here an unknown field anywhere counts as
refused, and a value must come back out of validation unchanged. Exit status 1 when anything is
refused, when no file was given, or when the check itself would pass a shape the SDK refuses.
"""

import inspect
import json
import sys
import typing

import cohere
from cohere.types import AssistantChatMessageV2, ToolChatMessageV2, ToolV2
from cohere.v2.types.v2chat_request_tool_choice import V2ChatRequestToolChoice
from pydantic import BaseModel, TypeAdapter

from sdk_values import check_files, plain

CHAT_PARAMETERS = set(inspect.signature(cohere.ClientV2.chat).parameters)
TOOL_CHOICES = {
    value
    for arg in typing.get_args(V2ChatRequestToolChoice)
    if typing.get_origin(arg) is typing.Literal
    for value in typing.get_args(arg)
}
STREAM_EVENT = TypeAdapter(cohere.StreamedChatResponseV2)


def extras(value, where="$"):
    """The paths of fields the SDK's types do not know, anywhere in a validated value."""
    found = []
    if isinstance(value, BaseModel):
        for key in (value.__pydantic_extra__ or {}):
            found.append(f"{where}.{key}")
        for name in type(value).model_fields:
            found.extend(extras(getattr(value, name), f"{where}.{name}"))
    elif isinstance(value, (list, tuple)):
        for at, item in enumerate(value):
            found.extend(extras(item, f"{where}[{at}]"))
    return found


def strict(model, value, where):
    """Problems of `value` as the SDK's `model`: refused, an unknown field, or changed."""
    try:
        validated = TypeAdapter(model).validate_python(value)
    except Exception as error:  # the SDK type's own message
        return [f"{where}: " + " ".join(str(error).splitlines()[0:3])]
    unknown = extras(validated, where)
    if unknown:
        return [f"{where}: fields the SDK does not know: {', '.join(unknown)}"]
    if plain(validated) != value:
        return [f"{where}: the SDK kept {json.dumps(plain(validated))[:400]} of {json.dumps(value)[:400]}"]
    return []


def check_fields(fields):
    problems = []
    for key, value in fields.items():
        if key not in CHAT_PARAMETERS:
            problems.append(f"`{key}` is not a parameter of ClientV2.chat")
        elif key == "tools":
            for at, tool in enumerate(value):
                problems.extend(strict(ToolV2, tool, f"tools[{at}]"))
        elif key == "tool_choice":
            if value not in TOOL_CHOICES:
                problems.append(f"tool_choice {json.dumps(value)} is not one of {sorted(TOOL_CHOICES)}")
        else:
            problems.append(f"`{key}` is not a tool field")
    return problems


def check_turn(turn):
    problems = strict(AssistantChatMessageV2, turn["message"], "message")
    for at, result in enumerate(turn["results"]):
        problems.extend(strict(ToolChatMessageV2, result, f"results[{at}]"))
    with open(turn["recorded"]) as f:
        text = f.read()
    if turn["streamed"]:
        for number, line in enumerate(text.splitlines(), 1):
            try:
                STREAM_EVENT.validate_python(json.loads(line))
            except Exception as error:
                problems.append(f"recorded line {number}: " + str(error).splitlines()[0])
    else:
        try:
            response = cohere.V2ChatResponse.model_validate(json.loads(text))
        except Exception as error:
            return problems + ["recorded: " + str(error).splitlines()[0]]
        theirs = [plain(call) for call in response.message.tool_calls or []]
        if theirs != turn["message"].get("tool_calls", []):
            problems.append(f"the SDK read the calls {json.dumps(theirs)[:400]}")
    return problems


def check(kind, value):
    return check_fields(value) if kind == "cohere-fields" else check_turn(value)


def teeth():
    """Shapes Cohere refuses must be refused here, or the check proves nothing."""
    refused = [
        check_fields({"tool_choice": "auto"}),
        check_fields({"tool_choice": "ANY"}),
        check_fields({"parallel_tool_calls": False}),
        check_fields({"tools": [{"type": "function", "function": {"name": "a"}}]}),
        check_fields({"tools": [{"type": "function", "name": "a", "parameters": {}}]}),
        strict(ToolChatMessageV2, {"role": "tool", "tool_call_id": "a", "content": [{"type": "document", "document": {"data": "text"}}]}, "doc"),
        strict(ToolChatMessageV2, {"role": "tool", "tool_call_id": "a", "content": "x", "is_error": True}, "error"),
        strict(AssistantChatMessageV2, {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": {}}}]}, "args"),
    ]
    passed = [at for at, problems in enumerate(refused) if not problems]
    for at in passed:
        print(f"the check passed shape {at}, which Cohere refuses", file=sys.stderr)
    return not passed


def main():
    if not teeth():
        return 1
    return check_files(sys.argv[1:], {"cohere", "cohere-fields"}, check, "Cohere values")


if __name__ == "__main__":
    sys.exit(main())
