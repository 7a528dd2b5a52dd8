#!/usr/bin/env bash
# The install step of action.yml: puts agentic-skill-vendor on the job's PATH. A released
# archive for this runner is downloaded and checked against its published sha256 when a
# version is asked for; otherwise (or when there is none) the action's own source is built.
#
# Reads what a runner sets: GITHUB_ACTION_PATH, GITHUB_PATH, RUNNER_OS, RUNNER_ARCH,
# RUNNER_TEMP; and ASV_VERSION (the `version` input). ASV_RELEASES overrides where releases
# are downloaded from (a mirror).
set -euo pipefail

releases="${ASV_RELEASES:-https://github.com/agentic-skill-vendor/agentic-skill-vendor/releases/download}"
dest="${RUNNER_TEMP:?}/agentic-skill-vendor"
mkdir -p "$dest/bin"

target=""
case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
  Linux/X64) target=x86_64-unknown-linux-gnu ;;
  Linux/ARM64) target=aarch64-unknown-linux-gnu ;;
  macOS/X64) target=x86_64-apple-darwin ;;
  macOS/ARM64) target=aarch64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
esac

# Downloads $1 to $2: curl where the runner has it (every hosted runner does), else Python.
fetch() {
  if command -v curl > /dev/null; then
    curl --fail --silent --show-error --location --retry 3 -o "$2" "$1"
  else
    python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' "$1" "$2" 2> /dev/null
  fi
}

from_release() {
  local version="$1" archive ext
  [ -n "$version" ] && [ -n "$target" ] || return 1
  ext=tar.xz
  [ "${RUNNER_OS}" = Windows ] && ext=zip
  archive="agentic-skill-vendor-$target.$ext"
  local url="$releases/v${version#v}/$archive"
  echo "downloading $url"
  fetch "$url" "$dest/$archive" || return 1
  fetch "$url.sha256" "$dest/$archive.sha256" || return 1
  # The checksum file names the archive; check it from the directory holding both.
  (cd "$dest" && sha256sum --check --status "$archive.sha256") || {
    echo "::error title=agentic-skill-vendor::$archive does not match its published sha256"
    exit 2
  }
  if [ "$ext" = zip ]; then
    unzip -q -o "$dest/$archive" -d "$dest/unpacked"
  else
    mkdir -p "$dest/unpacked"
    tar -xJf "$dest/$archive" -C "$dest/unpacked"
  fi
  find "$dest/unpacked" -type f \( -name agentic-skill-vendor -o -name agentic-skill-vendor.exe \) \
    -exec cp {} "$dest/bin/" \;
  [ -x "$dest/bin/agentic-skill-vendor" ] || [ -f "$dest/bin/agentic-skill-vendor.exe" ]
}

if from_release "${ASV_VERSION:-}"; then
  echo "installed the released agentic-skill-vendor ${ASV_VERSION#v} for $target"
else
  [ -n "${ASV_VERSION:-}" ] && echo "no released archive of ${ASV_VERSION} for ${target:-this runner}; building the action's source"
  cargo install --locked --quiet --root "$dest" --path "${GITHUB_ACTION_PATH:?}/crates/agentic-skill-vendor"
fi
echo "$dest/bin" >> "${GITHUB_PATH:?}"
"$dest/bin/agentic-skill-vendor" --version
