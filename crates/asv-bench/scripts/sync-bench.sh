#!/bin/sh
# Times `skill sync` of N skills (default 500) into three agents' directories: the first sync
# (every copy placed), a sync with nothing to change (must write nothing), and a sync after one
# skill changed. Usage: sync-bench.sh <release binary> <work dir on tmpfs> [N] [runs]
set -eu
bin=$1
work=$2
n=${3:-500}
runs=${4:-5}
rm -rf "$work"
mkdir -p "$work/skills"
i=0
while [ "$i" -lt "$n" ]; do
  d="$work/skills/skill-$i"
  mkdir -p "$d/references" "$d/scripts"
  printf -- '---\nname: skill-%s\ndescription: Generated skill %s for the sync benchmark.\n---\n# Skill %s\n\nSteps.\n' "$i" "$i" "$i" > "$d/SKILL.md"
  head -c 4096 /dev/zero | tr '\0' 'a' > "$d/references/guide.md"
  printf '#!/bin/sh\necho %s\n' "$i" > "$d/scripts/run.sh"
  chmod +x "$d/scripts/run.sh"
  i=$((i + 1))
done
printf 'targets: [claude, codex, copilot]\n' > "$work/vendor-skills.yaml"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
elapsed() { # seconds of one run of "$@"
  s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$e - $s" | bc
}

first=$(elapsed "$bin" skill sync --root "$work")
files=$(find "$work/.claude" "$work/.agents" "$work/.github" -type f | wc -l)
echo "first sync: ${first} s ($files files placed)"

stamp=$(find "$work" -newer "$work/vendor-skills.yaml" -printf '%p %T@\n' | sort | md5sum)
times=$(for r in $(seq "$runs"); do elapsed "$bin" skill sync --root "$work"; done | median)
after=$(find "$work" -newer "$work/vendor-skills.yaml" -printf '%p %T@\n' | sort | md5sum)
[ "$stamp" = "$after" ] && same=yes || same=NO
echo "nothing to change: ${times} s (median of $runs; nothing written: $same)"

times=$(for r in $(seq "$runs"); do
  printf 'edit %s\n' "$r" >> "$work/skills/skill-7/SKILL.md"
  elapsed "$bin" skill sync --root "$work"
done | median)
echo "one skill changed: ${times} s (median of $runs)"
