#!/usr/bin/env bash
# examples/mcp_client with --oauth, driven as a user would, for the conformance suite's
# authorization scenarios (tests/mcp_conformance.sh passes this as the suite's client command):
# the suite appends its server's URL; the client prints each authorization URL on stderr and
# waits at its redirect URI; the "browser" here (curl) opens each URL and follows the
# authorization server's redirects back to the client's listener, as a user who approves does.
set -uo pipefail
url="${!#}"
client="$(dirname "$0")/../target/debug/examples/mcp_client"
err="$(mktemp)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$client" --url "$url" --oauth --redirect "http://127.0.0.1:$port/callback" \
  --client-metadata-url https://conformance-test.local/client-metadata.json < /dev/null 2> "$err" &
pid="$!"
opened=0
while kill -0 "$pid" 2> /dev/null; do
  # Each authorization the client asks for (a step-up asks again), opened once.
  mapfile -t urls < <(sed -n 's/^authorize at: //p' "$err")
  while [ "$opened" -lt "${#urls[@]}" ]; do
    curl --silent --location --output /dev/null --max-time 10 "${urls[$opened]}"
    opened=$((opened + 1))
  done
  sleep 0.1
done
wait "$pid"
status="$?"
cat "$err" >&2
exit "$status"
