#!/usr/bin/env bash
# The whole test suite, with all set-up, cheapest tier first; it stops at the first tier that fails and says which.
#   checks       type-check, lint, format, import rules, build
#   unit         pure and in-process: core, extension/model, the CLI's verbs called in-process (mocha --parallel)
#   integration  the built CLI in child processes, the webview DOM in Chromium, the loopback fakes (mocha --parallel)
#   compat       the real Claude Code and Codex CLIs and ccusage judge what we write (offline, loopback fakes)
#   host         the extension in a real VS Code extension host (code-server)
#   ui           a real VS Code workbench in headless Chromium, driven as a person would
# Each tier has its own script (npm run test:unit, test:integration, test:compat, test:host, test:ui). The real hosts
# are provisioned in the background while the cheaper tiers run. Prints each step's and tier's time and a tally.
set -uo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-}"
log_dir=test-results/logs
mkdir -p "$log_dir"
passed=0
failed=0
pending=0
t_start=$(date +%s)
declare -a summary
declare -a tiers

step() { # step NAME COMMAND... ; returns the command's exit code (non-zero also when a test is pending)
  local name=$1; shift
  local start=$(date +%s)
  echo
  echo "=== $name ==="
  "$@" 2>&1 | tee "$log_dir/$name.log"
  local rc=${PIPESTATUS[0]}
  local p f n
  # Mocha colours its output on CI (CI=true): strip ANSI codes before counting.
  local plain
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log_dir/$name.log")
  p=$(printf '%s\n' "$plain" | grep -Eo '^ *[0-9]+ passing' | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}')
  f=$(printf '%s\n' "$plain" | grep -Eo '^ *[0-9]+ failing' | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}')
  # Pending (skipped) tests did not run: they count against the run, never as passed.
  n=$(printf '%s\n' "$plain" | grep -Eo '^ *[0-9]+ pending' | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p)); failed=$((failed + f)); pending=$((pending + n))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
  [ "$n" -gt 0 ] && [ "$rc" -eq 0 ] && rc=1
  summary+=("$(printf '  %-20s %4ss  exit %s  %s passing, %s failing, %s pending' "$name" "$(( $(date +%s) - start ))" "$rc" "$p" "$f" "$n")")
  return "$rc"
}

# A check run beside the next steps: `begin NAME COMMAND...` starts it, `finished NAME` waits and reports it as a step.
declare -A begun
begin() { # begin NAME COMMAND...
  local name=$1; shift
  local start=$(date +%s)
  ( "$@" > "$log_dir/$name.log" 2>&1; echo $? > "$log_dir/$name.rc"; echo $(( $(date +%s) - start )) > "$log_dir/$name.secs" ) &
  begun[$name]=$!
}
finished() { # finished NAME: its exit code, its output printed
  local name=$1
  wait "${begun[$name]}"
  local rc secs
  rc=$(cat "$log_dir/$name.rc" 2>/dev/null || echo 1)
  secs=$(cat "$log_dir/$name.secs" 2>/dev/null || echo '?')
  echo
  echo "=== $name (beside the steps above) ==="
  cat "$log_dir/$name.log"
  summary+=("$(printf '  %-20s %4ss  exit %s' "$name" "$secs" "$rc")")
  return "$rc"
}

# Background provisioning: one log per tool; `await NAME` waits for it and prints its log.
declare -A bg_pid
provision() { # provision NAME SCRIPT
  bash "$2" > "$log_dir/provision-$1.log" 2>&1 &
  bg_pid[$1]=$!
}
await() { # await NAME: the provisioning's exit code, its log printed once
  local rc=0
  wait "${bg_pid[$1]}" || rc=$?
  echo
  echo "=== provision-$1 (in the background) ==="
  cat "$log_dir/provision-$1.log"
  summary+=("$(printf '  %-20s %5s  exit %s' "provision-$1" "" "$rc")")
  return "$rc"
}

kill_tree() { # kill_tree PID: the process and everything it started
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}

finish() { # finish STATUS [FAILED_TIER]
  local status=$1
  for pid in "${bg_pid[@]}" "${begun[@]}"; do kill_tree "$pid"; done
  echo
  echo "=== summary ==="
  printf '%s\n' "${summary[@]}"
  echo "tiers:"
  printf '%s\n' "${tiers[@]}"
  echo "total: $(( $(date +%s) - t_start ))s"
  [ -n "${2:-}" ] && echo "FAILED at the $2 tier; the tiers after it did not run"
  [ "$pending" -gt 0 ] && echo "FAILED: $pending test(s) pending (skipped); a test that does not run does not pass"
  echo "tests: $passed passed, $failed failed, $pending pending"
  exit "$status"
}

tier() { # tier NAME STEP...: runs the steps (each "name:command"), stops the suite when one fails
  local name=$1; shift
  local start=$(date +%s) rc=0
  for s in "$@"; do
    eval "$s" || { rc=1; break; }
  done
  tiers+=("$(printf '  %-12s %4ss  %s' "$name" "$(( $(date +%s) - start ))" "$([ $rc -eq 0 ] && echo passed || echo FAILED)")")
  [ $rc -eq 0 ] || finish 1 "$name"
}

tier setup "step setup bash scripts/ensure-deps.sh"
provision vscode scripts/provision-vscode.sh
provision claude scripts/provision-claude-code.sh
provision codex scripts/provision-codex.sh
provision ccusage scripts/provision-ccusage.sh

# Lint (the longest check) runs beside the others: two cores, and none of them writes what another reads.
tier checks "begin lint npx eslint --max-warnings 0 src test bench scripts" \
  "step typecheck npx tsc --noEmit -p ." \
  "step format npx prettier --check ." \
  "step imports npx depcruise src --validate .dependency-cruiser.cjs --output-type err" \
  "step build node scripts/build.mjs" \
  "finished lint"
tier unit "step unit npx mocha 'test/unit/**/*.test.ts'"
tier integration "step integration npx mocha --config test/integration/.mocharc.json 'test/integration/**/*.test.ts'"
tier compat "await claude" "await codex" "await ccusage" \
  "step compat npx mocha --config test/compat/.mocharc.json 'test/compat/**/*.test.ts'"
tier host "await vscode" "step host timeout 1800 node --import tsx test/host/run.ts"
tier ui "step ui timeout 1800 node --import tsx test/ui/run.ts"
finish 0
