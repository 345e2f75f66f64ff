#!/usr/bin/env bash
# The tokens the demo toolbox's tool list costs per request, in each provider's form (o200k_base,
# the tokenizer of OpenAI's current models, from the npm package gpt-tokenizer, which bundles
# it). Figures: BENCHMARKS.md, "Tokens of the tool list". With --check, fails when a form is
# over the targets of issue 28.
#   bash benches/tokens/measure.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/../.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y > /dev/null && npm install --silent --no-audit --no-fund gpt-tokenizer@3.4.0 > /dev/null)
cp benches/tokens/count.mjs "$work/"
cargo build --quiet --example providers
forms=()
for form in openai openai-responses anthropic gemini mcp; do
  target/debug/examples/providers "$form" > "$work/$form.json" 2> /dev/null
  forms+=("$form=$work/$form.json")
done
check=()
if [ "${1:-}" = "--check" ]; then
  check=(--check openai=780 anthropic=730 mcp=725)
fi
(cd "$work" && node count.mjs "${forms[@]}" "${check[@]}")
