#!/bin/sh
# The skill commands and start-up beside their peers, each pair timed in the same run by
# hyperfine (median of at least 5 warm runs, on the work dir, which should be tmpfs) (issue 16):
#
#   start-up   `--version`, and `verify` of an empty repository
#   validate   `skill validate` of N skills (default 10,000) beside the Agent Skills reference
#              validator (`skills_ref.validate`, PyPI `skills-ref`) over the same directories in
#              one Python process
#   pull       `skill pull` of a skill of 1,485 files (28 MiB, text and random binary) with 300
#              files edited on each side and a clean merge, beside `git merge` of the same three
#              trees in one repository; and a no-change `skill pull` of a 1,000-file skill
#
# Usage: skills-bench.sh <release binary> <work dir on tmpfs> [python with skills_ref] [N]
# Needs hyperfine, git, python3. Prints Markdown rows: case | ours | peer | ratio | notes.
set -eu
bin=$(realpath "$1")
work=$2
py=${3:-python3}
n=${4:-10000}
runs=7
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

# median <json> <index>: the median of benchmark <index> of a hyperfine JSON export, in ms.
median() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.1f" % (r["median"]*1000))' "$1" "$2"
}
# row <label> <json> <notes>: one row from a two-command hyperfine run (ours first).
row() {
  a=$(median "$2" 0)
  b=$(median "$2" 1)
  r=$(python3 -c "print('%.2f' % ($a / $b))")
  echo "| $1 | $a ms | $b ms | $r | $3 |"
}

echo "| case | ours (median) | peer (median) | ours / peer | notes |"
echo "|---|---|---|---|---|"

# Start-up: no peer but the goal (5 ms).
mkdir -p "$work/empty"
git -C "$work/empty" init -q
hyperfine -N -i --warmup 20 --runs 100 --export-json "$work/start.json" \
  "$bin --version" "$bin verify --root $work/empty" > /dev/null 2>&1
# CPU time too (perf's task-clock, mean of 100): on a busy machine the wall time is mostly
# waiting for a core, and this is what the command itself costs.
cpu() {
  if command -v perf > /dev/null; then
    perf stat -r 100 -x, -e task-clock "$@" 2>&1 > /dev/null | awk -F, '/task-clock/ {printf "%.2f ms CPU", $1}'
  else
    echo "perf missing"
  fi
}
echo "| \`--version\` | $(median "$work/start.json" 0) ms | — | — | goal ≤ 5 ms; $(cpu "$bin" --version) |"
echo "| \`verify\`, empty repository | $(median "$work/start.json" 1) ms | — | — | goal ≤ 5 ms (exit 1: no lock); $(cpu "$bin" verify --root "$work/empty") |"

# Validate: N generated skills, every one valid.
v=$work/validate
mkdir -p "$v/skills"
python3 - "$v/skills" "$n" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"skill-{i:05d}")
    os.makedirs(os.path.join(d, "references"))
    with open(os.path.join(d, "SKILL.md"), "w") as f:
        f.write(f"---\nname: skill-{i:05d}\ndescription: Generated skill {i} for the validate benchmark. Use it when asked.\n"
                f"license: MIT\nmetadata:\n  author: bench\n---\n# Skill {i}\n\nSee [the guide](references/guide.md).\n")
    with open(os.path.join(d, "references", "guide.md"), "w") as f:
        f.write("Steps.\n" * 20)
EOF
cat > "$v/peer.py" <<'EOF'
import pathlib, sys
from skills_ref import validate
bad = 0
for d in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    if validate(d):
        bad += 1
sys.exit(1 if bad else 0)
EOF
hyperfine -N --warmup 1 --runs 5 --export-json "$v/t.json" \
  "$bin skill validate --root $v" "$py $v/peer.py $v/skills" > /dev/null 2>&1
row "\`skill validate\`, $n skills" "$v/t.json" "peer: skills_ref.validate per directory, one Python process"

# Pull: base, local and upstream trees of one large skill.
p=$work/pull
mkdir -p "$p/up/skills/big"
python3 - "$p/up/skills/big" <<'EOF'
import os, random, sys
root = sys.argv[1]
rng = random.Random(16)
with open(os.path.join(root, "SKILL.md"), "w") as f:
    f.write("---\nname: big\ndescription: A large skill for the pull benchmark.\n---\n# Big\n")
words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
for i in range(1484):
    sub = os.path.join(root, f"part{i % 20:02d}")
    os.makedirs(sub, exist_ok=True)
    if i % 4 == 3:  # a quarter random binary
        with open(os.path.join(sub, f"blob{i:04d}.bin"), "wb") as f:
            f.write(rng.randbytes(rng.randint(20000, 50000)))
    else:
        lines = [" ".join(rng.choice(words) for _ in range(10)) for _ in range(rng.randint(100, 300))]
        with open(os.path.join(sub, f"text{i:04d}.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
EOF
git -C "$p/up" init -q
git -C "$p/up" add -A
git -C "$p/up" commit -qm base
mkdir -p "$p/me0"
git -C "$p/me0" init -q
"$bin" skill add "$p/up" skills/big --root "$p/me0" > /dev/null
# edit <dir> <which line> <first file index>: 300 text files, one line each, as given.
edit() {
  python3 - "$1" "$2" "$3" <<'EOF'
import os, sys
root, line, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
texts = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs if f.endswith(".md") and f != "SKILL.md")
for path in texts[first:first + 300]:
    with open(path) as f:
        lines = f.read().split("\n")
    lines[line] = "EDITED " + lines[line]
    with open(path, "w") as f:
        f.write("\n".join(lines))
EOF
}
edit "$p/me0/skills/big" 1 0      # ours: line 2 of files 0-299
edit "$p/up/skills/big" 50 150    # theirs: line 51 of files 150-449 (150 files on both sides)
git -C "$p/up" commit -qam theirs
# The same three trees in one git repository: base, ours (a branch), theirs (a branch).
g=$p/git
git init -q "$g"
git -C "$p/up" archive HEAD~1 skills/big | tar -x -C "$g"
git -C "$g" add -A
git -C "$g" commit -qm base
git -C "$g" branch -q theirs
rm -rf "$g/skills/big"
cp -r "$p/me0/skills/big" "$g/skills/big"
git -C "$g" add -A
git -C "$g" commit -qm ours
git -C "$g" branch -q ours
git -C "$g" checkout -q theirs
rm -rf "$g/skills/big"
git -C "$p/up" archive HEAD skills/big | tar -x -C "$g"
git -C "$g" add -A
git -C "$g" commit -qm theirs
git -C "$g" checkout -q --detach ours
ours=$(git -C "$g" rev-parse HEAD)
size=$(du -sm "$p/up/skills/big" | cut -f1)
hyperfine -N --runs "$runs" --export-json "$p/t.json" \
  --prepare "sh -c 'rm -rf $p/me && cp -a $p/me0 $p/me'" "$bin skill pull big --root $p/me" \
  --prepare "git -C $g reset -q --hard $ours" "git -C $g merge -q --no-edit theirs" > /dev/null 2>&1
row "\`skill pull\`, 1,485 files (${size} MiB), 300 edited each side" "$p/t.json" "peer: git merge of the same trees"
rm -rf "$p/me"
cp -a "$p/me0" "$p/me"
rss=$(/usr/bin/time -v "$bin" skill pull big --root "$p/me" 2>&1 > /dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "| \`skill pull\` peak memory | $((rss / 1024)) MiB | — | — | skill is ${size} MiB; goal ≤ 3× |"

# No-change pull of a 1,000-file skill.
q=$work/quiet
mkdir -p "$q/up/skills/k"
printf -- '---\nname: k\ndescription: A 1,000-file skill for the no-change pull.\n---\n# K\n' > "$q/up/skills/k/SKILL.md"
i=0
while [ "$i" -lt 999 ]; do
  printf 'file %s\nsome text\n' "$i" > "$q/up/skills/k/f$i.md"
  i=$((i + 1))
done
git -C "$q/up" init -q
git -C "$q/up" add -A
git -C "$q/up" commit -qm base
mkdir -p "$q/me"
git -C "$q/me" init -q
"$bin" skill add "$q/up" skills/k --root "$q/me" > /dev/null
hyperfine -N --warmup 2 --runs 10 --export-json "$q/t.json" \
  "$bin skill pull k --root $q/me" > /dev/null 2>&1
echo "| \`skill pull\`, 1,000 files, nothing changed upstream | $(median "$q/t.json" 0) ms | — | — | goal ≤ 50 ms |"
