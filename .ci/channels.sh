#!/usr/bin/env bash
# Tests the channels users install and run the tool from (issue 17), each for real:
#   - the GitHub Action: action.yml's steps run as a runner runs them (its variables set, the
#     install step fetching a release archive from a real HTTP server on 127.0.0.1, checking
#     its sha256, and building the action's source when there is no archive), then the
#     annotations and exit statuses of clean, stale and refused runs;
#   - the pre-commit hooks, through the real pre-commit from PyPI (`pre-commit try-repo`) in a
#     sample git repository: a stale copy stops the commit, a clean tree passes;
#   - the npm packages: the launcher and the linux-x64 package built by packaging/npm/build.py,
#     packed with `npm pack`, installed from the tarballs into a sample project offline, and
#     run with `npx`.
#
# Usage: .ci/channels.sh <binary>   (the binary to package and to serve as a release)
# CARGO_TARGET_DIR, when set, is shared by the two source builds (the hooks' and the
# action's), so the second finds the first's work.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
# Stripped: the archive, the npm package and the hooks' PATH all carry it.
cp "$(realpath "${1:?give the binary to package}")" "$work/agentic-skill-vendor"
strip "$work/agentic-skill-vendor" 2> /dev/null || true
bin="$work/agentic-skill-vendor"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "channels: $*" >&2
  exit 1
}

# A git repository holding a copy of the demo, with everything committed.
sample() {
  local dir="$work/$1"
  cp -r examples/demo "$dir"
  git -C "$dir" init -q
  git -C "$dir" add -A
  git -C "$dir" -c user.name=ci -c user.email=ci@example.com commit -qm sample
  echo "$dir"
}

# Makes a vendored copy stale (as a hand edit would), staged for commit.
stale() {
  echo "edited by hand" >> "$1/skills/review-writer/references/vendor/changelog-entry.md"
  git -C "$1" add -A
}

# Runs "$@", which must exit with status $1 (shifted off); prints what it said on a mismatch.
expect() {
  local want=$1 got=0
  shift
  "$@" > "$work/out" 2> "$work/err" || got=$?
  if [ "$got" != "$want" ]; then
    cat "$work/out" "$work/err" >&2
    fail "$* exited $got, not $want"
  fi
}

version=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "agentic-skill-vendor"))')

# --- The GitHub Action -------------------------------------------------------------------------
echo "channels: GitHub Action"
# action.yml's steps must run exactly the two scripts, with every input passed by environment.
python3 - "$repo/action.yml" << 'EOF'
import re, sys
text = open(sys.argv[1]).read()
runs = re.findall(r"^\s+run: '\"\$GITHUB_ACTION_PATH/(action/[a-z]+\.sh)\"'$", text, re.M)
assert runs == ["action/install.sh", "action/run.sh"], runs
envs = set(re.findall(r"^\s+(ASV_[A-Z]+): \$\{\{ inputs\.([a-z]+) \}\}$", text, re.M))
assert envs == {("ASV_VERSION", "version"), ("ASV_COMMAND", "command"), ("ASV_ROOT", "root"), ("ASV_ARGS", "args"), ("ASV_SARIF", "sarif")}, envs
# No input is pasted into a script's text.
assert not re.search(r"run:.*\$\{\{", text), "an expression inside run:"
EOF

# A release as cargo-dist lays it out, served over HTTP from 127.0.0.1.
target=x86_64-unknown-linux-gnu
archive="agentic-skill-vendor-$target.tar.xz"
mkdir -p "$work/releases/v$version" "$work/pack/agentic-skill-vendor-$target"
cp "$bin" "$work/pack/agentic-skill-vendor-$target/agentic-skill-vendor"
tar -cJf "$work/releases/v$version/$archive" -C "$work/pack" "agentic-skill-vendor-$target"
(cd "$work/releases/v$version" && sha256sum "$archive" > "$archive.sha256")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$work/releases" "$port" > /dev/null 2>&1 &
server=$!
for _ in $(seq 50); do
  python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1])' "http://127.0.0.1:$port/" 2> /dev/null && break
  sleep 0.1
done

# One job: a fresh runner's variables, the install step, then the run step with an input set.
job() {
  local name=$1 version=$2
  export RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work/$name/temp"
  export GITHUB_ACTION_PATH="$repo" GITHUB_PATH="$work/$name/path" GITHUB_OUTPUT="$work/$name/output"
  export ASV_RELEASES="http://127.0.0.1:$port" ASV_VERSION="$version"
  mkdir -p "$RUNNER_TEMP"
  : > "$GITHUB_PATH"
  : > "$GITHUB_OUTPUT"
  # (set -e does not reach into a function run as part of a condition, as `expect` runs it.)
  action/install.sh || return $?
  # The runner puts what the step appended to GITHUB_PATH before the PATH of later steps.
  PATH="$(tac "$GITHUB_PATH" | paste -sd:):$PATH"
  export PATH
}
step() {
  ASV_COMMAND=$1 ASV_ROOT=${2:-.} ASV_ARGS=${3:-} action/run.sh
}

ws=$(sample action-ws)
export GITHUB_WORKSPACE="$ws"
(
  job released "$version" > "$work/released.log"
  grep -q "installed the released agentic-skill-vendor $version for $target" "$work/released.log" \
    || fail "the release archive was not used: $(cat "$work/released.log")"
  [ "$(command -v agentic-skill-vendor)" = "$work/released/temp/agentic-skill-vendor/bin/agentic-skill-vendor" ] \
    || fail "the released binary is not first on PATH"
  expect 0 step verify
  grep -qx "exit-code=0" "$GITHUB_OUTPUT" || fail "no exit-code=0 output"
  expect 0 step "skill validate"
  # The sarif input: the audit written as one SARIF document beside the command's run.
  ASV_SARIF="$work/audit.sarif" expect 0 step verify
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["version"] == "2.1.0"' "$work/audit.sarif" \
    || fail "the sarif input wrote no SARIF log"
  stale "$ws"
  expect 1 step verify
  grep -q "^::error file=skills/review-writer/references/vendor/changelog-entry.md,title=drift::" "$work/out" \
    || fail "no drift annotation: $(cat "$work/out")"
  grep -qx "exit-code=1" "$GITHUB_OUTPUT" || fail "no exit-code=1 output"
  expect 2 step verify . "--no-such-option"
  grep -q "^::error title=error::" "$work/out" || fail "no refusal annotation: $(cat "$work/out")"
  expect 0 step gen
  expect 0 step verify
)
# A download that does not match its checksum is refused before anything runs.
echo "tampered" >> "$work/releases/v$version/$archive"
(
  expect 2 job tampered "$version"
  grep -q "does not match its published sha256" "$work/out" || fail "tampering not caught: $(cat "$work/out")"
)
# No archive of that version: the action builds its own source.
(
  job source 0.0.0-none > "$work/source.log"
  grep -q "no released archive of 0.0.0-none" "$work/source.log" || fail "$(cat "$work/source.log")"
  [ -x "$work/source/temp/agentic-skill-vendor/bin/agentic-skill-vendor" ] || fail "no binary built"
  git -C "$ws" reset -q --hard && expect 0 step verify
)

# --- pre-commit ------------------------------------------------------------------------------
echo "channels: pre-commit"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check pre-commit
export PRE_COMMIT_HOME="$work/pre-commit-home"
hooks=$(sample hooks)
mkdir -p "$work/onpath"
cp "$bin" "$work/onpath/agentic-skill-vendor"
(
  cd "$hooks"
  try() { "$work/venv/bin/pre-commit" try-repo "$repo" "$@"; }
  # A binary on PATH (npm, cargo, a release archive): the -system hooks.
  export PATH="$work/onpath:$PATH"
  expect 0 try agentic-skill-vendor-verify-system --all-files
  stale "$hooks"
  expect 1 try agentic-skill-vendor-verify-system
  grep -q "drift: skills/review-writer/references/vendor/changelog-entry.md" "$work/out" \
    || fail "no drift line: $(cat "$work/out")"
  # gen writes the copy again; pre-commit stops the commit because a file changed.
  expect 1 try agentic-skill-vendor-gen-system
  grep -q "files were modified by this hook" "$work/out" || fail "$(cat "$work/out")"
  git add -A
  expect 0 try agentic-skill-vendor-gen-system
  # Built from the pinned rev by the hook itself.
  stale "$hooks"
  expect 1 try agentic-skill-vendor-verify
  git checkout -q -- . && git reset -q --hard
  expect 0 try agentic-skill-vendor-verify --all-files
)

# --- npm ---------------------------------------------------------------------------------------
echo "channels: npm"
python3 packaging/npm/build.py --version "$version" --out "$work/npm" \
  --binary "linux-x64=$bin"
(cd "$work/npm/agentic-skill-vendor" && npm pack --silent --pack-destination "$work/npm" > /dev/null)
(cd "$work/npm/linux-x64" && npm pack --silent --pack-destination "$work/npm" > /dev/null)
project="$work/npm-project"
mkdir -p "$project"
cp -r examples/demo "$project/demo"
(
  cd "$project"
  echo '{"name": "sample", "version": "1.0.0", "private": true}' > package.json
  # Offline: nothing may be fetched; npm skips the other platforms' optional packages.
  npm install --offline --no-audit --no-fund --silent \
    "$work/npm/agentic-skill-vendor-linux-x64-$version.tgz" "$work/npm/agentic-skill-vendor-$version.tgz"
  expect 0 npx --offline agentic-skill-vendor --version
  grep -qx "agentic-skill-vendor $version" "$work/out" || fail "version: $(cat "$work/out")"
  expect 0 npx --offline agentic-skill-vendor verify --root demo
  # The short name is installed too, and runs the same program.
  expect 0 npx --offline asv verify --root demo
  echo "edited by hand" >> demo/skills/review-writer/references/vendor/changelog-entry.md
  expect 1 npx --offline agentic-skill-vendor verify --root demo
  grep -q "^drift: " "$work/out" || fail "no drift line through npx: $(cat "$work/out")"
  expect 0 npx --offline agentic-skill-vendor gen --root demo
  expect 0 npx --offline agentic-skill-vendor verify --root demo
)
echo "channels: all passed"
