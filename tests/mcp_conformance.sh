#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance 0.1.16, which the
# SDKs use to prove themselves; it needs Node 22, installed from npm's `node@22` package) against
# tool-mcp/examples/conformance_server, a server written with toolwright's public API (issue 43).
# Every server scenario the suite lists, each run on its own:
#   - stateful (sessions): every scenario must pass;
#   - stateless: every scenario must pass but those in tests/mcp_conformance_stateless.yml, which
#     need a server-to-client request (sampling, elicitation): the suite's client (the TypeScript
#     SDK 1.x) speaks 2025-11-25, where such a request needs a session, and does not speak MRTR,
#     the 2026-07-28 answer (tests/mcp/protocol.rs checks MRTR with rmcp's client). The suite
#     fails the run if one of those passes (a stale entry) or any other fails.
# Then every client scenario the suite lists against tool-mcp/examples/conformance_client, a
# client written with toolwright's public API (issue 44): every scenario must pass, with no
# warning.
# Needs npm; installs the packages into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --example conformance_server --example conformance_client --example mcp_client
server=target/debug/examples/conformance_server
client="$PWD/target/debug/examples/conformance_client"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
}
trap cleanup EXIT

(
  cd "$work"
  npm init -y > /dev/null
  npm install --silent --no-audit --no-fund @modelcontextprotocol/conformance@0.1.16 node@22.23.3
)
export PATH="$work/node_modules/.bin:$PATH"
node --version
conformance --version

# Starts the server on a free port with the given options; sets `url` to its URL.
start() {
  local log
  log="$(mktemp -p "$work")"
  "$server" 127.0.0.1:0 "$@" > /dev/null 2> "$log" &
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

scenarios="$(conformance list --server | sed -n 's/^  - \([a-z0-9-]*\).*/\1/p')"
count="$(echo "$scenarios" | wc -l)"
echo "$count server scenarios"
if [ "$count" -lt 32 ]; then
  echo "the suite lists fewer server scenarios than the 32 of 0.1.16" >&2
  exit 1
fi

# Runs every scenario against `url`, with the baseline given (if any); counts the failures.
run_all() {
  local mode="$1" failed=0 baseline=()
  shift
  if [ $# -gt 0 ]; then baseline=(--expected-failures "$1"); fi
  for scenario in $scenarios; do
    local log
    log="$(mktemp -p "$work")"
    if conformance server --url "$url" --scenario "$scenario" "${baseline[@]}" -o "$work/results" > "$log" 2>&1; then
      echo "$mode $scenario: $(grep -E '^(Passed|Total):' "$log" | tail -n 1)"
    else
      echo "$mode $scenario: FAILED"
      tail -n 40 "$log"
      failed=$((failed + 1))
    fi
  done
  return "$failed"
}

echo "== stateful (sessions)"
start
run_all stateful

echo "== stateless"
start --stateless
run_all stateless tests/mcp_conformance_stateless.yml

echo "== client scenarios"
client_scenarios="$(conformance list --client | sed -n 's/^  - \([a-z0-9/_-]*\).*/\1/p')"
count="$(echo "$client_scenarios" | wc -l)"
echo "$count client scenarios"
if [ "$count" -lt 26 ]; then
  echo "the suite lists fewer client scenarios than the 26 of 0.1.16" >&2
  exit 1
fi
failed=0
for scenario in $client_scenarios; do
  log="$(mktemp -p "$work")"
  if conformance client --command "$client" --scenario "$scenario" \
    -o "$work/client-results" > "$log" 2>&1; then
    echo "client $scenario: $(grep -E '^Passed:' "$log" | tail -n 1)"
  else
    echo "client $scenario: FAILED"
    tail -n 40 "$log"
    failed=$((failed + 1))
  fi
done

# The mcp_client driver's OAuth flags, driven as a user would (tests/mcp_client_oauth.sh opens
# each authorization URL it prints), through the suite's authorization servers: discovery from
# the challenge, a client ID metadata document, the scopes of the challenge.
echo "== mcp_client --oauth"
for scenario in auth/metadata-default auth/basic-cimd auth/scope-from-www-authenticate; do
  log="$(mktemp -p "$work")"
  if conformance client --command "$PWD/tests/mcp_client_oauth.sh" --scenario "$scenario" \
    -o "$work/oauth-results" > "$log" 2>&1; then
    echo "mcp_client $scenario: $(grep -E '^Passed:' "$log" | tail -n 1)"
  else
    echo "mcp_client $scenario: FAILED"
    tail -n 40 "$log"
    failed=$((failed + 1))
  fi
done
exit "$failed"
