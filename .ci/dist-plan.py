#!/usr/bin/env python3
"""Checks the release plan: what `dist plan` says a release would publish, and where
`cargo binstall` would look for it.

Runs `dist plan` (the `cargo-dist` crate's binary) and fails unless it succeeds (it also fails
when .github/workflows/release.yml is not what dist would generate from dist-workspace.toml)
and plans, for every target below, the archive with the binary and its `.sha256`, plus both
installers and `sha256.sum`. Then renders `[package.metadata.binstall]` of the binary crate for
every target and fails unless the URL is the one dist would upload that archive to, and the
path inside it is where dist puts the binary (tar archives hold one `<name>-<target>/`
folder, zip archives hold the files at their root).

`dist` is taken from $DIST, else from PATH. Without one, it says so and exits 0, unless
`--fetch` is given: then the `dist` binary is taken from its PyPI wheel, pinned by hash in
.ci/dist-requirements.txt (seconds, where compiling cargo-dist takes many minutes), and any
failure to get it fails the check.
"""
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = "agentic-skill-vendor"
# Every binary of the package, each in every archive: the program and its short name.
BINS = [BIN, "asv"]
TARGETS = [
    "aarch64-apple-darwin",
    "aarch64-unknown-linux-gnu",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "x86_64-pc-windows-msvc",
    "x86_64-unknown-linux-gnu",
    "x86_64-unknown-linux-musl",
]


def fail(message):
    print(f"dist-plan: {message}", file=sys.stderr)
    sys.exit(1)


def fetch_dist(scratch):
    """The `dist` binary of the wheel .ci/dist-requirements.txt pins (x86_64 Linux only)."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        print("dist-plan: skipped: the pinned dist wheel is for x86_64 Linux; put dist on PATH")
        sys.exit(0)
    wheels = os.path.join(scratch, "wheels")
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--require-hashes", "-r", os.path.join(ROOT, ".ci", "dist-requirements.txt"),
               "-d", wheels]
    if subprocess.run(command).returncode != 0:
        fail("could not download the dist wheel .ci/dist-requirements.txt pins")
    [wheel] = os.listdir(wheels)
    with zipfile.ZipFile(os.path.join(wheels, wheel)) as archive:
        [member] = [n for n in archive.namelist() if n.endswith(".data/scripts/dist")]
        path = os.path.join(scratch, "dist")
        with archive.open(member) as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
    os.chmod(path, 0o755)
    return path


def render(template, values):
    def one(match):
        key = match.group(1)
        if key not in values:
            fail(f"binstall template {template!r} uses {{ {key} }}, which this check does not know")
        return values[key]

    return re.sub(r"\{\s*([a-z-]+)\s*\}", one, template)


def main():
    fetch = "--fetch" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as scratch:
        dist = os.environ.get("DIST") or shutil.which("dist")
        if not dist:
            if not fetch:
                print("dist-plan: skipped: no dist on PATH (cargo install cargo-dist --locked, "
                      "or run with --fetch)")
                return
            dist = fetch_dist(scratch)
        check(dist)


def check(dist):
    with open(os.path.join(ROOT, "dist-workspace.toml"), "rb") as f:
        wanted = tomllib.load(f)["dist"]["cargo-dist-version"]
    version = subprocess.run([dist, "--version"], capture_output=True, text=True, check=True)
    if version.stdout.split()[-1] != wanted:
        fail(f"{version.stdout.strip()} runs, dist-workspace.toml asks for {wanted}; "
             "use that version, or change cargo-dist-version and run `dist generate`")

    run = subprocess.run([dist, "plan", "--output-format=json", "--no-local-paths"],
                         cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        fail("`dist plan` failed")
    plan = json.loads(run.stdout)
    artifacts = plan["artifacts"]
    [release] = [r for r in plan["releases"] if r["app_name"] == BIN]
    hosting = release["hosting"]["github"]
    base = hosting["artifact_base_url"] + hosting["artifact_download_path"]

    expected = {f"{BIN}-installer.sh", f"{BIN}-installer.ps1", "sha256.sum"}
    with open(os.path.join(ROOT, "crates", BIN, "Cargo.toml"), "rb") as f:
        package = tomllib.load(f)["package"]
    binstall = package["metadata"]["binstall"]
    with open(os.path.join(ROOT, "Cargo.toml"), "rb") as f:
        workspace = tomllib.load(f)["workspace"]["package"]
    for target in TARGETS:
        windows = "windows" in target
        suffix = ".zip" if windows else ".tar.xz"
        archive = f"{BIN}-{target}{suffix}"
        expected |= {archive, archive + ".sha256"}
        planned = artifacts.get(archive)
        if planned is None:
            fail(f"dist plans no {archive}")
        executables = [a["path"] for a in planned.get("assets", []) if a["kind"] == "executable"]
        for name in BINS:
            if name + (".exe" if windows else "") not in executables:
                fail(f"{archive} holds no {name}")

        settings = dict(binstall)
        settings.update(binstall.get("overrides", {}).get(target, {}))
        values = {
            "repo": workspace["repository"],
            "name": package["name"],
            "version": workspace["version"],
            "target": target,
            "archive-suffix": {"txz": ".tar.xz", "zip": ".zip"}[settings["pkg-fmt"]],
            "archive-format": settings["pkg-fmt"],
            "binary-ext": ".exe" if windows else "",
        }
        url = render(settings["pkg-url"], values)
        if url != f"{base}/{archive}":
            fail(f"binstall looks for {url}; dist uploads {archive} to {base}/{archive}")
        for name in BINS:
            exe = name + (".exe" if windows else "")
            inside = render(settings["bin-dir"], dict(values, bin=name))
            layout = exe if windows else f"{BIN}-{target}/{exe}"
            if inside != layout:
                fail(f"binstall looks for {inside} inside {archive}; dist puts {name} at {layout}")

    missing = sorted(expected - set(artifacts))
    if missing:
        fail("dist plans none of " + ", ".join(missing))
    print(f"dist-plan: {version.stdout.strip()}: {len(TARGETS)} targets, "
          f"{len(expected)} artifacts as expected, binstall finds each archive")


main()
