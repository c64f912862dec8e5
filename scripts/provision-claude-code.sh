#!/usr/bin/env bash
# Provision the real Claude Code CLI used by the compatibility tests (test/compat/).
#
# Installs a PINNED @anthropic-ai/claude-code into <repo>/.cache/claude-code (git-ignored)
# and reuses it when the marker file says that exact version is already installed.
# Idempotent: a second run is a no-op (a fraction of a second).
#
# Usage:  bash scripts/provision-claude-code.sh         (from anywhere)
#         CLAUDE_CODE_FORCE=1 bash scripts/provision-claude-code.sh   (reinstall)
#
# The binary ends up at
#   .cache/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude
# (native executable from the optional dependency; it works even if npm skips the
# package's own install script). CLAUDE_CODE_VERSION below is the one place the pin is set: the
# tests read it from this line (test/support/pins.ts); keep it a line of its own, NAME="x.y.z".
set -euo pipefail

CLAUDE_CODE_VERSION="2.1.332"

start_ns=$(date +%s%N)
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$repo_root/.cache/claude-code"
marker="$prefix/.provisioned-$CLAUDE_CODE_VERSION"
bin="$prefix/node_modules/@anthropic-ai/claude-code-linux-x64/claude"

elapsed() {
  local end_ns
  end_ns=$(date +%s%N)
  awk -v s="$start_ns" -v e="$end_ns" 'BEGIN { printf "%.1f", (e - s) / 1e9 }'
}

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "provision-claude-code: only linux-x64 is supported by this script (got $(uname -s)-$(uname -m))" >&2; exit 1 ;;
esac

if [[ -z "${CLAUDE_CODE_FORCE:-}" && -f "$marker" && -x "$bin" ]]; then
  echo "provision-claude-code: @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION already present at $bin (reused, $(elapsed)s)"
  exit 0
fi

echo "provision-claude-code: installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $prefix ..."
rm -rf "$prefix"
mkdir -p "$prefix"
# A private package.json so npm never walks up into the repository's own package.json.
printf '{ "name": "claude-code-cache", "private": true }\n' > "$prefix/package.json"
npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
  "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"

if [[ ! -f "$bin" ]]; then
  echo "provision-claude-code: expected binary not found: $bin" >&2
  exit 1
fi
chmod +x "$bin"
got_version="$(HOME="$prefix/.home" DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
  timeout 60 "$bin" --version 2>/dev/null | head -1 || true)"
rm -rf "$prefix/.home"
case "$got_version" in
  "$CLAUDE_CODE_VERSION"*) ;;
  *) echo "provision-claude-code: '$bin --version' printed '$got_version', expected $CLAUDE_CODE_VERSION" >&2; exit 1 ;;
esac
touch "$marker"
echo "provision-claude-code: installed $got_version at $bin in $(elapsed)s"
