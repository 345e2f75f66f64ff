"""Feeds what toolwright writes for AWS Bedrock's Converse API to botocore, the AWS SDK's own
service model of `bedrock-runtime` and its own validator, parser and event stream decoder.

Each argument is a file:

- `bedrock-fields--<mode>.json`: one request's tool fields, as `cargo run --example providers
  -- bedrock --tool-choice <mode>` prints them, validated as part of a `Converse` request;
- `bedrock--<sample>.json`, written by `tests/wire/bedrock.rs` (`BEDROCK_OUT=<dir>`): the next
  request built from a recording (the assistant turn toolwright carries back and the results it
  encoded), validated as a `Converse` request (and held to the model's string constraints,
  which botocore's validator leaves to the service); the recording itself parsed by botocore's
  response parser (the calls it reads must be the turn's) or, for a stream, the frames
  toolwright's tests wrote for it (`<sample>.eventstream`) decoded by botocore's
  `EventStreamBuffer`, event for event the recorded ones.

Blobs travel as base64 text in JSON; they are given to the validator as the bytes they hold.
Exit status 1 when anything is refused, when no file was given, or when the check itself would
pass a shape the service refuses.
"""

import base64
import json
import os
import re
import sys

import botocore.session
from botocore.eventstream import EventStreamBuffer
from botocore.parsers import create_parser
from botocore.validate import ParamValidator

MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")
CONVERSE = MODEL.operation_model("Converse")
BLOBS = {"bytes", "redactedContent"}


def with_blobs(value):
    """The value with each blob (base64 text in JSON) as its bytes."""
    if isinstance(value, dict):
        return {
            key: base64.b64decode(item) if key in BLOBS and isinstance(item, str) else with_blobs(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [with_blobs(item) for item in value]
    return value


def validate(request):
    report = ParamValidator().validate(with_blobs(request), CONVERSE.input_shape)
    problems = [report.generate_report()] if report.has_errors() else []
    return problems + constraints(request, CONVERSE.input_shape, "$")


def constraints(value, shape, where):
    """What botocore's validator leaves to the service, read from the same service model: a
    string's `enum`, `pattern` and `max` length."""
    if shape.metadata.get("document"):
        return []
    problems = []
    if shape.type_name == "structure" and isinstance(value, dict):
        for key, item in value.items():
            if key in shape.members:
                problems += constraints(item, shape.members[key], f"{where}.{key}")
    elif shape.type_name == "list" and isinstance(value, list):
        for at, item in enumerate(value):
            problems += constraints(item, shape.member, f"{where}[{at}]")
    elif shape.type_name == "string" and isinstance(value, str):
        enum = shape.metadata.get("enum")
        if enum and value not in enum:
            problems.append(f"{where}: {value!r} is not one of {enum}")
        pattern = shape.metadata.get("pattern")
        if pattern and not re.fullmatch(pattern, value):
            problems.append(f"{where}: {value!r} does not match {pattern}")
        if "max" in shape.metadata and len(value) > shape.metadata["max"]:
            problems.append(f"{where}: longer than {shape.metadata['max']}")
    return problems


def check_fields(fields):
    return validate({"modelId": "anthropic.claude-sonnet-4", "messages": [{"role": "user", "content": [{"text": "Go."}]}], **fields})


def tool_uses(blocks):
    """The calls: id, tool and input of each `toolUse` block."""
    return [
        {key: block["toolUse"].get(key) for key in ("toolUseId", "name", "input")}
        for block in blocks
        if "toolUse" in block
    ]


def check_turn(turn, path):
    problems = validate(turn["request"])
    assistant = turn["request"]["messages"][1]["content"]
    recorded = turn["recorded"]
    if turn["streamed"]:
        name = os.path.basename(recorded).removesuffix(".jsonl")
        with open(os.path.join(os.path.dirname(path), f"{name}.eventstream"), "rb") as f:
            frames = f.read()
        with open(recorded) as f:
            expected = [json.loads(line) for line in f if line.strip()]
        buffer = EventStreamBuffer()
        buffer.add_data(frames)
        decoded = [{message.headers[":event-type"]: json.loads(message.payload)} for message in buffer]
        if decoded != expected:
            problems.append(f"botocore decoded the frames as {json.dumps(decoded)[:400]}")
    else:
        with open(recorded) as f:
            recording = json.load(f)
        # vercel/ai's fixtures are written by hand and mark text blocks with a `type` the
        # service never sends (a content block is a union of one member): left out for the
        # parser, which refuses it. pydantic-ai's are recorded from the service as they are.
        for block in recording.get("output", {}).get("message", {}).get("content", []):
            if len(block) > 1:
                block.pop("type", None)
        body = json.dumps(recording).encode()
        parsed = create_parser("rest-json").parse(
            {"body": body, "headers": {}, "status_code": 200}, CONVERSE.output_shape
        )
        theirs = tool_uses(parsed["output"]["message"]["content"])
        if theirs != tool_uses(assistant):
            problems.append(f"botocore read the calls {json.dumps(theirs)[:400]}")
    return problems


def teeth():
    """Shapes the service refuses must be refused here, or the check proves nothing."""
    tool = {"toolSpec": {"name": "add", "inputSchema": {"json": {"type": "object"}}}}
    refused = [
        check_fields({"toolConfig": {"tools": [tool], "toolChoice": {"none": {}}}}),
        check_fields({"toolConfig": {"tools": [{"toolSpec": {"name": "files.read", "inputSchema": {"json": {}}}}]}}),
        check_fields({"toolConfig": {"tools": [{"toolSpec": {"name": "add"}}]}}),
        check_fields({"toolConfig": {"tools": [{"toolSpec": {"name": "add", "description": "", "inputSchema": {"json": {}}}}]}}),
        check_fields({"tools": [tool]}),
        validate({"modelId": "m", "messages": [{"role": "user", "content": [
            {"toolResult": {"toolUseId": "t", "content": [{"text": "x"}], "status": "failed"}}]}]}),
        validate({"modelId": "m", "messages": [{"role": "user", "content": [
            {"toolResult": {"toolUseId": "t", "content": [{"image": {"format": "bmp", "source": {"bytes": "aGk="}}}]}}]}]}),
    ]
    passed = [at for at, problems in enumerate(refused) if not problems]
    for at in passed:
        print(f"the check passed shape {at}, which Bedrock refuses", file=sys.stderr)
    return not passed


def main():
    if not teeth():
        return 1
    failures, checked = [], 0
    for path in sys.argv[1:]:
        kind = os.path.basename(path).split("--")[0]
        with open(path) as f:
            value = json.load(f)
        if kind == "bedrock-fields":
            problems = check_fields(value)
        elif kind == "bedrock":
            problems = check_turn(value, path)
        else:
            problems = [f"no check for `{kind}`"]
        checked += 1
        failures.extend(f"{path}: {problem}" for problem in problems)
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{checked} Bedrock requests, responses and streams checked by botocore: {len(failures)} refused")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
