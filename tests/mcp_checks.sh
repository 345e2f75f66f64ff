#!/usr/bin/env bash
# The MCP checks against peers no one here wrote (issue 17), run by .ci/run:
#   - the official Python SDK (`mcp` on PyPI) as a client of examples/mcp_server, over stdio and
#     Streamable HTTP (stateless and stateful), each in its default (2026-07-28) and legacy mode;
#   - the same SDK as a server (tests/python/mcp_tools_server.py) used through toolwright's client:
#     tests/mcp/python.rs, and examples/mcp_client as a line driver;
#   - the MCP Inspector's CLI (npm) listing and calling the demo server's tools;
#   - both with bearer tokens against `mcp_server --token` (issue 30), and refused without one;
#   - the server built with OpenTelemetry (issue 45), traced from a Python SDK call's
#     `traceparent` and exported over OTLP/HTTP to a receiver that decodes it.
# Needs python3 (venv) and npm; installs the packages into temporary folders.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --example mcp_server --example mcp_client
server=target/debug/examples/mcp_server
client=target/debug/examples/mcp_client
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
}
trap cleanup EXIT

# Starts the server over HTTP on a free port with the given options; sets `url` to its URL.
start_http() {
  local log
  log="$(mktemp -p "$work")"
  "$server" --http 127.0.0.1:0 "$@" > /dev/null 2> "$log" &
  pids+=("$!")
  for _ in $(seq 100); do
    if grep -q 'listening on' "$log"; then
      url="$(grep -o 'listening on http://[^ ]*' "$log" | cut -d' ' -f3)"
      return
    fi
    sleep 0.1
  done
  echo "the server did not start:" >&2
  cat "$log" >&2
  exit 1
}

echo "== the Python SDK (mcp 2.3.0) as a client of examples/mcp_server"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0
py="$work/venv/bin/python"
"$py" tests/python/check_mcp_server.py --stdio "$server"
"$py" tests/python/check_mcp_server.py --stdio "$server" --mode legacy
start_http
stateless="$url"
start_http --stateful
stateful="$url"
"$py" tests/python/check_mcp_server.py --url "$stateless"
"$py" tests/python/check_mcp_server.py --url "$stateless" --mode legacy --no-cancel
"$py" tests/python/check_mcp_server.py --url "$stateful"
"$py" tests/python/check_mcp_server.py --url "$stateful" --mode legacy

echo "== the Python SDK with a bearer token against examples/mcp_server --token (issue 30)"
reader="reader-$RANDOM$RANDOM"
writer="writer-$RANDOM$RANDOM"
start_http --token "$reader=" --token "$writer=write"
protected="$url"
start_http --stateful --token "$reader=" --token "$writer=write"
protected_stateful="$url"
"$py" tests/python/check_mcp_auth.py --url "$protected" --reader "$reader" --writer "$writer"
"$py" tests/python/check_mcp_auth.py --url "$protected" --reader "$reader" --writer "$writer" --mode legacy
"$py" tests/python/check_mcp_auth.py --url "$protected_stateful" --reader "$reader" --writer "$writer"
"$py" tests/python/check_mcp_auth.py --url "$protected_stateful" --reader "$reader" --writer "$writer" --mode legacy

echo "== the Python SDK as a server, used through toolwright's client"
TOOLWRIGHT_MCP_PYTHON="$py" cargo test --quiet -p toolwright-tests --test mcp python:: -- --ignored

echo "== toolwright's client logs in to examples/mcp_server --token through an authorization server"
echo "   (tests/support/authorization_server.rs), and steps up for the scope it requires (issue 44)"
TOOLWRIGHT_MCP_SERVER="$PWD/$server" cargo test --quiet -p toolwright-tests --test mcp \
  oauth::the_client_logs_in_to_the_example_server -- --ignored
out="$(printf '%s\n' \
  '{"name":"py_multiply","arguments":"{\"a\": \"6\", \"b\": 7"}' \
  '{"name":"py_forecast","arguments":{"city":"Oslo","days":9}}' \
  | "$client" --prefix py_ -- "$py" tests/python/mcp_tools_server.py 2> /dev/null)"
echo "$out"
expected_first='{"name":"py_multiply","is_error":false,"content":"42"}'
[ "$(echo "$out" | sed -n 1p)" = "$expected_first" ] || { echo "mcp_client: unexpected first line" >&2; exit 1; }
grep -q '"is_error":true.*from 1 to 7' <<< "$(sed -n 2p <<< "$out")" || { echo "mcp_client: the bound was not enforced" >&2; exit 1; }

echo "== the MCP Inspector's CLI (@modelcontextprotocol/inspector 2.12.0, from npm)"
(cd "$work" && npm install --silent --no-audit --no-fund @modelcontextprotocol/inspector@2.12.0 > /dev/null)
inspector="$work/node_modules/.bin/mcp-inspector"
check_json() { # stdin: JSON (what follows it, such as the CLI's schema notes, is left); $1: a Python expression over `r` that must be true
  python3 -c "import json,sys; r=json.JSONDecoder().raw_decode(sys.stdin.read().lstrip())[0]; assert $1, r; print('ok:', '''$1''')"
}
"$inspector" --cli "$server" --method tools/list | check_json 'len(r["tools"]) == 12 and r["tools"][0]["name"] == "add"'
"$inspector" --cli "$server" --method tools/call --tool-name add --tool-arg a=2 --tool-arg b=40 \
  | check_json 'r["content"][0]["text"] == "42" and r["isError"] is False'
"$inspector" --cli "$stateless" --transport http --method tools/call --tool-name get_weather --tool-arg city=Oslo \
  | check_json 'r["structuredContent"]["city"] == "Oslo"'
# A call the server answers with isError: the CLI prints the result and exits non-zero.
if wrong="$("$inspector" --cli "$stateless" --transport http --method tools/call --tool-name add --tool-arg b=two 2> /dev/null)"; then
  echo "the inspector took an isError result for a success: $wrong" >&2
  exit 1
fi
echo "$wrong" | check_json 'r["isError"] is True and "missing required argument `a`" in r["content"][0]["text"]'
# With bearer tokens: the CLI's --header, and without one the CLI stops at the server's 401 (it
# would start an OAuth flow from the metadata, which needs a person).
"$inspector" --cli "$protected" --transport http --header "Authorization: Bearer $reader" --method tools/list \
  | check_json 'sorted(t["name"] for t in r["tools"]) == ["add", "cancelled_counts", "count", "divide", "get_weather", "search", "whoami"]'
"$inspector" --cli "$protected" --transport http --header "Authorization: Bearer $writer" \
  --method tools/call --tool-name set_tags --tool-arg 'tags=["a","b"]' \
  | check_json 'r["content"][0]["text"] == "2" and r["isError"] is False'
if refused="$("$inspector" --cli "$protected" --transport http --method tools/list 2>&1)"; then
  echo "the inspector listed a protected server's tools without a token: $refused" >&2
  exit 1
fi
grep -q 'auth_required' <<< "$refused" || { echo "the inspector failed otherwise: $refused" >&2; exit 1; }
echo "ok: without a token the inspector stops at the 401"

echo "== OpenTelemetry (issue 45): the Python SDK calls examples/mcp_server --features mcp,otel with a traceparent in _meta"
# PyPI's opentelemetry-proto decodes what the server exports over OTLP/HTTP.
"$work/venv/bin/pip" install --quiet --disable-pip-version-check opentelemetry-proto==1.45.2
cargo build --quiet --features mcp,otel --example mcp_server
"$py" tests/python/check_otel.py "$server"
echo "the MCP checks passed"
