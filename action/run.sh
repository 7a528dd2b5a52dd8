#!/usr/bin/env bash
# The run step of action.yml: runs the command with GitHub annotations, records its exit
# status as the `exit-code` output, and fails the step on findings (1) or a refusal (2).
#
# Reads GITHUB_WORKSPACE and GITHUB_OUTPUT (set by the runner), ASV_COMMAND, ASV_ROOT and
# ASV_ARGS (the inputs), and ASV_SARIF: when set, `skill audit --format sarif` is written
# there too (the next step uploads it to code scanning), and its error findings fail the
# step. The binary is the one the install step put on PATH.
set -uo pipefail

cd "${GITHUB_WORKSPACE:?}"
read -ra command <<< "${ASV_COMMAND:-verify}"
read -ra extra <<< "${ASV_ARGS:-}"
agentic-skill-vendor "${command[@]}" --root "${ASV_ROOT:-.}" --format github "${extra[@]}"
status=$?
if [ -n "${ASV_SARIF:-}" ]; then
  agentic-skill-vendor skill audit --root "${ASV_ROOT:-.}" --format sarif > "$ASV_SARIF"
  audit=$?
  # The worse of the two: a refusal (2) over findings (1) over clean (0).
  if [ "$audit" -gt "$status" ]; then status=$audit; fi
fi
echo "exit-code=$status" >> "${GITHUB_OUTPUT:?}"
exit "$status"
