#!/usr/bin/env bash
# The main job: compact the bundled example transcript offline (extractive summary), showing
# the rounds before, the plan, the compaction and the rounds after. Output goes to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
node scripts/build.mjs
example=examples/demo-session.jsonl
work=out/demo
rm -rf "$work"
mkdir -p "$work"
# Claude Code names sessions by UUID; keep the example's own session id as the file name.
session=$(head -c 4000 "$example" | grep -o '"sessionId":"[0-9a-f-]\{36\}"' | head -n 1 | cut -d'"' -f4)
cp "$example" "$work/$session.jsonl"
[ -d "examples/$session" ] && cp -r "examples/$session" "$work/$session"
file="$work/$session.jsonl"
target=${TARGET_TOKENS:-40000}
echo "== inspect (before) =="
node dist/cli.js inspect "$file" | tail -n 12
echo
echo "== plan (target $target tokens) =="
node dist/cli.js plan "$file" --target-tokens "$target" | tail -n 8
echo
echo "== compact (offline extractive summary) =="
node dist/cli.js compact "$file" --target-tokens "$target" --summarizer extractive | tee "$work/compact.txt"
# The result is a fork: a new session <id>.jsonl beside the original, which stays as it was.
fork=$(sed -n 's/^wrote //p' "$work/compact.txt" | head -n 1)
echo
echo "== inspect (after: $fork) =="
node dist/cli.js inspect "$fork" | tail -n 6
