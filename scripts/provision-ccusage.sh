#!/usr/bin/env bash
# Provision the real ccusage used by the cost agreement test (test/compat/ccusage.test.ts).
#
# Installs a PINNED ccusage (with its linux-x64 native build) into <repo>/.cache/ccusage
# (git-ignored) and reuses it when the marker says that exact version is present.
# 20.0.24 is pinned because 20.0.26 has no linux-x64 build published.
#
# The executable ends up at .cache/ccusage/node_modules/.bin/ccusage.
set -euo pipefail

CCUSAGE_VERSION="20.0.24"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$repo_root/.cache/ccusage"
marker="$prefix/.provisioned-$CCUSAGE_VERSION"
bin="$prefix/node_modules/.bin/ccusage"

if [[ -z "${CCUSAGE_FORCE:-}" && -f "$marker" && -x "$bin" ]]; then
  echo "provision-ccusage: ccusage@$CCUSAGE_VERSION already present at $bin (reused)"
  exit 0
fi

echo "provision-ccusage: installing ccusage@$CCUSAGE_VERSION into $prefix ..."
rm -rf "$prefix"
mkdir -p "$prefix"
# A private package.json so npm never walks up into the repository's own package.json.
printf '{ "name": "ccusage-cache", "private": true }\n' > "$prefix/package.json"
npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
  "ccusage@$CCUSAGE_VERSION" "@ccusage/ccusage-linux-x64@$CCUSAGE_VERSION"

if [[ ! -x "$bin" ]]; then
  echo "provision-ccusage: expected executable not found: $bin" >&2
  exit 1
fi
got_version="$(HOME="$prefix/.home" timeout 60 "$bin" --version 2>/dev/null | head -1 || true)"
rm -rf "$prefix/.home"
case "$got_version" in
  *"$CCUSAGE_VERSION"*) ;;
  *) echo "provision-ccusage: '$bin --version' printed '$got_version', expected $CCUSAGE_VERSION" >&2; exit 1 ;;
esac
touch "$marker"
echo "provision-ccusage: installed ccusage $got_version at $bin"
