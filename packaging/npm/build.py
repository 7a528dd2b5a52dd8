#!/usr/bin/env python3
"""Builds the npm packages of agentic-skill-vendor from release binaries.

The layout is the one esbuild and biome use: a small launcher package whose `bin` is a
Node script, and one package per platform holding that platform's binary, each listed in the
launcher's `optionalDependencies` with `os` and `cpu` set, so npm installs only the one that
fits the machine.

    python3 packaging/npm/build.py --version 0.1.0 --out dist/npm \\
        --binary linux-x64=target/release/agentic-skill-vendor

writes dist/npm/agentic-skill-vendor/ (the launcher) and dist/npm/linux-x64/ (one per
--binary given); `npm pack` in each makes the tarballs to publish. Platforms without a
--binary are still listed in the launcher, so one launcher serves every platform published.
"""

import argparse
import json
import shutil
import stat
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCOPE = "@agentic-skill-vendor"
# npm's platform and architecture names, as Node reports them (process.platform, process.arch).
PLATFORMS = {
    "linux-x64": ("linux", "x64"),
    "linux-arm64": ("linux", "arm64"),
    "darwin-x64": ("darwin", "x64"),
    "darwin-arm64": ("darwin", "arm64"),
    "win32-x64": ("win32", "x64"),
}
COMMON = {
    "license": "MIT",
    "repository": {
        "type": "git",
        "url": "git+https://github.com/agentic-skill-vendor/agentic-skill-vendor.git",
    },
    "engines": {"node": ">=18"},
}


def write_json(path: Path, value: dict) -> None:
    path.write_text(json.dumps(value, indent=2) + "\n")


def launcher(out: Path, version: str) -> None:
    root = out / "agentic-skill-vendor"
    shutil.rmtree(root, ignore_errors=True)
    (root / "bin").mkdir(parents=True)
    script = root / "bin" / "agentic-skill-vendor.js"
    shutil.copyfile(HERE / "launcher" / "bin" / "agentic-skill-vendor.js", script)
    script.chmod(0o755)
    shutil.copyfile(HERE / "README.md", root / "README.md")
    shutil.copyfile(REPO / "LICENSE", root / "LICENSE")
    write_json(
        root / "package.json",
        {
            "name": "agentic-skill-vendor",
            "version": version,
            "description": "Keeps Agent Skills' shared documents in step: one canonical text, byte-identical copies, a lock CI verifies (native binary).",
            **COMMON,
            # `asv`, the short name (issue 31 §4), runs the same launcher.
            "bin": {
                "agentic-skill-vendor": "bin/agentic-skill-vendor.js",
                "asv": "bin/agentic-skill-vendor.js",
            },
            "files": ["bin/", "README.md", "LICENSE"],
            "optionalDependencies": {f"{SCOPE}/{p}": version for p in PLATFORMS},
        },
    )


def platform(out: Path, version: str, name: str, binary: Path) -> None:
    os_name, cpu = PLATFORMS[name]
    root = out / name
    shutil.rmtree(root, ignore_errors=True)
    (root / "bin").mkdir(parents=True)
    exe = "agentic-skill-vendor.exe" if os_name == "win32" else "agentic-skill-vendor"
    target = root / "bin" / exe
    shutil.copyfile(binary, target)
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    shutil.copyfile(REPO / "LICENSE", root / "LICENSE")
    (root / "README.md").write_text(
        f"The agentic-skill-vendor binary for {os_name} on {cpu}. Install the "
        "`agentic-skill-vendor` package instead: it picks this one on this platform.\n"
    )
    write_json(
        root / "package.json",
        {
            "name": f"{SCOPE}/{name}",
            "version": version,
            "description": f"The agentic-skill-vendor binary for {os_name}-{cpu}.",
            **COMMON,
            "os": [os_name],
            "cpu": [cpu],
            "files": ["bin/", "README.md", "LICENSE"],
            "preferUnplugged": True,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument(
        "--binary",
        action="append",
        default=[],
        metavar="PLATFORM=PATH",
        help=f"a platform's binary; platforms: {', '.join(PLATFORMS)}",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    launcher(args.out, args.version)
    for spec in args.binary:
        name, _, path = spec.partition("=")
        if name not in PLATFORMS or not path:
            parser.error(f"--binary {spec}: give PLATFORM=PATH with a platform of {', '.join(PLATFORMS)}")
        platform(args.out, args.version, name, Path(path))


if __name__ == "__main__":
    main()
