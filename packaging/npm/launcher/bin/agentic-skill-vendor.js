#!/usr/bin/env node
// Runs the native agentic-skill-vendor binary of this platform. npm installs only the one
// optional dependency whose `os` and `cpu` match the machine; this file finds it and hands
// over the arguments, the standard streams and the exit status unchanged.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const platforms = {
  "linux-x64": "@agentic-skill-vendor/linux-x64",
  "linux-arm64": "@agentic-skill-vendor/linux-arm64",
  "darwin-x64": "@agentic-skill-vendor/darwin-x64",
  "darwin-arm64": "@agentic-skill-vendor/darwin-arm64",
  "win32-x64": "@agentic-skill-vendor/win32-x64",
};

function binaryPath() {
  // An explicit binary wins: for a platform without a package, or a build of one's own.
  if (process.env.AGENTIC_SKILL_VENDOR_BINARY) {
    return process.env.AGENTIC_SKILL_VENDOR_BINARY;
  }
  const key = `${process.platform}-${process.arch}`;
  const pkg = platforms[key];
  if (!pkg) {
    fail(
      `no prebuilt binary for ${key}; install one with \`cargo install agentic-skill-vendor\` and set AGENTIC_SKILL_VENDOR_BINARY to its path`,
    );
  }
  const exe = process.platform === "win32" ? "agentic-skill-vendor.exe" : "agentic-skill-vendor";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(
      `the package ${pkg} is not installed; reinstall without --omit=optional (or --no-optional), which skips the binary`,
    );
  }
}

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

const result = spawnSync(binaryPath(), process.argv.slice(2), {
  stdio: "inherit",
  windowsHide: true,
});
if (result.error) {
  fail(`could not run ${path.basename(process.argv[1])}: ${result.error.message}`);
}
if (result.signal) {
  // Die of the same signal, so a caller sees what the binary saw.
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 2);
