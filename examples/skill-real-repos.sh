#!/bin/sh
# Walks through importing a whole multi-skill repository shaped as the best-known public ones
# are (a description over 1,024 characters, a name that differs from its directory, Claude Code's
# own frontmatter keys, an upstream commit that breaks a rule), pinned by a tag range, then
# moving the pin to the next major version with a local edit kept.
#
#   sh examples/skill-real-repos.sh           (from the repository root)
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

step() { printf '\n$ agentic-skill-vendor %s\n' "$*"; "$bin" "$@"; }
git_() { git -c user.email=demo@example.com -c user.name=demo -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }
long() { python3 -c "print('Use for the Claude API. ' * $1)"; }

# The upstream: a git repository with three skills and tags v1.0.0, v1.1.0, v2.0.0.
mkdir -p "$work/upstream/skills/claude-api" "$work/upstream/skills/composition-patterns" "$work/upstream/skills/review"
cd "$work/upstream"
git_ init -q -b main
cat > skills/claude-api/SKILL.md <<EOF
---
name: claude-api
description: $(long 20)
---
# Claude API

Call the API with the SDK.
EOF
cat > skills/composition-patterns/SKILL.md <<'EOF'
---
name: vercel-composition-patterns
description: React composition patterns.
---
# Composition patterns

Prefer composition over configuration.
EOF
cat > skills/review/SKILL.md <<'EOF'
---
name: review
description: Reviews a change.
argument-hint: "[file]"
disable-model-invocation: true
---
# Review

Read the diff.
List the risks.
Check the tests.
Check the docs.
Say what to test.
EOF
git_ add -A && git_ commit -q -m "three skills" && git_ tag v1.0.0
# An upstream commit that breaks a rule agents do not enforce: the description grows past 1,024.
sed "s/^description: .*/description: $(long 50)/" skills/claude-api/SKILL.md > d.new && mv d.new skills/claude-api/SKILL.md
git_ commit -q -am "longer description" && git_ tag v1.1.0
sed 's/Say what to test./Say what to test, and how./' skills/review/SKILL.md > r.new && mv r.new skills/review/SKILL.md
git_ commit -q -am "review: how to test" && git_ tag v2.0.0

# The team's repository takes every skill under skills/, pinned to the newest 1.x tag.
mkdir "$work/team"
cd "$work/team"
git_ init -q -b main
step init
step skill add ../upstream skills --all --ref '^1'
# Every skill was taken, each under the name its SKILL.md gives.
for name in claude-api vercel-composition-patterns review; do [ -f "skills/$name/SKILL.md" ]; done
grep -q '"tag": "v1.1.0"' vendor-skills-lock.json
step skill verify
# The author's rules still hold every one: skill validate says what an author would fix.
step skill validate skills/claude-api || echo "(exit $?: the description is over 1,024 characters)"

# A local edit. Nothing newer within ^1, so outdated has nothing to say.
sed 's/List the risks./List the risks, worst first./' skills/review/SKILL.md > r.new && mv r.new skills/review/SKILL.md
step skill status
step skill outdated

# Move every import to the next major version by editing the intent, then pull: the old pin
# is the base, so the local edit is kept beside upstream's change.
sed 's/ref: "^1"/ref: "^2"/; s/ref: \^1$/ref: "^2"/' vendor-skills.yaml > i.new && mv i.new vendor-skills.yaml
cat vendor-skills.yaml
step skill pull
grep -q 'worst first' skills/review/SKILL.md
grep -q 'and how' skills/review/SKILL.md
grep -q '"tag": "v2.0.0"' vendor-skills-lock.json
step skill status
step skill verify
