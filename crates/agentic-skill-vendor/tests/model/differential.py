#!/usr/bin/env python3
"""Differential test: the real `agentic-skill-vendor` binary against a model of its documentation.

    python3 differential.py --bin PATH [--seed N] [--count K] [--case I] [--keep DIR]
                            [--no-malformed] [--no-skill-refusals] [--no-table] [--table-special-ids]

Each case generates a random repository of document contracts (no `files` rows, no remote
sources; sometimes a `vendor-manifest.yaml` of `source: local` rows with or without `path`),
then runs, in this order,

    gen, verify, <one or two random edits>, verify, gen, verify

with `--root <dir>`, and compares for every step the exit code, every stdout line, the first
stderr line of a refusal (exactly where the docs fix the wording, else that it names the file),
and the whole tree (every file's bytes) against what the model below expects. A refusal or a
`closure` stop leaves the tree byte for byte as it was and `verify` never writes; a file whose
bytes do not change is not rewritten (same inode and mtime), and a copy keeps its mode.

The model is written from the documentation only, never from the Rust sources:

  * /work/shared/spec/FORMATS.md, the compatibility contract ("spec" below);
  * docs/FORMATS.md, this implementation's choices where the spec is silent ("ours" below);
  * the README's commands table, and the TypeScript tool's README where ours is silent;
  * issue 11, the rule for frontmatter fences of contract texts (see `canonical_body`).

Where the docs leave a choice open, the model says so in a comment starting `AMBIGUITY:`, and
where they allow several outcomes (which of two refusals comes first) it accepts any of them.

SKILL.md files are not parsed here: the generator writes each one from a known meaning (the ids
it declares, "declares nothing", or "must be refused") and records that meaning by the file's
bytes, so the model looks the meaning up instead of carrying a YAML parser of its own.

Deterministic: case I of seed N always builds the same repository and edits (the RNG of a case is
seeded from N and I only), so `--seed N --case I` replays one case. Python 3.8 or later, standard
library only.

On a mismatch it prints the seed, the case, the step, what was expected and what the binary did,
keeps the failing repository under --keep DIR when given (initial tree, tree before the step,
tree after it, report), and exits 1.
"""

import argparse
import hashlib
import json
import os
import random
import re
from decimal import Decimal
import shutil
import stat
import subprocess
import sys
import tempfile

# --------------------------------------------------------------------------------------------
# Characters
# --------------------------------------------------------------------------------------------

# Default_Ignorable_Code_Point, from the Unicode Character Database's DerivedCoreProperties.txt
# (`grep '; Default_Ignorable_Code_Point ' DerivedCoreProperties.txt`; the list has been the same
# from Unicode 9.0 through 16.0). Inclusive ranges.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),  # Cf       SOFT HYPHEN
    (0x034F, 0x034F),  # Mn       COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # Cf       ARABIC LETTER MARK
    (0x115F, 0x1160),  # Lo   [2] HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # Mn   [2] KHMER VOWEL INHERENT AQ..KHMER VOWEL INHERENT AA
    (0x180B, 0x180D),  # Mn   [3] MONGOLIAN FREE VARIATION SELECTOR ONE..THREE
    (0x180E, 0x180E),  # Cf       MONGOLIAN VOWEL SEPARATOR
    (0x180F, 0x180F),  # Mn       MONGOLIAN FREE VARIATION SELECTOR FOUR
    (0x200B, 0x200F),  # Cf   [5] ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),  # Cf   [5] LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x2064),  # Cf   [5] WORD JOINER..INVISIBLE PLUS
    (0x2065, 0x2065),  # Cn       <reserved-2065>
    (0x2066, 0x206F),  # Cf  [10] LEFT-TO-RIGHT ISOLATE..NOMINAL DIGIT SHAPES
    (0x3164, 0x3164),  # Lo       HANGUL FILLER
    (0xFE00, 0xFE0F),  # Mn  [16] VARIATION SELECTOR-1..VARIATION SELECTOR-16
    (0xFEFF, 0xFEFF),  # Cf       ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # Lo       HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # Cn   [9] <reserved-FFF0>..<reserved-FFF8>
    (0x1BCA0, 0x1BCA3),  # Cf   [4] SHORTHAND FORMAT LETTER OVERLAP..SHORTHAND FORMAT UP STEP
    (0x1D173, 0x1D17A),  # Cf   [8] MUSICAL SYMBOL BEGIN BEAM..MUSICAL SYMBOL END PHRASE
    (0xE0000, 0xE0000),  # Cn       <reserved-E0000>
    (0xE0001, 0xE0001),  # Cf       LANGUAGE TAG
    (0xE0002, 0xE001F),  # Cn  [30] <reserved-E0002>..<reserved-E001F>
    (0xE0020, 0xE007F),  # Cf  [96] TAG SPACE..CANCEL TAG
    (0xE0080, 0xE00FF),  # Cn [128] <reserved-E0080>..<reserved-E00FF>
    (0xE0100, 0xE01EF),  # Mn [240] VARIATION SELECTOR-17..VARIATION SELECTOR-256
    (0xE01F0, 0xE0FFF),  # Cn [3600] <reserved-E01F0>..<reserved-E0FFF>
)

BRAILLE_BLANK = 0x2800  # removed too, by the rule (not Default_Ignorable, but draws nothing)

# What `String.prototype.trim` strips (ECMAScript: WhiteSpace and LineTerminator). WhiteSpace is
# TAB, VT, FF, ZWNBSP (U+FEFF) and every Zs character; LineTerminator is LF, CR, LS, PS.
# Python's str.strip() differs (it strips U+001C..U+001F and U+0085, which JavaScript keeps).
JS_WHITESPACE = frozenset(
    [0x0009, 0x000B, 0x000C, 0xFEFF]
    + [0x0020, 0x00A0, 0x1680] + list(range(0x2000, 0x200B)) + [0x202F, 0x205F, 0x3000]  # Zs
    + [0x000A, 0x000D, 0x2028, 0x2029]  # LineTerminator
)


def is_default_ignorable(cp):
    for lo, hi in DEFAULT_IGNORABLE:
        if lo <= cp <= hi:
            return True
    return False


def js_trim(s):
    start, end = 0, len(s)
    while start < end and ord(s[start]) in JS_WHITESPACE:
        start += 1
    while end > start and ord(s[end - 1]) in JS_WHITESPACE:
        end -= 1
    return s[start:end]


def visible(line):
    """The line as it reads: Default_Ignorable characters and U+2800 removed, then JS-trimmed."""
    kept = "".join(ch for ch in line if not is_default_ignorable(ord(ch)) and ord(ch) != BRAILLE_BLANK)
    return js_trim(kept)


def reads_as_fence(line):
    return visible(line) == "---"


def blank_to_the_eye(line):
    return visible(line) == ""


def js_string(s):
    """`JSON.stringify` of a string (no lone surrogates can occur in decoded UTF-8)."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif c < 0x20:
            out.append("\\u%04x" % c)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def shown(name):
    """spec/ours: a name or path holding a control character (C0, DEL, C1) is printed as the JSON
    string JSON.stringify spells; the binary quotes the whole path it prints (see the report)."""
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in name):
        return js_string(name)
    return name


def u16(s):
    """Sort key: UTF-16 code unit order (JavaScript string order)."""
    return s.encode("utf-16-be")


# --------------------------------------------------------------------------------------------
# Canonical body, digests, copies, the lock
# --------------------------------------------------------------------------------------------


class Refusal(Exception):
    """A refusal the model expects: exit 2, `error: <message>` on stderr, nothing written.

    `message` None means the wording is not fixed by the docs; then `names` must appear in the
    first stderr line.
    """

    def __init__(self, message=None, names=None):
        super().__init__(message or names)
        self.message = message
        self.names = names


def canonical_body(path, data):
    """spec "Canonical body", with issue 11's rule for fences that only look like `---`."""
    try:
        text = data.decode("utf-8")  # strict: Python refuses surrogates and overlongs too
    except UnicodeDecodeError:
        raise Refusal(names=path)  # spec: refusal, exit 2; ours: "naming the file"
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0] != "---":
        # No frontmatter, unless the first line visible to the eye reads as `---` (issue 11).
        for i, line in enumerate(re.split("[\r\n]", text)):
            if blank_to_the_eye(line):
                continue
            if reads_as_fence(line):
                if i == 0:
                    raise Refusal(
                        f"{path}: the line opening the frontmatter is not exactly '---': {js_string(line)}"
                    )
                raise Refusal(
                    f"{path}: frontmatter has to open on the first line, and this document reaches "
                    "'---' only below a blank one"
                )
            break
        body = text
    else:
        close = None
        for j in range(1, len(lines)):
            if lines[j] == "---":
                close = j
                break
            if reads_as_fence(lines[j]):
                # AMBIGUITY: with no exact closing line at all, the issue's words ("a line before
                # it") leave open whether a look-alike is this refusal or "missing"; the model
                # scans in order and refuses the first line reading as `---`.
                raise Refusal(f"{path}: the line closing the frontmatter is not exactly '---': {js_string(lines[j])}")
        if close is None:
            raise Refusal(f"{path}: frontmatter opens with '---' but the closing '---' line is missing")
        rest = lines[close + 1:]
        k = 0
        while k < len(rest) and rest[k] == "":
            k += 1
        body = "\n".join(rest[k:])
    return body.rstrip("\n") + "\n"


def sha256_digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def copy_header(cid, digest):
    return (
        "<!-- DO NOT EDIT. Generated by agentic-skill-vendor. -->\n"
        f"<!-- contract: {cid} -->\n"
        f"<!-- source-digest: {digest} -->\n"
        "\n"
    ).encode("utf-8")


def framed_digest(files):
    """spec "framed digest": files sorted by path in UTF-16 order, `<path> NUL <len> NUL <bytes>`."""
    if not files:
        return None
    h = hashlib.sha256()
    for rel in sorted(files, key=u16):
        data = files[rel]
        h.update(rel.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0" + data)
    return "sha256:" + h.hexdigest()


ARRAY_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")


def js_key_order(keys):
    """JSON.stringify's key order for keys inserted in UTF-16 order: array indices first."""
    idx = [k for k in keys if ARRAY_INDEX.match(k) and int(k) <= 2**32 - 2]
    rest = [k for k in keys if k not in idx]
    return sorted(idx, key=int) + sorted(rest, key=u16)


def render_json(value, indent=""):
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = indent + "  "
        items = [inner + js_string(k) + ": " + render_json(value[k], inner) for k in js_key_order(list(value))]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + render_json(v, inner) for v in value) + "\n" + indent + "]"
    if isinstance(value, str):
        return js_string(value)
    raise TypeError(value)


def render_json_any(value):
    """Like render_json, for hand-made locks holding numbers, null or lists at any place."""
    if isinstance(value, (int, float)) or value is None:
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ",".join(render_json_any(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(js_string(k) + ":" + render_json_any(v) for k, v in value.items()) + "}"
    return js_string(value)


def render_lock(dependencies, resolutions):
    """spec "vendor-lock.json": 2-space JSON, keys sorted, one trailing LF; no sources/placements here."""
    return (render_json({"dependencies": dependencies, "resolutions": resolutions}) + "\n").encode("utf-8")


# --------------------------------------------------------------------------------------------
# .gitignore (conformance trees) — the simple patterns the generator writes
# --------------------------------------------------------------------------------------------


def glob_regex(pattern):
    out = []
    for ch in pattern:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return re.compile("^" + "".join(out) + "$")


def gitignore_rule(line):
    """(negated, dir_only, anchored, regex) of one .gitignore line, or None for a comment/blank."""
    p = line.rstrip("\r").rstrip(" ")
    if not p or p.startswith("#"):
        return None
    negated = p.startswith("!")
    if negated:
        p = p[1:]
    dir_only = p.endswith("/")
    if dir_only:
        p = p[:-1]
    anchored = "/" in p
    return negated, dir_only, anchored, glob_regex(p.lstrip("/"))


def gitignore_verdict(data, rel, is_dir):
    """The last line of one .gitignore that matches `rel`: True excluded, False re-included,
    None no line matches."""
    verdict = None
    for line in data.decode("utf-8").split("\n"):
        rule = gitignore_rule(line)
        if rule is None:
            continue
        negated, dir_only, anchored, regex = rule
        if dir_only and not is_dir:
            continue
        if regex.match(rel if anchored else rel.rsplit("/", 1)[-1]):
            verdict = not negated
    return verdict


def excluded_by_gitignore(tree, path, is_dir):
    """ours: the .gitignore files from the root down to the path's directory; a deeper file's
    rules win, the last matching line of a file wins, and nothing below an excluded directory is
    looked at, so it cannot be re-included."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        if excluded_by_gitignore(tree, "/".join(parts[:i]), True):
            return True
    for depth in range(len(parts) - 1, -1, -1):
        gdir = "/".join(parts[:depth])
        gi = tree.get((gdir + "/" if gdir else "") + ".gitignore")
        if gi is None:
            continue
        verdict = gitignore_verdict(gi, "/".join(parts[depth:]), is_dir)
        if verdict is not None:
            return verdict
    return False


# --------------------------------------------------------------------------------------------
# The model of `gen` and `verify`
# --------------------------------------------------------------------------------------------

# Meaning of every SKILL.md the generator wrote, by its bytes:
#   ("ids", [ids])   declares these, in this order
#   ("none",)        declares nothing
#   ("refuse",)      must be refused (exit 2, stderr names the file)
SKILL_MEANING = {}


class Expect:
    def __init__(self, code, stdout=None, tree=None, error=None, error_names=None, why=""):
        self.code = code
        self.stdout = stdout  # list of lines
        self.tree = tree
        self.error = error  # exact first stderr line
        self.error_names = error_names  # or: the first stderr line must contain one of these
        self.why = why

    def describe(self):
        out = [f"exit {self.code}" + (f"  ({self.why})" if self.why else "")]
        if self.error is not None:
            out.append("stderr: " + self.error)
        if self.error_names is not None:
            out.append("stderr naming one of: " + ", ".join(self.error_names))
        if self.stdout:
            out += ["stdout: " + line for line in self.stdout]
        elif self.stdout is not None:
            out.append("stdout: (nothing)")
        return "\n".join(out)


def refusal_expect(tree, r, why="refusal"):
    if r.message is not None:
        return Expect(2, [], tree, error="error: " + r.message, why=why)
    return Expect(2, [], tree, error_names=[r.names], why=why)


def skills_of(tree):
    """ours: every directory directly under skills/ is a skill; files there are not."""
    return sorted({p.split("/")[1] for p in tree if p.startswith("skills/") and p.count("/") >= 2}, key=u16)


def vendor_entries(tree, skill):
    prefix = f"skills/{skill}/references/vendor/"
    return sorted({p[len(prefix):].split("/")[0] for p in tree if p.startswith(prefix)}, key=u16)


def read_state(tree):
    """Skills, their declarations, who declares what, the refusals met reading them, the lock.

    `lock` is None (no file), a Refusal, or the recorded resolutions."""
    skills = skills_of(tree)
    decls = {}
    refused = []
    for s in skills:
        data = tree.get(f"skills/{s}/SKILL.md")
        if data is None:
            continue  # ours: a skill without SKILL.md declares nothing
        meaning = SKILL_MEANING[data]
        if meaning[0] == "refuse":
            refused.append(shown(f"skills/{s}/SKILL.md"))
        elif meaning[0] == "ids":
            decls[s] = list(meaning[1])
    declared = {}
    for s in skills:
        for cid in decls.get(s, []):
            declared.setdefault(cid, []).append(s)
    lock = None
    if "vendor-lock.json" in tree:
        try:
            lock = parse_lock(tree["vendor-lock.json"])
        except Refusal as r:
            lock = r
        # ours: files directly under skills/ are ignored unless the lock records them as a skill,
        # which is refused (wording ours).
        if not isinstance(lock, Refusal):
            deps = json.loads(strip_bom(tree["vendor-lock.json"]).decode("utf-8"))["dependencies"]
            for name in sorted(deps, key=u16):
                if f"skills/{name}" in tree:
                    refused.append(shown(f"skills/{name}"))
    return skills, decls, declared, refused, lock


ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")


def is_id(s):
    """spec: ids match ^[a-z0-9][a-z0-9._-]*$, at most 64 characters, with no `..`."""
    return isinstance(s, str) and bool(ID_RE.match(s)) and len(s) <= 64 and ".." not in s


def parse_lock(data):
    """ours, "The lock / Reading": the recorded resolutions, or a Refusal naming the lock.

    Unknown keys are dropped (inside a resolution too: the model keeps digest and conformance);
    the values of `dependencies` are not judged."""
    refuse = Refusal(names="vendor-lock.json")
    try:
        value = json.loads(strip_bom(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise refuse
    if not isinstance(value, dict):
        raise refuse
    deps, res = value.get("dependencies"), value.get("resolutions")
    if not isinstance(deps, dict) or not isinstance(res, dict):
        raise refuse
    out = {}
    for cid, r in res.items():
        if not is_id(cid) or not isinstance(r, dict):
            raise refuse
        if not isinstance(r.get("digest"), str) or not DIGEST_RE.match(r["digest"]):
            raise refuse
        kept = {"digest": r["digest"]}
        if "conformance" in r:
            if not isinstance(r["conformance"], str) or not DIGEST_RE.match(r["conformance"]):
                raise refuse
            kept["conformance"] = r["conformance"]
        if "kind" in r and r["kind"] != "raw":
            raise refuse
        out[cid] = kept
    return out


def strip_bom(data):
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def copy_is_directory(tree, decls):
    """Paths `skills/<s>/references/vendor/<id>.md` of declared ids that hold a directory."""
    out = []
    for s in sorted(decls, key=u16):
        for cid in sorted(decls[s], key=u16):
            path = f"skills/{s}/references/vendor/{cid}.md"
            if any(p.startswith(path + "/") for p in tree):
                out.append((cid, path))
    return out


# ---- vendor-manifest.yaml: the simple shape the generator writes (local rows, `path` or not)

MANIFEST = "vendor-manifest.yaml"
ROW_RE = re.compile(r"^  ([^ #{][^:]*):(.*)$")
PROP_RE = re.compile(r"^    ([A-Za-z_-]+):[ \t]*(.*?)(?:[ \t]+#.*)?$")
FLOW_ROW_RE = re.compile(r"([^\s{},:]+):\s*\{([^}]*)\}")


def flow_props(inner):
    props = {}
    for part in inner.split(","):
        if ":" in part:
            k, v = part.split(":", 1)
            props[k.strip()] = v.strip()
    return props


def path_is_allowed(path):
    """ours: relative, `/`-separated, no empty, `.` or `..` segments, not into skills/ or
    .agentic-skill-vendor/."""
    segs = path.split("/")
    return (not path.startswith("/") and "\\" not in path and all(seg not in ("", ".", "..") for seg in segs)
            and segs[0] not in ("skills", ".agentic-skill-vendor"))


class Table:
    """vendor-manifest.yaml as lines, with its `contracts` rows: id -> {path, flow, start, end}."""

    def __init__(self, data):
        text = data.decode("utf-8")
        self.eol = "\r\n" if "\r\n" in text else "\n"
        self.lines = text.replace("\r\n", "\n").split("\n")
        if self.lines[-1] == "":
            self.lines.pop()
        self.parse()

    def parse(self):
        self.header, self.flow_block, self.rows = None, False, {}
        for i, line in enumerate(self.lines):
            if line == "contracts:" or line.startswith("contracts: {"):
                self.header, self.flow_block = i, line != "contracts:"
                break
        if self.header is None:
            return
        if self.flow_block:
            for m in FLOW_ROW_RE.finditer(self.lines[self.header][len("contracts: {"):]):
                p = flow_props(m.group(2))
                self.rows[unquote_key(m.group(1))] = {"path": p.get("path"), "flow": True, "quoted": is_quoted(m.group(1)),
                                                      "start": None, "end": None}
            return
        end = self.block_end()
        i = self.header + 1
        while i < end:
            m = ROW_RE.match(self.lines[i])
            if not m:
                i += 1
                continue
            key, rest = m.group(1).strip(), m.group(2).strip()
            cid = unquote_key(key)
            if rest.startswith("{"):
                p = flow_props(rest.strip("{}"))
                self.rows[cid] = {"path": p.get("path"), "flow": True, "quoted": is_quoted(key), "start": i, "end": i + 1}
                i += 1
                continue
            j = i + 1
            props = {}
            while j < end and self.lines[j].startswith("   "):  # the row's indented lines
                pm = PROP_RE.match(self.lines[j])
                if pm and not self.lines[j].lstrip().startswith("#"):
                    props[pm.group(1)] = pm.group(2)
                j += 1
            self.rows[cid] = {"path": props.get("path"), "flow": False, "quoted": is_quoted(key), "start": i, "end": j}
            i = j

    def block_end(self):
        """The block runs to the next line at column 0 that is neither blank nor a comment."""
        j = self.header + 1
        while j < len(self.lines) and (self.lines[j] == "" or self.lines[j][0] in " #"):
            j += 1
        return j

    def bad_paths(self):
        return [cid for cid, row in self.rows.items() if row["path"] is not None and not path_is_allowed(row["path"])]

    def remove(self, ids):
        for cid in sorted(ids, key=lambda c: -self.rows[c]["start"]):
            del self.lines[self.rows[cid]["start"]:self.rows[cid]["end"]]
            self.parse()

    def add(self, ids):
        """ours: a new row goes after the last non-comment line of the block, or a new
        `contracts:` block is appended after a blank line."""
        if not ids:
            return
        new = []
        for cid in ids:
            new += [f"  {table_key(cid)}:", "    source: local"]
        if self.header is None:
            # AMBIGUITY: for an empty file the binary writes the block with no blank line first.
            self.lines += ([""] if self.lines else []) + ["contracts:"] + new
        else:
            last = self.header
            for k in range(self.header + 1, self.block_end()):
                if self.lines[k].strip() and not self.lines[k].lstrip().startswith("#"):
                    last = k
            self.lines[last + 1:last + 1] = new
        self.parse()

    def render(self):
        return "".join(line + self.eol for line in self.lines).encode("utf-8")


def located(table, cid):
    """Where the canonical text of `cid` is: the row's `path`, else contracts/<id>.md."""
    if table is not None and cid in table.rows and table.rows[cid]["path"] is not None:
        return table.rows[cid]["path"]
    return f"contracts/{cid}.md"


def conformance_dir(table, cid):
    """spec: `<dir of the canonical text>/<id>/conformance/`."""
    text = located(table, cid)
    parent = text.rsplit("/", 1)[0] if "/" in text else ""
    return (parent + "/" if parent else "") + f"{cid}/conformance"


def conformance_digest(tree, table, cid):
    """spec/ours: files under the conformance directory minus .gitignore exclusions, named
    relative to the conformance directory."""
    base = conformance_dir(table, cid)
    files = {}
    for path, data in tree.items():
        if path.startswith(base + "/") and not excluded_by_gitignore(tree, path, False):
            files[path[len(base) + 1:]] = data
    return framed_digest(files)


def closure_lines(tree, table, declared):
    out = []
    for cid in sorted(declared, key=u16):
        if located(table, cid) not in tree:
            who = ", ".join(shown(s) for s in sorted(declared[cid], key=u16))
            out.append(f"closure: {cid} is declared by {who} but {located(table, cid)} does not exist")
    return out


def canonicalize_all(tree, table, ids):
    """Canonical bodies of every id in `ids` whose text exists; the refusals met on the way."""
    bodies, refusals = {}, []
    for cid in sorted(ids, key=u16):
        data = tree.get(located(table, cid))
        if data is None:
            continue
        try:
            bodies[cid] = canonical_body(located(table, cid), data)
        except Refusal as r:
            refusals.append(r)
    return bodies, refusals


def read_table(tree):
    """(Table or None, refusals): a `path` that is not allowed refuses (wording ours)."""
    if MANIFEST not in tree:
        return None, []
    table = Table(tree[MANIFEST])
    if holds_no_document(tree[MANIFEST]):
        # issue 29 §6: a table with no YAML document is refused, as the TypeScript tool does.
        return table, [Refusal(names=MANIFEST)]
    return table, [Refusal(names=MANIFEST) for _ in table.bad_paths()[:1]]


def holds_no_document(data):
    """docs/FORMATS.md: empty, blank (spaces, tabs), comments and `...` lines only."""
    text = data.decode("utf-8")
    text = text[1:] if text.startswith("\ufeff") else text

    def blank(rest):
        rest = rest.lstrip(" \t\r")
        return rest == "" or rest.startswith("#")
    return all(blank(line) or (line.startswith("...") and (line == "..." or (line[3] in " \t\r" and blank(line[3:]))))
               for line in text.split("\n"))


def model_gen(tree):
    skills, decls, declared, refused, lock = read_state(tree)
    if refused:
        return [Expect(2, [], tree, error_names=refused, why="SKILL.md refused")]
    alternatives = []
    if isinstance(lock, Refusal):
        alternatives.append(refusal_expect(tree, lock, "lock refused"))
        lock = None
    recorded = lock or {}
    table, table_refusals = read_table(tree)
    alternatives += [refusal_expect(tree, r, "table refused") for r in table_refusals]
    unmapped, mapped = [], []
    if table is not None and not table_refusals:
        # ours: rows no skill declares any more are taken out first, then each declared contract
        # found at contracts/<id>.md without a row gets one; a flow-style row or block that would
        # need editing is refused, and so is a row to take out whose key is quoted (issue 29 §6).
        unmapped = sorted((c for c in table.rows if c not in declared), key=u16)
        if any(table.rows[c]["flow"] or table.rows[c]["quoted"] for c in unmapped):
            alternatives.append(refusal_expect(tree, Refusal(names=MANIFEST), "flow or quoted row to take out"))
        else:
            table.remove(unmapped)
            mapped = sorted((c for c in declared if c not in table.rows and f"contracts/{c}.md" in tree), key=u16)
            if mapped and table.flow_block:
                alternatives.append(refusal_expect(tree, Refusal(names=MANIFEST), "flow block to add to"))
            else:
                table.add(mapped)
    unused = sorted((c for c in recorded if c not in declared and located(table, c) in tree), key=u16)
    retired = sorted((c for c in recorded if c not in declared and located(table, c) not in tree), key=u16)
    # AMBIGUITY: "unused: ... its resolution stays in the lock" could mean the recorded value is
    # kept as it is; but verify checks `stale-lock`/`conformance-mismatch` over declared *and*
    # locked ids, so only a gen that re-records an unused contract's text and conformance leaves
    # a tree verify passes. The model (and the binary) re-record them, with `adopted` lines.
    resolve = sorted(set(declared) | set(unused), key=u16)
    bodies, refusals = canonicalize_all(tree, table, resolve)
    closures = closure_lines(tree, table, declared)
    if closures:
        alternatives.append(Expect(1, closures, tree, why="closure: nothing written"))
    alternatives += [refusal_expect(tree, r, f"refusal #{i + 1} in id order") for i, r in enumerate(refusals)]
    # TS README, "Guarded tree access": a path holding another kind of entity than expected stops
    # the run (wording ours).
    alternatives += [refusal_expect(tree, Refusal(names=shown(path)), "directory at a copy")
                     for _, path in copy_is_directory(tree, decls)]
    if alternatives:
        # AMBIGUITY: the docs do not order a closure against a refused text, nor two refused
        # texts; any one of them is accepted.
        return alternatives

    new = dict(tree)
    if table is not None:
        new[MANIFEST] = table.render()
    lines_adopted = []
    resolutions = {}
    for cid in resolve:
        body = bodies[cid].encode("utf-8")
        digest = sha256_digest(body)
        conf = conformance_digest(tree, table, cid)
        res = {"digest": digest}
        if conf is not None:
            res["conformance"] = conf
        resolutions[cid] = res
        old = recorded.get(cid)
        if old is None:
            lines_adopted.append(f"adopted: {cid} {digest} (initial adoption)")
        elif old["digest"] != digest:
            lines_adopted.append(f"adopted: {cid} {old['digest']} -> {digest}")
        old_conf = old.get("conformance") if old else None
        if conf is not None and old_conf is None:
            lines_adopted.append(f"adopted: {cid} conformance {conf} (initial adoption)")
        elif conf is not None and old_conf != conf:
            lines_adopted.append(f"adopted: {cid} conformance {old_conf} -> {conf}")
        elif conf is None and old_conf is not None:
            lines_adopted.append(
                f"retired: {cid} conformance {old_conf} (no conformance tests; digest removed from the lock)"
            )
        for s in declared.get(cid, []):
            new[f"skills/{s}/references/vendor/{cid}.md"] = copy_header(cid, digest) + body
    # Copies nothing declares go (README: "removes copies nothing declares").
    for s in skills:
        keep = {f"{cid}.md" for cid in decls.get(s, [])}
        for name in vendor_entries(tree, s):
            if name not in keep:
                prefix = f"skills/{s}/references/vendor/{name}"
                for p in list(new):
                    if p == prefix or p.startswith(prefix + "/"):
                        del new[p]
    dependencies = {s: sorted(decls[s], key=u16) for s in decls}
    new["vendor-lock.json"] = render_lock(dependencies, resolutions)
    lines = [f"unmapped: {cid}" for cid in unmapped] + [f"mapped: {cid} <- local" for cid in mapped]
    lines += lines_adopted
    lines += [f"retired: {cid} (no canonical text; resolution removed from the lock)" for cid in retired]
    lines += [f"unused: {cid} (no skill declares it; its resolution stays in the lock)" for cid in unused]
    return [Expect(0, lines, new, why="gen")]


def model_verify(tree):
    skills, decls, declared, refused, lock = read_state(tree)
    if refused:
        return [Expect(2, [], tree, error_names=refused, why="SKILL.md refused")]
    alternatives = []
    if isinstance(lock, Refusal):
        alternatives.append(refusal_expect(tree, lock, "lock refused"))
        lock = None
    recorded = lock or {}
    table, table_refusals = read_table(tree)
    alternatives += [refusal_expect(tree, r, "table refused") for r in table_refusals]
    ids = set(declared) | set(recorded)
    bodies, refusals = canonicalize_all(tree, table, ids)
    alternatives += [refusal_expect(tree, r, f"refusal #{i + 1} in id order") for i, r in enumerate(refusals)]
    # verify reads a copy only to judge drift, i.e. when the lock resolves its id.
    alternatives += [refusal_expect(tree, Refusal(names=shown(path)), "directory at a copy")
                     for cid, path in copy_is_directory(tree, decls) if cid in recorded]
    if alternatives:
        return alternatives
    lines = closure_lines(tree, table, declared)
    for cid in sorted(ids, key=u16):
        if cid in declared and cid not in recorded:
            # AMBIGUITY: the docs do not say whether a declared id without canonical text (already
            # a `closure` line) is also `unresolved`; the binary says it once, as `closure`.
            if located(table, cid) not in tree:
                continue
            lines.append(f"unresolved: {cid} has no entry in vendor-lock.json; run gen to record one")
        elif cid in recorded and cid in bodies:
            now = sha256_digest(bodies[cid].encode("utf-8"))
            if now != recorded[cid]["digest"]:
                lines.append(
                    f"stale-lock: {cid} is recorded as {recorded[cid]['digest']} but {located(table, cid)} is "
                    f"{now}; run gen to record the current text"
                )
    for s in skills:
        mine = decls.get(s, [])
        for cid in sorted(mine, key=u16):
            if cid not in recorded:
                continue  # ours: drift is judged only for contracts the lock resolves
            pinned = recorded[cid]["digest"]
            path = f"skills/{s}/references/vendor/{cid}.md"
            data = tree.get(path)
            header = copy_header(cid, pinned)
            if data is None:
                lines.append(f"drift: {shown(path)} is missing")
            elif not data.startswith(header):
                lines.append(f"drift: {shown(path)} does not carry the header generated for {pinned}")
            elif sha256_digest(data[len(header):]) != pinned:
                lines.append(f"drift: {shown(path)} holds text digesting to {sha256_digest(data[len(header):])}, "
                             f"the lock pins {pinned}")
        keep = {f"{cid}.md" for cid in mine}
        for name in vendor_entries(tree, s):
            if name not in keep:
                lines.append(f"extra: {shown(f'skills/{s}/references/vendor/{name}')} answers to no declaration")
    if lock is None:
        lines.append("lock: vendor-lock.json is missing")
    else:
        dependencies = {s: sorted(decls[s], key=u16) for s in decls}
        kept = {c: recorded[c] for c in recorded if located(table, c) in tree}
        if render_lock(dependencies, kept) != strip_bom(tree["vendor-lock.json"]):  # spec: a BOM is tolerated
            lines.append("lock: vendor-lock.json differs from what the declarations and the lock render to")
    for cid in sorted(recorded, key=u16):
        if cid not in bodies:
            continue
        now = conformance_digest(tree, table, cid)
        rec = recorded[cid].get("conformance")
        if now != rec:
            lines.append(
                f"conformance-mismatch: {cid} now has {now or 'no conformance tests'}, the lock records {rec or 'none'}"
            )
    return [Expect(1 if lines else 0, lines, tree, why="verify")]


def text_path(cid):
    """The conventional place of a canonical text (the generator's default)."""
    return f"contracts/{cid}.md"


MODEL = {"gen": model_gen, "verify": model_verify}

# --------------------------------------------------------------------------------------------
# Generators
# --------------------------------------------------------------------------------------------

ID_POOL = [
    "alpha", "beta", "gamma-2", "d.e", "x_y", "zeta", "a1", "review.format",
    "0", "9", "10", "007", "1e3", "0x1f",  # YAML numbers unless quoted; "0", "9", "10" are array indices
    "yes", "on", "null", "true",  # YAML 1.2 core: yes/on are strings; null/true are not
    "build", "notes.txt", "x.tmp", "conformance",  # directory names the .gitignore patterns hit
]
YAML_SPECIAL = re.compile(
    r"^(null|Null|NULL|~|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)$"
)
SKILL_POOL = ["alpha-skill", "b", "c3", "release-notes", ".hidden", "😀-skill", "Ａ-skill", "Zed", "with space",
              "q\"uote", "back\\slash", "ünï", "tab\there", "del\x7f", "c1\x85x", "bell\x07"]

# Characters that make `---` only look like `---` (issue 11's classes and more of each kind).
LOOKALIKE_CHARS = [" ", "\t", "\u00a0", "\u200b", "\u2060", "\ufeff", "\u2800", "\u180e", "\u3000",
                   "\u00ad", "\u3164", "\U000E0020", "\u2028", "\u205f", "\u1680", "\x0b", "\x0c",
                   "\u034f", "\ufe0f", "\U0001D173", "\u200a", "\u202f", "\u115f", "\uffa0"]
# Characters that do not: JavaScript trims none of these and none is Default_Ignorable.
NEAR_MISS_LINES = ["\u0085---", "---\u0085", "\x1c---", "---\x1f", "----", "–--", "-\u2011-", "-- -", "---x",
                   "\u00b7---", "- - -", "--"]
BLANKISH = ["", " ", "\t", "\u200b", "\u3000", "\u2800", "\u00a0 ", "\ufeff", "\u3164"]
BODY_LINES = ["Hello", "World  ", "", "", "", "   ", "\t", "# Heading", "ünïcödé 😀", "a\rb", "- item", "***",
              "----", "---", "k: v", "\u00a0", "\u200b", "\u2800x", "end\r", "<!-- c -->", "-- -", "\u2003",
              "tail", "Ａ", "\x0c", "--- ", "\u200b---"]
FM_LINES = ['version: "1"', "title: x", "k: ---", "tags: [a, b]", "", "  ", "# comment", "----",
            ": : bad [", "x: \u200b---", "- -- ", "name: \"q\""]


# One of each shape the brief and issue 11 name, so every class is met whatever the seed.
FIXED_TEXTS = [
    # look-alike opening lines, one per character class
    " ---\nk: v\n---\nBody\n", "--- \nk: v\n---\nBody\n", "\t---\nk: v\n---\nBody\n", "---\t\nBody\n",
    "\u00a0---\nk: v\n---\nBody\n", "-\u200b--\nk: v\n---\nBody\n", "--\u2060-\nk: v\n---\nBody\n",
    "-\ufeff--\nk: v\n---\nBody\n", "\u2800---\nk: v\n---\nBody\n", "---\u180e\nk: v\n---\nBody\n",
    "\u3000---\nk: v\n---\nBody\n", "\ufeff\ufeff---\nk: v\n---\nBody\n", "\u2028---\nBody\n",
    "\x0b---\nBody\n", "--- \r\nk: v\r\n---\r\nBody\r\n", "\U000e0020---\nBody\n",
    # `---` below blank lines
    "\n---\nk: v\n---\nBody\n", "  \n---\nk: v\n---\nBody\n", "\r---\nk: v\n---\nBody\n",
    "\u200b\n\u3000\n---\nBody\n", "\r\n\r\n---\r\nk\r\n---\r\n", "\n \u2800 \n --- \nBody\n",
    # unclosed, closing look-alikes, `---\r` as line 1
    "---\nk: v\nBody\n", "---", "---\n", "---\nk: v\n--- \n---\nBody\n", "---\nk: v\n-\u200b--\nBody\n",
    "---\n\u00a0---\n---\n", "---\rk: v\r---\rBody\r", "---\r", "---\r\rBody\n", "---\nk\r\n---\r",
    # no frontmatter although something looks near it
    "\u0085---\nk: v\n---\nBody\n", "\x1c---\nBody\n", "----\nBody\n---\n", "# T\n\n---\n\nmore\n",
    "Title\r---\rmore\r", "\n\nBody\n---\n", "- - -\n",
    # valid frontmatter
    "---\nk: v\n---\nBody\n\n---\n\nMore\n", '---\r\nversion: "1"\r\n---\r\n\r\nHello  \r\nWorld\r\n\r\n\r\n',
    "\ufeff---\nk: v\n---\nBody\n", "---\nk: v\n---\n\n\n\nBody\n", "---\nk: v\n---\n \nBody\n",
    "---\nk: v\n---\n\t\n\nBody\n\n\n", "---\nk: v\n---\n", "---\n---\n", "---\nk: v\n---",
    "---\nk: v\n---\nBody\rstill line one\r\n", "---\n: : not yaml [\n---\nBody\n", "---\nk: ---\n---\nB\n",
    "---\nk\n---\n\u200b\nBody\n", "", "\n\n\n", "X", "a\rb\n", "\ufeff",
]


def lookalike(rng):
    base = "---"
    for _ in range(rng.choice([1, 1, 1, 2])):
        ch = rng.choice(LOOKALIKE_CHARS)
        where = rng.choice(["start", "end", "middle", "middle"])
        if where == "middle" and not (is_default_ignorable(ord(ch)) or ord(ch) == BRAILLE_BLANK):
            where = "end"  # whitespace inside `---` is visible: `-- -` is no look-alike
        if where == "start":
            base = ch + base
        elif where == "end":
            base = base + ch
        else:
            i = rng.randint(1, len(base) - 1)
            base = base[:i] + ch + base[i:]
    assert reads_as_fence(base) and base != "---", repr(base)
    return base


def body_lines(rng, n=None):
    n = rng.randint(0, 5) if n is None else n
    return [rng.choice(BODY_LINES) for _ in range(n)]


def finish_text(rng, text):
    """Line endings, BOM, trailing newlines: the encodings the canonical body must see through."""
    r = rng.random()
    if r < 0.2:
        text = text.replace("\n", "\r\n")
    elif r < 0.3:  # mixed: some lines CRLF, some LF
        text = "".join("\r\n" if ch == "\n" and rng.random() < 0.5 else ch for ch in text)
    if rng.random() < 0.2:
        text += "\n" * rng.randint(1, 3)
    if rng.random() < 0.15:
        text = "\ufeff" + text
    return text


def gen_text(rng, malformed):
    """A contract text. With `malformed`, aims at one of issue 11's refusals (the model decides)."""
    if not malformed:
        kind = rng.choice(["plain", "plain", "fm", "fm", "fm", "fm-hr", "fm-empty-body", "empty", "fm-eof",
                           "lone-cr", "near-miss", "plain-hr", "fm-blank-tail"])
    else:
        kind = rng.choice(["open-lookalike", "open-lookalike", "open-below-blank", "unclosed", "close-lookalike",
                           "close-lookalike-only", "cr-line1", "double-bom", "crlf-lookalike"])
    fm = ["---"] + [rng.choice(FM_LINES) for _ in range(rng.randint(0, 3))] + ["---"]
    blanks = [""] * rng.choice([0, 0, 1, 2])
    if rng.random() < 0.3:
        blanks.append(rng.choice(BLANKISH[1:]))
    body = body_lines(rng)
    if kind == "plain":
        lines = [rng.choice(["Title", "# T", "Body text", "x"])] + body
        if rng.random() < 0.3:
            lines = [""] * rng.randint(1, 2) + lines
    elif kind == "plain-hr":
        lines = ["# Title", ""] + ["---"] + body
    elif kind == "fm":
        lines = fm + blanks + ["Body"] + body
    elif kind == "fm-hr":
        lines = fm + blanks + ["Intro", "", "---", ""] + body
    elif kind == "fm-empty-body":
        lines = fm + [""] * rng.randint(0, 3)
    elif kind == "fm-blank-tail":
        lines = fm + blanks + [rng.choice(["  ", "\t", " x"])] + body
    elif kind == "empty":
        return rng.choice(["", "\n", "\n\n\n", "\r\n"])
    elif kind == "fm-eof":
        return "\n".join(fm)
    elif kind == "lone-cr":
        sep = "\r"
        if rng.random() < 0.5:
            return "Title\rline two\r\rthree\r"
        return "---\ntitle: x\n---\nBody\rmore\r" + sep.join(body)
    elif kind == "near-miss":
        lines = [rng.choice(NEAR_MISS_LINES), "k: v", "---", "Body"] + body
    elif kind == "open-lookalike":
        lines = [lookalike(rng)] + fm[1:] + ["Body"] + body
    elif kind == "open-below-blank":
        lead = [rng.choice(BLANKISH) for _ in range(rng.randint(1, 2))]
        opener = "---" if rng.random() < 0.6 else lookalike(rng)
        if rng.random() < 0.3:
            return rng.choice(["\r", " \r", "\u200b\r"]) + opener + "\n".join([""] + fm[1:] + ["Body"])
        lines = lead + [opener] + fm[1:] + ["Body"] + body
    elif kind == "unclosed":
        lines = fm[:-1] + [rng.choice(["Body", "text", "k: v"])] + [x for x in body if x != "---"]
    elif kind == "close-lookalike":
        inner = fm[1:-1]
        inner.insert(rng.randint(0, len(inner)), lookalike(rng))
        lines = ["---"] + inner + ["---", "Body"] + body
    elif kind == "close-lookalike-only":
        lines = fm[:-1] + [lookalike(rng), "Body"] + [x for x in body if x != "---"]
    elif kind == "cr-line1":
        return "---\r" + rng.choice(["title: x\r---\rBody\r", "\rBody\n", "", "k: v\n---\nBody\n"])
    elif kind == "double-bom":
        return "\ufeff\ufeff" + "\n".join(fm + ["Body"])
    elif kind == "crlf-lookalike":
        return "\r\n".join([lookalike(rng)] + fm[1:] + ["Body"] + body)
    else:
        raise AssertionError(kind)
    return finish_text(rng, "\n".join(lines))


def text_is_malformed(data):
    try:
        canonical_body("x", data)
        return False
    except Refusal as r:
        return r.message is not None


def make_text(rng, opts, malformed_p=0.25):
    want = (not opts.no_malformed) and rng.random() < malformed_p
    for _ in range(100):
        if rng.random() < 0.1:
            data = rng.choice(FIXED_TEXTS).encode("utf-8")
        else:
            data = gen_text(rng, want).encode("utf-8")
        if not opts.no_malformed or not text_is_malformed(data):
            return data
    return b"Body\n"


def yaml_scalar(rng, s):
    if not YAML_SPECIAL.match(s) and rng.random() < 0.6:
        return s
    return '"' + s + '"' if rng.random() < 0.5 else "'" + s + "'"


def yaml_name(s):
    """A YAML double-quoted scalar: JSON's escapes, and DEL and C1 escaped too (not printable in YAML)."""
    q = json.dumps(s, ensure_ascii=False)
    return "".join("\\u%04x" % ord(ch) if 0x7F <= ord(ch) <= 0x9F else ch for ch in q)


def skill_head(rng, name):
    head = []
    if rng.random() < 0.7:
        head.append("name: " + yaml_name(name))
    if rng.random() < 0.7:
        head.append("description: Does a thing.")
    return head


def skill_md(rng, name, ids):
    """A SKILL.md declaring `ids` (non-empty) in one of many YAML spellings."""
    q = [yaml_scalar(rng, i) for i in ids]
    style = rng.choice(["block", "block0", "flow", "flowmap", "json", "merge", "comments", "multiline",
                        "extra-keys", "block"])
    if style == "block":
        meta = ["metadata:", "  contracts:"] + [f"    - {x}" for x in q]
    elif style == "block0":
        meta = ["metadata:", "  contracts:"] + [f"  - {x}" for x in q]
    elif style == "flow":
        meta = ["metadata:", "  contracts: [" + ", ".join(q) + "]"]
    elif style == "flowmap":
        meta = ["metadata: {contracts: [" + ", ".join(q) + "]}"]
    elif style == "json":
        meta = ['metadata: {"contracts": [' + ", ".join(json.dumps(i) for i in ids) + "]}"]
    elif style == "merge":
        meta = ["x-shared: &shared", "  contracts: [" + ", ".join(q) + "]", "metadata:", "  <<: *shared"]
    elif style == "comments":
        meta = ["metadata: # ours", "  contracts: # shared texts"] + [f"    - {x} # why" for x in q]
    elif style == "multiline":
        meta = ["metadata:", "  contracts: ["] + [f"    {x}," for x in q[:-1]] + [f"    {q[-1]}", "  ]"]
    else:
        meta = ["metadata:", "  author: someone", "  contracts:"] + [f"    - {x}" for x in q] + ['  version: "1"']
    head = skill_head(rng, name)
    lines = head[:1] + meta + head[1:]
    text = "---\n" + "\n".join(lines) + "\n---\n" + rng.choice(["", "\n# Skill\n", "Body\n\n---\n\nmore\n"])
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.1:
        text = "\ufeff" + text
    data = text.encode("utf-8")
    SKILL_MEANING[data] = ("ids", list(ids))
    return data


def skill_md_none(rng, name):
    kind = rng.choice(["nofm", "nofm-hr", "fm-no-metadata", "metadata-no-contracts"])
    if kind == "nofm":
        text = "# " + name + "\n\nJust prose.\n"
    elif kind == "nofm-hr":
        text = "# Title\n\n---\n\nmore\n"
    elif kind == "fm-no-metadata":
        text = "---\n" + "\n".join(skill_head(rng, name) or ["description: x"]) + "\n---\nBody\n"
    else:
        text = "---\nmetadata:\n  author: me\n---\n"
    data = text.encode("utf-8")
    SKILL_MEANING[data] = ("none",)
    return data


def skill_md_refused(rng, name):
    kind = rng.choice(["open-lookalike", "below-blank", "unclosed", "close-lookalike", "tab", "invalid-yaml",
                       "dup-key", "contracts-scalar", "contracts-empty", "contracts-bare", "entry-null",
                       "entry-number", "entry-bool", "entry-map", "entry-list", "dup-id", "bad-id",
                       "root-list", "metadata-list", "metadata-scalar", "metadata-empty"])
    body = {
        "tab": "metadata:\n\tcontracts: [alpha]",
        "invalid-yaml": "metadata: {contracts: [alpha",
        "dup-key": "name: a\nname: b\nmetadata:\n  contracts: [alpha]",
        "contracts-scalar": "metadata:\n  contracts: alpha",
        "contracts-empty": "metadata:\n  contracts: []",
        "contracts-bare": "metadata:\n  contracts:",
        "entry-null": "metadata:\n  contracts:\n    - ~",
        "entry-number": "metadata:\n  contracts: [" + rng.choice(["9", "007", "1e3", "0x1f", "10"]) + "]",
        "entry-bool": "metadata:\n  contracts: [true]",
        "entry-map": "metadata:\n  contracts:\n    - alpha: sha256:" + "0" * 64,
        "entry-list": "metadata:\n  contracts:\n    - [alpha]",
        "dup-id": "metadata:\n  contracts: [alpha, beta, alpha]",
        "bad-id": "metadata:\n  contracts: [" + rng.choice(["A", "a..b", "../x", "-a", "x" * 65, "\"a/b\"", "\"\""]) + "]",
        "root-list": "- alpha\n- beta",
        "metadata-list": "metadata: [alpha]",
        "metadata-scalar": "metadata: alpha",
        "metadata-empty": "metadata:",
    }
    good = "metadata:\n  contracts: [alpha]"
    if kind == "open-lookalike":
        text = lookalike(rng) + "\n" + good + "\n---\n"
    elif kind == "below-blank":
        text = rng.choice(BLANKISH) + "\n---\n" + good + "\n---\n"
    elif kind == "unclosed":
        text = "---\n" + good + "\n"
    elif kind == "close-lookalike":
        text = "---\n" + good + "\n" + lookalike(rng) + "\n---\n"
    else:
        text = "---\n" + body[kind] + "\n---\n"
    data = text.encode("utf-8")
    SKILL_MEANING[data] = ("refuse",)
    return data


CONF_NAMES = ["cases/minimal.md", "cases/reject.md", "a.txt", "x.tmp", "cases/y.tmp", "build/out.txt",
              "build/deep/k.md", "notes.txt", "cases/notes.txt", "deep/er/file.md", "😀.md", "Ａ.md", "z.md",
              ".hidden", "empty", "sp ace.md", "cases/build/x.md", "b.txt", "keep.tmp", "build/keep.tmp",
              "cases/keep.tmp"]
GITIGNORE_LINES = ["*.tmp", "build/", "notes.txt", "# comment", "", "/.agentic-skill-vendor/", "cases/reject.md",
                   "*.tmp", "build/", "notes.txt", "!keep.tmp", "!notes.txt", "!build/", "!cases/", ".gitignore"]


def conf_bytes(rng):
    return rng.choice([b"", b"case\n", b"a\r\nb\r\n", b"\xff\xfe raw", "ünï\n".encode(), b"x" * rng.randint(1, 40)])


def gitignore_bytes(rng):
    lines = [rng.choice(GITIGNORE_LINES) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.05:
        lines.append("conformance/")
    return ("\n".join(lines) + rng.choice(["\n", ""])).encode("utf-8")


def yaml_special(cid):
    return bool(YAML_SPECIAL.match(cid))


def js_number_text(x):
    """JavaScript's String(number) for a finite double: shortest digits, plain from 1e-6 to 1e21."""
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    t = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    k, n = len(digits), len(digits) + t.exponent
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("-" if n - 1 < 0 else "+") + str(abs(n - 1))
    return sign + body


def ts_reading(plain):
    """The id the TypeScript tool reads from a plain key: its YAML 1.2 core value as JavaScript
    writes it (`007` -> `7`, `0x1f` -> `31`, `1e3` -> `1000`)."""
    if plain in ("~", "null", "Null", "NULL"):
        return "null"
    if plain in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return plain.lower()
    if re.fullmatch(r"0o[0-7]+", plain):
        return js_number_text(float(int(plain[2:], 8)))
    if re.fullmatch(r"0x[0-9a-fA-F]+", plain):
        return js_number_text(float(int(plain[2:], 16)))
    if re.fullmatch(r"[-+]?[0-9]+", plain) or re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", plain):
        value = float(plain)
        return js_number_text(value) if value not in (float("inf"), float("-inf")) else plain
    return plain


def table_key(cid):
    """docs/FORMATS.md: plain where the TypeScript tool reads the plain key back as the id,
    double-quoted where it reads another (issue 29 §6)."""
    return cid if ts_reading(cid) == cid else f'"{cid}"'


def any_key(rng, cid):
    """A key as a person or either tool may write it: mostly as gen writes it, sometimes plain
    (as the TypeScript tool writes every key) or quoted."""
    return rng.choice([table_key(cid)] * 6 + [cid, f'"{cid}"', f"'{cid}'"])


def is_quoted(key):
    return len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'"


def unquote_key(key):
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'":
        return key[1:-1]
    return key


def table_bytes(rng, rows):
    """A vendor-manifest.yaml holding `rows` [(id, path or None)], in one of several shapes."""
    shape = rng.choice(["block"] * 8 + ["no-block", "empty", "flow-block"])
    lines = ["# table of origins"] if rng.random() < 0.5 else []
    if shape == "empty":
        return b""
    if shape == "no-block":
        # A file of comments alone holds no document and is refused (issue 29 §6); `---`
        # makes it an empty one.
        lines = (lines or ["# nothing mapped yet"]) + (["---"] if rng.random() < 0.5 else [])
    elif shape == "flow-block":
        inner = ", ".join(f"{any_key(rng, c)}: {{source: local" + (f", path: {p}" if p else "") + "}" for c, p in rows)
        lines.append("contracts: {" + inner + "}")
    else:
        lines.append("contracts:")
        for cid, path in rows:
            if rng.random() < 0.2:
                lines.append(f"  # about {cid}")
            if rng.random() < 0.1:
                lines.append(f"  {any_key(rng, cid)}: {{source: local" + (f", path: {path}" if path else "") + "}")
            else:
                props = ["    source: local"]
                if path:
                    props.append(f"    path: {path}" + rng.choice(["", "", "  # kept elsewhere"]))
                if rng.random() < 0.2:
                    props.insert(rng.randint(0, len(props)), "    # why")
                if rng.random() < 0.15:
                    props.append("    note: left alone")
                if rng.random() < 0.3:
                    props.reverse()
                lines += [f"  {any_key(rng, cid)}:"] + props
            if rng.random() < 0.1:
                lines.append("")
        if rng.random() < 0.3:
            lines.append("  # trailing comment")
        if rng.random() < 0.3:
            lines.append("# column-0 comment")
    if rng.random() < 0.2:
        lines += ["", "# end"]
    eol = "\r\n" if rng.random() < 0.2 else "\n"
    return "".join(line + eol for line in lines).encode("utf-8")


def custom_path(rng, cid):
    return rng.choice([f"docs/texts/{cid}.md", f"docs/{cid}-text.md", f"shared/{cid}.txt", f"docs/style/{cid}.md"])


def gen_repo(rng, opts):
    tree = {}
    with_table = not opts.no_table and rng.random() < 0.3
    pool = ID_POOL if (not with_table or opts.table_special_ids) else [i for i in ID_POOL if not yaml_special(i)]
    ids = rng.sample(pool, rng.randint(1, 6))
    has_closure = rng.random() < 0.12
    texts = [i for i in ids if rng.random() < 0.9] or ids[:1]
    malformed_p = 0.0 if opts.no_malformed else (0.2 / max(1, len(texts)))
    rows = []
    if with_table:
        for cid in ids:
            if rng.random() < 0.5:
                path = custom_path(rng, cid) if rng.random() < 0.6 else None
                if path is not None and rng.random() < 0.02:
                    path = rng.choice(["../outside.md", "/abs.md", "docs//x.md", "./x.md", "skills/a/x.md",
                                       ".agentic-skill-vendor/x.md", "docs/../x.md"])
                rows.append((cid, path))
    if with_table:
        tree[MANIFEST] = table_bytes(rng, rows)
    table = table_of(tree)
    where = {}
    for cid in ids:
        where[cid] = located(table, cid)
        if not path_is_allowed(where[cid]):
            where[cid] = text_path(cid)
    for cid in texts:
        tree[where[cid]] = make_text(rng, opts, malformed_p)
        if where[cid] != text_path(cid) and rng.random() < 0.3:
            tree[text_path(cid)] = b"a decoy at the conventional place: the row's path wins\n"
    if rng.random() < 0.03:
        tree[where[rng.choice(texts)]] = b"---\nk: v\n---\nbad \xff byte\n"
    # conformance trees and .gitignore files
    for cid in ids:
        if rng.random() < 0.45:
            conf = conformance_dir(table, cid) if path_is_allowed(located(table, cid)) else f"contracts/{cid}/conformance"
            for name in rng.sample(CONF_NAMES, rng.randint(1, 5)):
                tree[f"{conf}/{name}"] = conf_bytes(rng)
            parent = conf[:-len("conformance")]
            for sub in ["", "conformance/", "conformance/cases/", "conformance/build/"]:
                if rng.random() < 0.25:
                    tree[f"{parent}{sub}.gitignore"] = gitignore_bytes(rng)
    for gi in [".gitignore", "contracts/.gitignore", "docs/.gitignore"]:
        if rng.random() < 0.4:
            tree[gi] = gitignore_bytes(rng)
    if rng.random() < 0.2:
        tree["skills/.gitignore"] = b"*.md\n"
    if rng.random() < 0.1:
        tree["contracts/unrelated/.gitignore"] = b"*.md\n*.txt\n"
    # skills
    usable = [i for i in ids if i in texts or has_closure]
    for s in rng.sample(SKILL_POOL, rng.randint(1, 5)):
        r = rng.random()
        if r < 0.62 and usable:
            chosen = rng.sample(usable, rng.randint(1, min(3, len(usable))))
            tree[f"skills/{s}/SKILL.md"] = skill_md(rng, s, chosen)
        elif r < 0.8:
            tree[f"skills/{s}/SKILL.md"] = skill_md_none(rng, s)
        elif r < 0.9:
            tree[f"skills/{s}/notes.md"] = b"no SKILL.md here\n"
        elif r < 0.985 or opts.no_skill_refusals:
            tree[f"skills/{s}/SKILL.md"] = skill_md_none(rng, s)
        else:
            tree[f"skills/{s}/SKILL.md"] = skill_md_refused(rng, s)
        if rng.random() < 0.08:
            tree[f"skills/{s}/references/vendor/stray.md"] = b"left over\n"
    if rng.random() < 0.1:
        tree["skills/README.md"] = b"not a skill\n"
    return tree


def table_of(tree):
    return Table(tree[MANIFEST]) if MANIFEST in tree else None


def text_files(tree):
    """Every canonical text the tree holds: contracts/*.md and the table's paths."""
    out = {p for p in tree if p.startswith("contracts/") and p.count("/") == 1 and p.endswith(".md")}
    table = table_of(tree)
    if table is not None:
        out |= {row["path"] for row in table.rows.values() if row["path"] in tree}
    return sorted(out)


def special_ids_present(tree):
    ids = {i for ids in declared_by(tree).values() for i in ids}
    ids |= {p[len("contracts/"):-3] for p in tree if p.startswith("contracts/") and p.count("/") == 1}
    return any(yaml_special(i) for i in ids)


def declared_by(tree):
    out = {}
    for s in skills_of(tree):
        data = tree.get(f"skills/{s}/SKILL.md")
        if data is not None and SKILL_MEANING[data][0] == "ids":
            out[s] = list(SKILL_MEANING[data][1])
    return out


EDITS = ["change-text", "change-text", "delete-copy", "edit-copy", "edit-copy", "add-conformance",
         "delete-conformance", "add-extra", "delete-lock", "undeclare", "undeclare", "declare", "delete-text",
         "add-text", "edit-gitignore", "withdraw", "edit-lock", "edit-lock", "add-extra-dir", "skill-to-file",
         "chmod-copy", "table", "table"]


def placeable(tree):
    """No file stands where another file needs a directory."""
    dirs = {p.rsplit("/", i)[0] for p in tree for i in range(1, p.count("/") + 1)}
    return not (dirs & set(tree))


def apply_edit(rng, tree, opts, chmods):
    """Applies one random edit (retrying until the tree can stand on disk); returns its description."""
    for _ in range(20):
        trial = dict(tree)
        desc = edit_once(rng, trial, opts, chmods)
        if placeable(trial):
            tree.clear()
            tree.update(trial)
            return desc
        chmods.clear()
    return "no edit"


def edit_once(rng, tree, opts, chmods):
    """Applies one random edit to `tree` (a dict) in place; returns its description. A change of
    mode is appended to `chmods` as (path, mode), to be made once the tree is on disk."""
    decls = declared_by(tree)
    texts = text_files(tree)
    copies = sorted(p for p in tree if "/references/vendor/" in p)
    table = table_of(tree)
    # With a table, ids YAML reads as numbers, booleans or null are kept out (see --table-special-ids).
    pool = ID_POOL if (table is None or opts.table_special_ids) else [i for i in ID_POOL if not yaml_special(i)]
    for _ in range(50):
        kind = rng.choice(EDITS)
        if kind == "change-text" and texts:
            p = rng.choice(texts)
            tree[p] = make_text(rng, opts, 0.2)
            return f"change {p}"
        if kind == "delete-text" and texts and rng.random() < 0.5:
            p = rng.choice(texts)
            del tree[p]
            return f"delete {p}"
        if kind == "withdraw" and decls:
            # README: "Withdrawing a contract — removing it from the skills' declarations and
            # deleting its canonical text"
            cid = rng.choice(sorted({i for ids in decls.values() for i in ids}))
            tree.pop(located(table, cid), None)
            for s, ids in decls.items():
                if cid in ids:
                    rest = [i for i in ids if i != cid]
                    q = f"skills/{s}/SKILL.md"
                    tree[q] = skill_md(rng, s, rest) if rest else skill_md_none(rng, s)
            return f"withdraw {cid}"
        if kind == "add-text":
            cid = rng.choice(pool)
            if text_path(cid) not in tree:
                tree[text_path(cid)] = make_text(rng, opts, 0.1)
                return f"add {text_path(cid)}"
        if kind == "delete-copy" and copies:
            p = rng.choice(copies)
            del tree[p]
            return f"delete {p}"
        if kind == "edit-copy" and copies:
            p = rng.choice(copies)
            data = tree[p]
            how = rng.choice(["append", "digest", "id", "binary", "truncate", "crlf", "body-only"])
            if how == "append":
                data += b"edited\n"
            elif how == "digest":
                i = data.find(b"sha256:")
                if i >= 0:
                    j = i + 7 + rng.randint(0, 63)
                    data = data[:j] + (b"0" if data[j:j + 1] != b"0" else b"1") + data[j + 1:]
            elif how == "id":
                data = data.replace(b"<!-- contract: ", b"<!-- contract: x", 1)
            elif how == "binary":
                data += b"\xff\xfe\x00"
            elif how == "truncate":
                data = data[: rng.randint(0, 60)]
            elif how == "crlf":
                data = data.replace(b"\n", b"\r\n")
            else:
                data = data.split(b"-->\n\n", 1)[-1]
            tree[p] = data
            return f"edit {p} ({how})"
        if kind == "add-conformance":
            cid = rng.choice(sorted({i for ids in decls.values() for i in ids}) or ID_POOL)
            if not path_is_allowed(located(table, cid)):
                continue
            p = f"{conformance_dir(table, cid)}/{rng.choice(CONF_NAMES + ['new.md', 'n.tmp', 'build/b.md'])}"
            tree[p] = conf_bytes(rng) + b"+"
            return f"add {p}"
        if kind == "delete-conformance":
            conf = sorted(p for p in tree if "/conformance/" in p)
            if conf:
                p = rng.choice(conf)
                del tree[p]
                return f"delete {p}"
        if kind == "edit-gitignore":
            gis = sorted(p for p in tree if p.endswith(".gitignore"))
            cands = gis + [".gitignore", "contracts/.gitignore"]
            p = rng.choice(cands)
            tree[p] = tree.get(p, b"") + gitignore_bytes(rng)
            return f"edit {p}"
        if kind == "add-extra":
            skills = skills_of(tree)
            if skills:
                s = rng.choice(skills)
                name = rng.choice(["stray.md", "notes.txt", f"{rng.choice(ID_POOL)}.md", ".DS_Store", "UPPER.md",
                                   "ctl\x1f.md", "Ａ.md", "😀.md"])
                p = f"skills/{s}/references/vendor/{name}"
                tree[p] = b"extra\n"
                return f"add {p}"
        if kind == "edit-lock" and "vendor-lock.json" in tree:
            data = tree["vendor-lock.json"]
            try:
                lock = json.loads(strip_bom(data).decode("utf-8"))
                res, deps = lock["resolutions"], lock["dependencies"]
                assert isinstance(res, dict) and isinstance(deps, dict)
            except (ValueError, KeyError, TypeError, AssertionError):
                continue  # an earlier edit of this step broke it already
            how = rng.choice(["bom", "crlf", "unknown-key", "drop-resolution", "digest", "conformance",
                              "dependencies", "no-final-lf", "unknown-key-in-resolution", "dependencies-odd",
                              "refused"])
            if how == "bom":
                data = b"\xef\xbb\xbf" + data
            elif how == "crlf":
                data = data.replace(b"\n", b"\r\n")
            elif how == "no-final-lf":
                data = data.rstrip(b"\n")
            elif how == "unknown-key":
                lock["x-note"] = "added by hand"
                data = (render_json(lock) + "\n").encode("utf-8")
            elif how == "unknown-key-in-resolution" and res:
                res[rng.choice(sorted(res))]["note"] = "by hand"
                data = (render_json(lock) + "\n").encode("utf-8")
            elif how == "dependencies-odd":
                # ours: "The values of `dependencies` are not judged when reading"
                lock["dependencies"] = rng.choice([{"x": "not a list"}, {"x": [1, None]}, {}])
                data = (render_json_any(lock) + "\n").encode("utf-8")
            elif how == "refused":
                some = rng.choice(sorted(res)) if res else "alpha"
                good = {"digest": "sha256:" + "a" * 64}
                how, value = rng.choice([
                    ("not-json", b"{ not json\n"), ("not-utf8", b'{"dependencies": {}, "resolutions": {}}\xff\n'),
                    ("not-object", b"[]\n"), ("no-resolutions", {"dependencies": {}}),
                    ("no-dependencies", {"resolutions": {}}),
                    ("resolutions-list", {"dependencies": {}, "resolutions": []}),
                    ("dependencies-list", {"dependencies": [], "resolutions": {}}),
                    ("bad-key", {"dependencies": {}, "resolutions": {"Bad Id": good}}),
                    ("bad-key-dots", {"dependencies": {}, "resolutions": {"a..b": good}}),
                    ("resolution-string", {"dependencies": {}, "resolutions": {some: "sha256:" + "a" * 64}}),
                    ("digest-upper", {"dependencies": {}, "resolutions": {some: {"digest": "sha256:" + "A" * 64}}}),
                    ("digest-short", {"dependencies": {}, "resolutions": {some: {"digest": "sha256:abc"}}}),
                    ("digest-missing", {"dependencies": {}, "resolutions": {some: {}}}),
                    ("conformance-bad", {"dependencies": {}, "resolutions": {some: dict(good, conformance="x")}}),
                    ("kind-other", {"dependencies": {}, "resolutions": {some: dict(good, kind="doc")}}),
                ])
                how = "refused: " + how
                data = value if isinstance(value, bytes) else (render_json_any(value) + "\n").encode("utf-8")
            elif how in ("drop-resolution", "digest", "conformance") and res:
                cid = rng.choice(sorted(res))
                if how == "drop-resolution":
                    del res[cid]
                elif how == "digest":
                    res[cid]["digest"] = "sha256:" + "%064x" % rng.getrandbits(256)
                elif "conformance" in res[cid] and rng.random() < 0.5:
                    del res[cid]["conformance"]
                else:
                    res[cid]["conformance"] = "sha256:" + "%064x" % rng.getrandbits(256)
                data = (render_json(lock) + "\n").encode("utf-8")
            elif how == "dependencies" and deps:
                s = rng.choice(sorted(deps))
                if len(deps[s]) > 1:
                    deps[s].pop()
                else:
                    del deps[s]
                data = (render_json(lock) + "\n").encode("utf-8")
            else:
                continue
            tree["vendor-lock.json"] = data
            return f"edit vendor-lock.json ({how})"
        if kind == "table":
            if table is None:
                if not opts.no_table and (opts.table_special_ids or not special_ids_present(tree)):
                    tree[MANIFEST] = table_bytes(rng, [])
                    return f"create {MANIFEST}"
                continue
            how = rng.choice(["drop-row", "move-text", "delete", "crlf"])
            if how == "delete":
                del tree[MANIFEST]
            elif how == "crlf" and table.eol == "\n":
                table.eol = "\r\n"
                tree[MANIFEST] = table.render()
            elif how == "drop-row" and table.rows and not table.flow_block:
                cid = rng.choice(sorted(table.rows))
                if table.rows[cid]["start"] is None:
                    continue
                table.remove([cid])
                tree[MANIFEST] = table.render()
                how += f" {cid}"
            elif how == "move-text" and not table.flow_block:
                # a text moved out of contracts/ and a row with its new `path`
                cands = sorted(c for c in {i for ids in decls.values() for i in ids}
                               if located(table, c) in tree and c not in table.rows)
                if not cands:
                    continue
                cid = rng.choice(cands)
                dest = custom_path(rng, cid)
                if dest in tree:
                    continue
                tree[dest] = tree.pop(located(table, cid))
                table.add([cid])
                i = table.rows[cid]["start"]
                table.lines.insert(i + 2, f"    path: {dest}")
                tree[MANIFEST] = table.render()
                how += f" {cid} to {dest}"
            else:
                continue
            return f"edit {MANIFEST} ({how})"
        if kind == "skill-to-file" and rng.random() < 0.5:
            skills = skills_of(tree)
            if skills:
                s = rng.choice(skills)
                for p in [p for p in tree if p.startswith(f"skills/{s}/")]:
                    del tree[p]
                tree[f"skills/{s}"] = b"a file where a skill was\n"
                return f"replace skills/{s}/ with a file"
        if kind == "chmod-copy" and copies:
            p = rng.choice(copies)
            mode = rng.choice([0o600, 0o640, 0o755, 0o444])
            chmods.append((p, mode))
            return f"chmod {mode:o} {p}"
        if kind == "add-extra-dir":
            skills = skills_of(tree)
            if skills:
                s = rng.choice(skills)
                name = rng.choice(["sub", "alpha.md", "old\x01"])
                p = f"skills/{s}/references/vendor/{name}/{rng.choice(['x.md', 'deep/y.txt'])}"
                tree[p] = b"extra\n"
                return f"add {p}"
        if kind == "delete-lock" and "vendor-lock.json" in tree:
            del tree["vendor-lock.json"]
            return "delete vendor-lock.json"
        if kind == "undeclare" and decls:
            s = rng.choice(sorted(decls, key=u16))
            ids = decls[s]
            gone = rng.choice(ids)
            rest = [i for i in ids if i != gone]
            p = f"skills/{s}/SKILL.md"
            tree[p] = skill_md(rng, s, rest) if rest else skill_md_none(rng, s)
            return f"undeclare {gone} in {p}"
        if kind == "declare":
            skills = skills_of(tree)
            if skills:
                s = rng.choice(skills)
                ids = decls.get(s, [])
                cands = [i for i in pool if i not in ids and (located(table, i) in tree or rng.random() < 0.2)]
                if cands:
                    new = rng.choice(cands)
                    p = f"skills/{s}/SKILL.md"
                    tree[p] = skill_md(rng, s, ids + [new])
                    return f"declare {new} in {p}"
    return "no edit"


# --------------------------------------------------------------------------------------------
# Running the binary
# --------------------------------------------------------------------------------------------


def write_tree(root, tree):
    for path, data in tree.items():
        full = os.path.join(root, *path.split("/"))
        if os.path.isdir(full):  # a file where a directory was (edit "skill-to-file")
            shutil.rmtree(full)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


def read_tree(root):
    """Every file's bytes, and its (inode, mtime in ns, permission bits)."""
    out, meta = {}, {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                raise RuntimeError(f"unexpected entry {full}")
            if name in dirnames:
                continue
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            with open(full, "rb") as f:
                out[rel] = f.read()
            meta[rel] = (st.st_ino, st.st_mtime_ns, stat.S_IMODE(st.st_mode))
    return out, meta


def sync_tree(root, old, new):
    for path in old:
        if path not in new:
            full = os.path.join(root, *path.split("/"))
            os.remove(full)
            parent = os.path.dirname(full)
            while parent != root and not os.listdir(parent):
                os.rmdir(parent)
                parent = os.path.dirname(parent)
    write_tree(root, {p: d for p, d in new.items() if old.get(p) != d})


def lines_of(text):
    """Lines split on LF only (str.splitlines would also split on U+0085 and others)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


class Actual:
    def __init__(self, code, stdout, stderr, tree, meta):
        self.code, self.stdout, self.stderr, self.tree, self.meta = code, stdout, stderr, tree, meta

    def describe(self):
        out = [f"exit {self.code}"]
        out += ["stderr: " + line for line in lines_of(self.stderr)]
        out += ["stdout: " + line for line in lines_of(self.stdout)] or ["stdout: (nothing)"]
        return "\n".join(out)


def run_bin(binary, command, root):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    p = subprocess.run([binary, command, "--root", root], capture_output=True, env=env, timeout=120,
                       stdin=subprocess.DEVNULL)
    return Actual(p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"),
                  *read_tree(root))


def tree_diff(expected, actual):
    out = []
    for path in sorted(set(expected) | set(actual)):
        e, a = expected.get(path), actual.get(path)
        if e == a:
            continue
        if e is None:
            out.append(f"  unexpected file {path}: {a[:300]!r}")
        elif a is None:
            out.append(f"  missing file {path}: {e[:300]!r}")
        else:
            out.append(f"  {path} differs:\n    expected {e[:600]!r}\n    actual   {a[:600]!r}")
    return out


def untouched_files(before, before_meta, act):
    """ours ("gen"): "Only files whose bytes differ are written; a rewritten copy keeps its file
    mode"; README: "a gen with nothing to change writes nothing"; and verify writes nothing."""
    out = []
    for path, data in act.tree.items():
        if path not in before:
            continue
        if before[path] == data and before_meta[path][:2] != act.meta[path][:2]:
            out.append(f"  {path} was rewritten although its bytes did not change")
        if "/references/vendor/" in path and before_meta[path][2] != act.meta[path][2]:
            out.append(f"  {path} changed mode from {before_meta[path][2]:o} to {act.meta[path][2]:o}")
    return out


def mismatch(exp, act, before, before_meta):
    """Why `act` does not satisfy `exp`, or None."""
    why = []
    touched = untouched_files(before, before_meta, act)
    if touched:
        why.append("files written that should not be:\n" + "\n".join(touched))
    if act.code != exp.code:
        why.append(f"exit {act.code}, expected {exp.code}")
    if exp.stdout is not None:
        want = "".join(line + "\n" for line in exp.stdout)
        if act.stdout != want:
            why.append("stdout differs")
    first = act.stderr.split("\n", 1)[0]
    if exp.error is not None and first != exp.error:
        why.append("first stderr line differs")
    if exp.error_names is not None and (not first.startswith("error: ")
                                        or not any(n in first for n in exp.error_names)):
        why.append("first stderr line does not name the file")
    # README: a key of the table or the lock this tool does not read is a warning on stderr (the
    # model's tables and locks carry `note` keys); anything else on stderr of a run that did not
    # refuse is not.
    # README: after violations, one `hint: <kind>: …` line per kind reported that has a hint.
    hinted = {"closure", "drift", "extra", "lock", "conformance-mismatch"}
    kinds_out = [l.split(":")[0] for l in act.stdout.split("\n") if l]
    hint_kinds = [k for i, k in enumerate(kinds_out) if k in hinted and k not in kinds_out[:i]]
    hint_lines = [l for l in act.stderr.split("\n") if l.startswith("hint: ")]
    if [l.split(":")[1].strip() for l in hint_lines] != hint_kinds:
        why.append("hints on stderr do not match the kinds reported")
    if exp.code in (0, 1) and any(
            not line.startswith("hint: ")
            and not (line.startswith("warning: vendor-manifest.yaml:") and 'unknown key "note"' in line)
            # the model's unknown-key edit of the lock
            and not (line.startswith("warning: vendor-lock.json:") and "unknown key" in line
                     and line.endswith("(gen writes the lock without it)"))
            and not (line.startswith(("warning: skills/", 'warning: "skills/'))
                     and line.endswith((
                         ": put back — it was edited by hand; a copy is written from its canonical text, so edit that instead",
                         # what gen removes or replaces in a vendor directory that it did not write
                         ": removed — references/vendor/ holds only generated copies; keep your own files elsewhere in the skill",
                         ": replaced — it was not written by this tool, and references/vendor/ holds only generated copies; keep your own files elsewhere in the skill",
                     )))
            for line in act.stderr.split("\n") if line):
        why.append("unexpected stderr")
    diff = tree_diff(exp.tree, act.tree)
    if diff:
        why.append("tree differs:\n" + "\n".join(diff))
    return "; ".join(why) if why else None


def line_diff(expected, actual):
    import difflib
    return "\n".join(difflib.unified_diff(expected, actual, "expected", "actual", lineterm="", n=2))


def run_case(opts, seed, case, stats):
    rng = random.Random(f"{seed}:{case}")
    tree = gen_repo(rng, opts)
    initial = dict(tree)
    n_edits = 1 if rng.random() < 0.7 else 2
    tmp = tempfile.mkdtemp(prefix="asv-diff-")
    root = os.path.join(tmp, "repo")
    os.makedirs(root)
    log = []
    try:
        write_tree(root, tree)
        _, meta = read_tree(root)
        steps = ["gen", "verify", "edit", "verify", "gen", "verify"]
        for n, step in enumerate(steps, 1):
            if step == "edit":
                new = dict(tree)
                chmods = []
                desc = [apply_edit(rng, new, opts, chmods) for _ in range(n_edits)]
                sync_tree(root, tree, new)
                for path, mode in chmods:
                    if path in new:
                        os.chmod(os.path.join(root, *path.split("/")), mode)
                tree = new
                on_disk, meta = read_tree(root)
                assert on_disk == tree, "the edit did not reach the disk as meant"
                log.append(f"step {n}: edit: " + "; ".join(desc))
                continue
            alternatives = MODEL[step](tree)
            act = run_bin(opts.bin, step, root)
            reasons = [mismatch(e, act, tree, meta) for e in alternatives]
            if all(reasons):
                report = [f"MISMATCH seed {seed} case {case}, step {n} ({step})",
                          "replay: python3 " + sys.argv[0] + f" --bin {opts.bin} --seed {seed} --case {case}"
                          + (" --no-malformed" if opts.no_malformed else "") + " --keep DIR"]
                report += log
                for e, why in zip(alternatives, reasons):
                    report.append("--- expected" + (" (one of several)" if len(alternatives) > 1 else "") + ":")
                    report.append(e.describe())
                    report.append("--- because: " + why)
                    if e.stdout is not None:
                        d = line_diff(e.stdout, lines_of(act.stdout))
                        if d:
                            report.append(d)
                report.append("--- actual:")
                report.append(act.describe())
                if opts.keep:
                    dest = os.path.join(opts.keep, f"seed-{seed}-case-{case}")
                    shutil.rmtree(dest, ignore_errors=True)
                    os.makedirs(dest)
                    write_tree(os.path.join(dest, "initial"), initial)
                    write_tree(os.path.join(dest, "before-step"), tree)
                    shutil.copytree(root, os.path.join(dest, "actual"))
                    with open(os.path.join(dest, "report.txt"), "w", encoding="utf-8") as f:
                        f.write("\n".join(report) + "\n")
                    report.append(f"kept in {dest}")
                return "\n".join(report)
            log.append(f"step {n}: {step}: exit {act.code}, {len(lines_of(act.stdout))} lines")
            if len(alternatives) > 1:
                chosen = reasons.index(None)
                others = [e.why for i, e in enumerate(alternatives) if i != chosen]
                key = f"{step} chose {alternatives[chosen].why} over {' + '.join(others)}"
                stats[key] = stats.get(key, 0) + 1
            stats[f"{step} exit {act.code}"] = stats.get(f"{step} exit {act.code}", 0) + 1
            for line in lines_of(act.stdout):
                words = line.split(" ")
                kind = line.split(":", 1)[0] + (
                    " conformance" if words[0] in ("adopted:", "retired:") and words[2:3] == ["conformance"] else "")
                stats[kind] = stats.get(kind, 0) + 1
            if act.code == 2:
                first = act.stderr.split("\n", 1)[0]
                if "/SKILL.md" in first:
                    what = "SKILL.md"
                elif "frontmatter" in first:
                    what = "fence: " + first.split(": ", 2)[-1].split(" '---'")[0]
                else:
                    what = "other: " + re.sub(r"^error: (\"[^\"]*\"|[^ ]*)", "<path>", first)[:60]
                stats[f"refused ({what})"] = stats.get(f"refused ({what})", 0) + 1
            tree, meta = act.tree, act.meta
        if opts.keep and opts.keep_all:
            dest = os.path.join(opts.keep, f"seed-{seed}-case-{case}")
            shutil.rmtree(dest, ignore_errors=True)
            write_tree(os.path.join(dest, "initial"), initial)
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# The model's own vectors (spec "self-test vectors" and vectors.json), checked before any case
# --------------------------------------------------------------------------------------------


def self_check():
    body = canonical_body("v", b'---\r\nversion: "1"\r\n---\r\n\r\nHello  \r\nWorld\r\n\r\n\r\n')
    assert body == "Hello  \nWorld\n", body
    assert sha256_digest(body.encode()) == "sha256:f5755ff05efa18e544073833aa1963073a8eb5f80a817564228b5b44a27bd96a"
    assert framed_digest({"b.txt": b"B\n", "a/x.txt": b"XY"}) == \
        "sha256:7bfb47738b94157bbf9d0b7de2a62a9c775f5bd67891dadf284be77d2bddea2e"
    assert framed_digest({"Ａ.md": b"fullwidth A\n", "😀.md": b"emoji\n", "z.md": b"z\n"}) == \
        "sha256:b6da5a32683d60a9081a6bfccb5dfddcf4665cced9d0cb7ff26d1046bffcb875"
    for raw, want in [(b"\n\nBody\n", "\n\nBody\n"), (b"\xef\xbb\xbfBody\n", "Body\n"), (b"", "\n"),
                      (b"\n\n\n", "\n"), (b"X", "X\n"), (b"a\rb\n", "a\rb\n"),
                      (b"---\nk: v\n---\n \nBody\n", " \nBody\n"), (b"---\nname: x\n---\n\n---\n\nBody\n", "---\n\nBody\n")]:
        assert canonical_body("v", raw) == want, (raw, want)
    lock = render_lock({"Ａ-skill": ["a"], "😀-skill": ["a", "b"]},
                       {"b": {"digest": "sha256:" + "1" * 64},
                        "a": {"digest": "sha256:" + "2" * 64, "conformance": "sha256:" + "3" * 64}})
    assert lock.decode() == (
        '{\n  "dependencies": {\n    "😀-skill": [\n      "a",\n      "b"\n    ],\n    "Ａ-skill": [\n      "a"\n    ]\n  },\n'
        '  "resolutions": {\n    "a": {\n      "conformance": "sha256:' + "3" * 64 + '",\n      "digest": "sha256:'
        + "2" * 64 + '"\n    },\n    "b": {\n      "digest": "sha256:' + "1" * 64 + '"\n    }\n  }\n}\n'), lock
    assert js_key_order(["b", "10", "9", "007", "0", "a"]) == ["0", "9", "10", "007", "a", "b"]
    # Issue 11's rule.
    for raw, refused in [("\u0085---\nk\n---\n", False), ("\x1c---\nk\n---\n", False), ("\u180e---\n", True),
                         ("\n---\nk\n---\n", True), ("---\r", True), ("---\nk\n--- \n---\n", True),
                         ("---\nk\n", True), ("# t\n\n---\n", False), ("\u2028\n", False)]:
        try:
            canonical_body("v", raw.encode())
            assert not refused, raw
        except Refusal:
            assert refused, raw
    assert js_string("\t\u200b\x0b\"\\") == '"\\t\u200b\\u000b\\"\\\\"'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the agentic-skill-vendor binary to test")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100, help="number of random repositories")
    ap.add_argument("--case", type=int, help="run only this case of the seed")
    ap.add_argument("--keep", metavar="DIR", help="keep a failing case's repository (initial, before the step, actual)")
    ap.add_argument("--keep-all", action="store_true", help="with --keep, also keep every passing case's initial tree")
    ap.add_argument("--no-malformed", action="store_true",
                    help="generate no contract text that issue 11's fence rule refuses")
    ap.add_argument("--no-skill-refusals", action="store_true", help="generate no SKILL.md that must be refused")
    ap.add_argument("--no-table", action="store_true", help="generate no vendor-manifest.yaml")
    ap.add_argument("--table-special-ids", action="store_true",
                    help="with a vendor-manifest.yaml, declare ids YAML reads as numbers, booleans or null too "
                         "(007, 9, null, true, 1e3), written as double-quoted keys")
    opts = ap.parse_args()
    opts.bin = os.path.abspath(opts.bin)
    if not os.access(opts.bin, os.X_OK):
        print(f"differential: {opts.bin} is not an executable", file=sys.stderr)
        return 2
    self_check()
    cases = [opts.case] if opts.case is not None else range(opts.count)
    stats = {}
    failures = 0
    for case in cases:
        report = run_case(opts, opts.seed, case, stats)
        if report:
            print(report)
            failures += 1
            break
    ran = len(cases) if not failures else None
    summary = ", ".join(f"{k} {v}" for k, v in sorted(stats.items()))
    if failures:
        print(f"differential: FAILED (seed {opts.seed}); so far: {summary}")
        return 1
    print(f"differential: {ran} cases of seed {opts.seed} agree with the model"
          + (" (no malformed texts)" if opts.no_malformed else ""))
    print("  " + summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
