#!/usr/bin/env bash
# Runs agentic-skill-vendor for the pre-commit hooks of .pre-commit-hooks.yaml, building it
# from the checkout pre-commit made of this repository on first use (so once per pinned rev;
# pre-commit keeps the checkout). pre-commit's own `rust` language cannot do this: it runs
# `cargo install --path .`, and this repository's root is a workspace, not a package.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix="$here/.pre-commit-build"
bin="$prefix/bin/agentic-skill-vendor"
if [ ! -x "$bin" ]; then
  echo "building agentic-skill-vendor for pre-commit (once per revision)..." >&2
  cargo install --locked --quiet --root "$prefix" --path "$here/crates/agentic-skill-vendor" >&2
fi
exec "$bin" "$@"
