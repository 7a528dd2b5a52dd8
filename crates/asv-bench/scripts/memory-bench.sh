#!/bin/sh
# Peak memory (max RSS, from /usr/bin/time -v) of each command on inputs far larger than any
# limit, to show memory does not follow file size (issue 15 §3). Every tree is built under the
# work dir (put it on tmpfs: /dev/shm), from sparse or generated files, and removed after its
# row. Usage: memory-bench.sh <release binary> <work dir on tmpfs> [size, default 1G]
# (`archive` instead of a size: only the installs from an 80 MB ZIP and tar.gz; `merge`: only
# the pulls and diff of a 212 MB text file changed on both sides, issue 27 §5).
# Prints one Markdown row per case: case | exit code | max RSS in MiB.
set -eu
bin=$1
work=$2
big=${3:-1G}
mkdir -p "$work"

# rss <label> <command…>: runs the command, prints "| label | exit | MiB |".
rss() {
  label=$1
  shift
  set +e
  /usr/bin/time -v "$@" > "$work/out" 2> "$work/err"
  code=$?
  set -e
  kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/err")
  echo "| $label | $code | $((kb / 1024)) |"
}

# skill <root> <name> <contract…>: a skill declaring the contracts.
skill() {
  root=$1
  name=$2
  shift 2
  mkdir -p "$root/skills/$name"
  printf -- '---\nname: %s\ndescription: Memory bench skill.\nmetadata:\n  contracts: [%s]\n---\n' \
    "$name" "$(echo "$@" | tr ' ' ',')" > "$root/skills/$name/SKILL.md"
}

# raw_tree <root> <size> <skills>: one raw file of <size> (sparse) declared by <skills> skills.
raw_tree() {
  rm -rf "$1"
  mkdir -p "$1/tools"
  printf '/.agentic-skill-vendor/\n' > "$1/.gitignore"
  truncate -s "$2" "$1/tools/big.bin"
  printf 'contracts:\n  big:\n    source: local\n    files:\n      tools/big.bin: scripts/big.bin\n' \
    > "$1/vendor-manifest.yaml"
  i=0
  while [ "$i" -lt "$3" ]; do
    skill "$1" "s$i" big
    i=$((i + 1))
  done
}

# archive_rows: an install from an archive, a skill of 80 random files of 1 MB as a stored ZIP
# (80 MB) and as a tar.gz (80 MB: random bytes do not shrink), each into a fresh repository.
archive_rows() {
  t=$work/archive
  rm -rf "$t"
  mkdir -p "$t/s"
  printf -- '---\nname: s\ndescription: Memory bench skill.\n---\n' > "$t/s/SKILL.md"
  i=0
  while [ "$i" -lt 80 ]; do
    head -c 1000000 /dev/urandom > "$t/s/f$i.bin"
    i=$((i + 1))
  done
  (cd "$t" && zip -qr -0 s.zip s && tar -czf s.tar.gz s)
  rm -rf "$t/s"
  for a in s.zip s.tar.gz; do
    rm -rf "$t/repo"
    mkdir -p "$t/repo"
    git -C "$t/repo" init -q
    rss "skill install from an 80 MB ${a#s.}" "$bin" skill install "$t/$a" --root "$t/repo"
  done
  rm -rf "$t"
}

echo "| case | exit | max RSS (MiB) |"
echo "|---|---|---|"

# merge_rows: a skill of one 212 MB text file (2.9 million lines) edited near its top upstream
# and near its end locally (a clean merge), then on one line on both sides (a conflict).
merge_rows() {
  t=$work/merge
  rm -rf "$t"
  mkdir -p "$t/up/skills/big" "$t/me/skills"
  python3 -c 'import sys; sys.stdout.write("".join(f"line {i:09d} of a large reference file, padded to about seventy bytes.\n" for i in range(2_900_000)))' \
    > "$t/up/skills/big/ref.txt"
  printf -- '---\nname: big\ndescription: Big.\n---\nbody\n' > "$t/up/skills/big/SKILL.md"
  (cd "$t/me" && "$bin" skill add ../up skills/big > /dev/null)
  sed -i 's/^line 000000010 /line 000000010 UP /' "$t/up/skills/big/ref.txt"
  sed -i 's/^line 002800000 /line 002800000 ME /' "$t/me/skills/big/ref.txt"
  rss "skill diff --from base --to local, 212 MB text" "$bin" skill diff big --from base --to local --root "$t/me"
  rss "skill pull, 212 MB text changed on both sides" "$bin" skill pull big --root "$t/me"
  sed -i 's/^line 002000000 /line 002000000 UP2 /' "$t/up/skills/big/ref.txt"
  sed -i 's/^line 002000000 /line 002000000 ME2 /' "$t/me/skills/big/ref.txt"
  rss "skill pull, a conflict in the 212 MB text (exit 1)" "$bin" skill pull big --root "$t/me"
  rm -rf "$t"
}

if [ "$big" = merge ]; then
  merge_rows
  rm -f "$work/out" "$work/err"
  exit 0
fi

# `archive` instead of a size: the archive rows alone.
if [ "$big" = archive ]; then
  archive_rows
  rm -f "$work/out" "$work/err"
  exit 0
fi

t=$work/raw-big
raw_tree "$t" "$big" 3
rss "gen: raw $big src × 3 skills" "$bin" gen --root "$t"
rss "verify: raw $big src × 3 skills" "$bin" verify --root "$t"
rm -rf "$t"

t=$work/raw-many
raw_tree "$t" 100M 20
rss "gen: raw 100M src × 20 skills" "$bin" gen --root "$t"
rss "verify: raw 100M src × 20 skills" "$bin" verify --root "$t"
rm -rf "$t"

t=$work/doc-big
rm -rf "$t"
mkdir -p "$t/contracts"
yes 'A line of the shared document contract, as agents read it.' | head -c "$big" \
  > "$t/contracts/doc.md"
skill "$t" a doc
skill "$t" b doc
rss "gen: document contract $big × 2 skills" "$bin" gen --root "$t"
rm -rf "$t"

t=$work/doc-60m
rm -rf "$t"
mkdir -p "$t/contracts"
yes 'A line of the shared document contract, as agents read it.' | head -c 60M \
  > "$t/contracts/doc.md"
skill "$t" a doc
skill "$t" b doc
rss "gen: document contract 60M × 2 skills" "$bin" gen --root "$t"
rss "gen again: document contract 60M × 2 skills" "$bin" gen --root "$t"
rss "verify: document contract 60M × 2 skills" "$bin" verify --root "$t"
rm -rf "$t"

# Three large texts, each past what a run keeps of its canonical texts between them (32 MiB),
# with CRLF lines under a frontmatter so canonicalizing changes them.
t=$work/doc-3x40m
rm -rf "$t"
mkdir -p "$t/contracts"
for c in c1 c2 c3; do
  { printf -- '---\r\nversion: 1\r\n---\r\n\r\n'
    yes "A line of $c, with a CRLF ending." | sed 's/$/\r/' | head -c 40M; } > "$t/contracts/$c.md"
done
skill "$t" a c1 c2 c3
skill "$t" b c1 c2 c3
rss "gen: 3 document contracts of 40M × 2 skills" "$bin" gen --root "$t"
rss "gen again: 3 document contracts of 40M × 2 skills" "$bin" gen --root "$t"
rss "verify: 3 document contracts of 40M × 2 skills" "$bin" verify --root "$t"
rm -rf "$t"

t=$work/lint
rm -rf "$t"
skill "$t" a
truncate -s "$big" "$t/skills/a/zeros.bin"
rss "lint-selfcontain: $big sparse file" "$bin" lint-selfcontain --root "$t"
rm "$t/skills/a/zeros.bin"
yes 'Plain prose with no reference in it, line after line.' | head -c "$big" \
  > "$t/skills/a/prose.md"
rss "lint-selfcontain: $big text file" "$bin" lint-selfcontain --root "$t"
rm -rf "$t"

t=$work/pack
rm -rf "$t"
mkdir -p "$t/skills/p"
printf -- '---\nname: p\ndescription: Memory bench skill.\n---\n' > "$t/skills/p/SKILL.md"
truncate -s "$big" "$t/skills/p/data.bin"
rss "skill pack: $big file" "$bin" skill pack "$t/skills/p" -o "$t/p.zip"
rss "skill install from a directory: $big file" "$bin" skill install "$t/skills/p" --into "$t/out"
rm -rf "$t"

# Under the install bound: the skill is held in memory while it is installed.
t=$work/install
rm -rf "$t"
mkdir -p "$t/skills/p"
printf -- '---\nname: p\ndescription: Memory bench skill.\n---\n' > "$t/skills/p/SKILL.md"
head -c 200M /dev/urandom > "$t/skills/p/data.bin"
rss "skill install from a directory: 200M file" "$bin" skill install "$t/skills/p" --into "$t/out"
rm -rf "$t"

archive_rows
rm -f "$work/out" "$work/err"
