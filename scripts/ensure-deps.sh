#!/usr/bin/env bash
# Installs the project's npm dependencies when they are missing or older than the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] npm ci"
  start=$(date +%s)
  npm ci --no-audit --no-fund --loglevel=error
  echo "[setup] npm ci took $(( $(date +%s) - start ))s"
fi
