#!/usr/bin/env bash
# Provision the real OpenAI Codex CLI used by the Codex compatibility tests (test/compat/codex-*.test.ts).
#
# Installs a PINNED @openai/codex into <repo>/.cache/codex (git-ignored) and reuses it when the marker
# file says that exact version is already installed. Idempotent: a second run is a no-op.
#
# Usage:  bash scripts/provision-codex.sh            (from anywhere)
#         CODEX_FORCE=1 bash scripts/provision-codex.sh   (reinstall)
#
# The native binary comes with the optional dependency @openai/codex-linux-x64; the launcher is
# .cache/codex/node_modules/.bin/codex. CODEX_VERSION below is the one place the pin is set: the tests read it
# from this line (test/support/pins.ts); keep it a line of its own, NAME="x.y.z".
set -euo pipefail

CODEX_VERSION="0.171.0"

start_ns=$(date +%s%N)
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$repo_root/.cache/codex"
marker="$prefix/.provisioned-$CODEX_VERSION"
bin="$prefix/node_modules/.bin/codex"

elapsed() {
  local end_ns
  end_ns=$(date +%s%N)
  awk -v s="$start_ns" -v e="$end_ns" 'BEGIN { printf "%.1f", (e - s) / 1e9 }'
}

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "provision-codex: only linux-x64 is supported by this script (got $(uname -s)-$(uname -m))" >&2; exit 1 ;;
esac

if [[ -z "${CODEX_FORCE:-}" && -f "$marker" && -x "$bin" ]]; then
  echo "provision-codex: @openai/codex@$CODEX_VERSION already present at $bin (reused, $(elapsed)s)"
  exit 0
fi

echo "provision-codex: installing @openai/codex@$CODEX_VERSION into $prefix ..."
rm -rf "$prefix"
mkdir -p "$prefix"
# A private package.json so npm never walks up into the repository's own package.json.
printf '{ "name": "codex-cache", "private": true }\n' > "$prefix/package.json"
npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "@openai/codex@$CODEX_VERSION"

if [[ ! -x "$bin" ]]; then
  echo "provision-codex: expected launcher not found: $bin" >&2
  exit 1
fi
got_version="$(HOME="$prefix/.home" timeout 60 "$bin" --version 2>/dev/null | head -1 || true)"
rm -rf "$prefix/.home"
case "$got_version" in
  *"$CODEX_VERSION"*) ;;
  *) echo "provision-codex: '$bin --version' printed '$got_version', expected $CODEX_VERSION" >&2; exit 1 ;;
esac
touch "$marker"
echo "provision-codex: installed $got_version at $bin in $(elapsed)s"
