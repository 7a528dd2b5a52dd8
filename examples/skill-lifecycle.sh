#!/bin/sh
# Walks through the lifecycle of a skill taken from another repository:
# init -> add -> local edit -> upstream edit -> pull (clean) -> conflicting pull -> resolve.
#
#   sh examples/skill-lifecycle.sh            (from the repository root)
#
# Builds the release binary (or runs $ASV) and uses a temporary directory it removes at the end.
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

step init

step skill add ../upstream skills/summarize
step skill status

edit skills/summarize/SKILL.md 'at most five key points' 'at most three key points'
edit ../upstream/skills/summarize/SKILL.md 'if anything\.' 'if anything, in one line.'
step skill status
step skill diff summarize
step skill pull
grep -n 'three key points\|in one line' skills/summarize/SKILL.md

edit skills/summarize/SKILL.md 'Read the whole document' 'Skim the document'
edit ../upstream/skills/summarize/SKILL.md 'Read the whole document' 'Read the document twice'
step skill pull || echo "(exit $?: nothing was changed)"
step skill pull --write-conflicts || echo "(exit $?: conflict markers written)"
sed -n '/<<<<<<< local/,/>>>>>>> upstream/p' skills/summarize/SKILL.md
step skill status

# Resolve by hand: keep our wording.
sed -e '/^<<<<<<< local$/d' -e '/^||||||| base$/,/^>>>>>>> upstream$/d' skills/summarize/SKILL.md > fixed.md
mv fixed.md skills/summarize/SKILL.md
step skill resolve summarize
step skill status
step skill diff summarize --from upstream --to local
