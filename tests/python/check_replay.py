"""Feeds the assistant turns toolwright builds for the next request (`Turn::assistant_message`)
to the official SDKs' own request types, field for field.

Each argument is a JSON file written by `tests/wire.rs` (`REPLAY_OUT=<dir> cargo test -p
toolwright-tests --test wire turns::`), named `<provider>--<name>.json`, holding one built turn
from a recorded response or stream:

- `anthropic`: one message, checked as the `anthropic` SDK's `MessageParam` (the beta
  `BetaMessageParam` for blocks only the beta types have, as the MCP connector's);
- `openai-responses`: a list of input items, each checked as `ResponseInputItemParam`;
- `openai`: one message, checked as `ChatCompletionAssistantMessageParam`;
- `gemini`: one content, checked as google-genai's `types.Content` (which refuses unknown
  fields itself);
- `anthropic_stream`: `{"fixture": <stream>, "message": <built from it>}`: the message checked as
  `anthropic` is, and the recorded stream assembled by the SDK's own accumulator
  (`anthropic.lib.streaming`), whose content blocks must be the message's, block for block.

The TypedDicts are validated through pydantic's `TypeAdapter`; a value must come back out of
validation unchanged (a key the type does not know is dropped by validation, and counts as
refused: nothing may be lost on the way back). Exit status 1 when anything is refused, when no
file was given, or when the check itself would pass a shape the SDKs refuse.
"""

import base64
import json
import sys
import warnings

from anthropic.types import MessageParam
from anthropic.types.beta import BetaMessageParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionAssistantMessageParam
from openai.types.responses import ResponseInputItemParam
from pydantic import TypeAdapter

from sdk_values import check_files, plain


def kept(adapter, value):
    """A problem when the type refuses the value or drops part of it; None when it keeps it all."""
    try:
        validated = plain(adapter.validate_python(value))
    except Exception as error:  # the SDK type's own message
        return str(error).splitlines()[0:3]
    if validated != value:
        return [f"the SDK type kept {json.dumps(validated)[:400]} of {json.dumps(value)[:400]}"]
    return None


ANTHROPIC = TypeAdapter(MessageParam)
ANTHROPIC_BETA = TypeAdapter(BetaMessageParam)
RESPONSES_ITEM = TypeAdapter(ResponseInputItemParam)
CHAT = TypeAdapter(ChatCompletionAssistantMessageParam)


def check_anthropic(message):
    problems = kept(ANTHROPIC, message)
    if problems is None:
        return []
    # Blocks only the beta types know (the MCP connector's `mcp_tool_use`).
    beta = kept(ANTHROPIC_BETA, message)
    return [] if beta is None else problems + ["beta: " + " ".join(beta)]


def check_responses(items):
    if not isinstance(items, list):
        return ["not a list of input items"]
    problems = []
    for at, item in enumerate(items):
        problem = kept(RESPONSES_ITEM, item)
        if problem:
            problems.append(f"item {at} ({item.get('type')}): " + " ".join(problem))
    return problems


def check_chat(message):
    return kept(CHAT, message) or []


def check_gemini(content):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            model = genai.Content.model_validate(content)
        except Exception as error:
            return [str(error).splitlines()[0]]
    dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    # Signatures are bytes to the SDK, base64 on the wire (which the SDK writes URL-safe,
    # unpadded): compare them decoded.
    def decode(text):
        padded = text + "=" * (-len(text) % 4)
        return base64.urlsafe_b64decode(padded.replace("+", "-").replace("/", "_"))

    def bytes_of(value):
        if isinstance(value, dict):
            return {k: (decode(v) if k == "thoughtSignature" else bytes_of(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [bytes_of(v) for v in value]
        return value
    if bytes_of(dumped) != bytes_of(content):
        return [f"the SDK kept {json.dumps(dumped)[:400]} of {json.dumps(content)[:400]}"]
    return []


def without_nulls(value):
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def check_anthropic_stream(pair):
    import httpx2
    from anthropic._models import construct_type
    from anthropic.lib.streaming import _beta_messages
    from anthropic.types.beta import BetaRawMessageStreamEvent

    problems = check_anthropic(pair["message"])
    snapshot, buffers = None, {}
    with open(pair["fixture"]) as f:
        for line in f:
            event = json.loads(line)
            if event.get("type") in ("ping", "error"):
                continue
            snapshot = _beta_messages.accumulate_event(
                event=construct_type(type_=BetaRawMessageStreamEvent, value=event),
                current_snapshot=snapshot,
                json_bufs=buffers,
                request_headers=httpx2.Headers(),
            )
    sdk = [without_nulls(block.model_dump(mode="json", exclude_none=True)) for block in snapshot.content]
    ours = without_nulls(pair["message"]["content"])
    if len(sdk) != len(ours):
        problems.append(f"{len(ours)} blocks, the SDK's accumulator {len(sdk)}")
    for at, (mine, theirs) in enumerate(zip(ours, sdk)):
        if mine != theirs:
            problems.append(f"block {at}: {json.dumps(mine)[:300]} against the SDK's {json.dumps(theirs)[:300]}")
    return problems


CHECKS = {
    "anthropic_stream": check_anthropic_stream,
    "anthropic": check_anthropic,
    "openai-responses": check_responses,
    "openai": check_chat,
    "gemini": check_gemini,
}


def teeth():
    """Shapes the providers refuse must be refused here, or the check proves nothing."""
    refused = [
        ("anthropic", {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}]}),
        ("anthropic", {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}, "index": 0}]}),
        ("openai-responses", [{"type": "reasoning", "id": "rs_1", "summary": [], "text": "lost"}]),
        ("openai-responses", [{"type": "function_call", "call_id": "c", "name": "f"}]),
        ("openai", {"role": "assistant", "content": None, "reasoning_content": "x"}),
        ("gemini", {"role": "model", "parts": [{"text": "x", "thoughtSig": "AAAA"}]}),
    ]
    passed = [(kind, value) for kind, value in refused if not CHECKS[kind](value)]
    for kind, value in passed:
        print(f"the check passed a shape the SDK refuses: {kind} {json.dumps(value)}", file=sys.stderr)
    return not passed


def main():
    if not teeth():
        return 1
    return check_files(sys.argv[1:], CHECKS, lambda kind, value: CHECKS[kind](value), "assistant turns")


if __name__ == "__main__":
    sys.exit(main())
