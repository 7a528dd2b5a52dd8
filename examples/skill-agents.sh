#!/bin/sh
# Walks through skills kept in step across agents:
# adopt an upstream skill -> sync into three agents -> edit -> pull -> outdated -> remove.
#
#   sh examples/skill-agents.sh               (from the repository root)
#
# Builds the release binary (or runs $ASV) and uses a temporary directory it removes at the end.
# Every step is checked: the script stops at the first that does not do what it says.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
if [ -z "${ASV:-}" ]; then
  cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p agentic-skill-vendor
fi
# Where cargo put it: $CARGO_TARGET_DIR when set (relative to where the script was started, as
# cargo reads it), else target/ of the repository.
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$PWD/$target ;; esac
bin=${ASV:-$target/release/agentic-skill-vendor}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$here/upstream-skills" "$work/upstream"
mkdir "$work/team"
cd "$work/team"

step() { printf '\n$ agentic-skill-vendor %s\n' "$*"; "$bin" "$@"; }
edit() { sed "s/$2/$3/" "$1" > "$1.new" && mv "$1.new" "$1"; }
same() { [ "$("$bin" skill hash "$1")" = "$("$bin" skill hash "$2")" ] || { echo "$1 and $2 differ"; exit 1; }; }

step init
# Adopt an upstream skill: skill add records it in the lock and in vendor-skills.yaml.
step skill add ../upstream skills/summarize
# Every agent the team uses reads the same skills.
printf 'targets: [claude, codex, copilot]\n' | cat - vendor-skills.yaml > intent.new && mv intent.new vendor-skills.yaml
cat vendor-skills.yaml
step skill verify || echo "(exit $?: the agents' copies are not there yet)"
step skill sync
for dir in .claude/skills .agents/skills .github/skills; do same skills/summarize "$dir/summarize"; done
step skill sync      # nothing to do: prints nothing, writes nothing
step skill verify

# A local edit reaches every agent with the next sync.
edit skills/summarize/SKILL.md 'at most five key points' 'at most three key points'
step skill verify || echo "(exit $?: the copies are stale)"
step skill sync
same skills/summarize .claude/skills/summarize

# Upstream moves on: outdated says so, pull merges it, sync carries it to the agents.
edit ../upstream/skills/summarize/SKILL.md 'if anything\.' 'if anything, in one line.'
step skill outdated || echo "(exit $?: an import would move)"
step skill pull
step skill sync
grep -n 'three key points\|in one line' .github/skills/summarize/SKILL.md

# An edit made in an agent's directory is refused, not overwritten.
echo "edited by hand" >> .claude/skills/summarize/SKILL.md
step skill sync || echo "(exit $?: nothing was changed)"
step skill sync --force

# Remove: the skill, its lock entry, its row and every agent's copy, in one step.
step skill remove summarize --force
step skill list
step skill verify
[ ! -e .claude/skills/summarize ] && [ ! -e .agents/skills/summarize ] && [ ! -e .github/skills/summarize ]
echo
echo "walk-through done"
