#!/usr/bin/env bash
# The run step of action.yml: runs the command with GitHub annotations, records its exit
# status as the `exit-code` output, and fails the step on findings (1) or a refusal (2).
#
# Reads GITHUB_WORKSPACE and GITHUB_OUTPUT (set by the runner), ASV_COMMAND, ASV_ROOT and
# ASV_ARGS (the inputs). The binary is the one the install step put on PATH.
set -uo pipefail

cd "${GITHUB_WORKSPACE:?}"
read -ra command <<< "${ASV_COMMAND:-verify}"
read -ra extra <<< "${ASV_ARGS:-}"
agentic-skill-vendor "${command[@]}" --root "${ASV_ROOT:-.}" --format github "${extra[@]}"
status=$?
echo "exit-code=$status" >> "${GITHUB_OUTPUT:?}"
exit "$status"
