#!/usr/bin/env bash
# The tokens a request with 1,000 deferred tools costs, beside sending them all (o200k_base, npm
# gpt-tokenizer 3.4.0, as measure.sh): real definitions from BFCL v4 (`bfcl-eval` on PyPI,
# Apache-2.0). Figures: BENCHMARKS.md, "Tool search". With --check, fails when a provider whose
# deferred tools stay out of the model's context (Anthropic; OpenAI Chat and Gemini, which send
# only the search function) costs over 3% of the whole list.
#   bash benches/tokens/deferred.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/../.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" download --quiet --no-deps --disable-pip-version-check bfcl-eval==2026.3.23 -d "$work/wheel"
(cd "$work/wheel" && python3 -m zipfile -e bfcl_eval-*.whl .)
python3 benches/tokens/bfcl_defs.py "$work/wheel/bfcl_eval/data" 1200 > "$work/defs.jsonl"
(cd "$work" && npm init -y > /dev/null && npm install --silent --no-audit --no-fund gpt-tokenizer@3.4.0 > /dev/null)
cp benches/tokens/count.mjs "$work/"
mkdir "$work/out"
cargo bench --quiet -p toolwright-benches --bench search_tokens -- "$work/defs.jsonl" "$work/out"
failed=0
for form in openai anthropic gemini openai-responses responses-namespaces; do
  all="$work/out/$form-all.json"
  [ -f "$all" ] || all="$work/out/openai-responses-all.json"
  whole=$(cd "$work" && node count.mjs "x=$all" | sed 's/.*: \([0-9]*\) tokens.*/\1/')
  deferred=$(cd "$work" && node count.mjs "x=$work/out/$form-deferred.json" | sed 's/.*: \([0-9]*\) tokens.*/\1/')
  share=$(python3 -c "print(f'{$deferred / $whole:.2%}')")
  echo "$form: all 1,000 tools $whole tokens; deferred $deferred tokens ($share)"
  case "$form" in
    openai|anthropic|gemini)
      if [ "${1:-}" = "--check" ] && python3 -c "import sys; sys.exit(0 if $deferred / $whole <= 0.03 else 1)"; then :; elif [ "${1:-}" = "--check" ]; then echo "  over 3%"; failed=1; fi
      ;;
  esac
done
exit $failed
