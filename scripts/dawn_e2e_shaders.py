#!/usr/bin/env python3
"""Measures wgsl_subset on the WGSL compute shaders of Dawn's end-to-end tests.

  scripts/dawn_e2e_shaders.py <dawn-checkout or its src/dawn/tests/end2end> [--wgslc PATH]
                              [--out DIR] [--top N] [--timeout S]

Dawn's end2end tests (src/dawn/tests/end2end/*.cpp) write their shaders as C++ raw string
literals, R"(...)" (any delimiter), mostly handed straight to utils::CreateShaderModule. Every
literal holding a `@compute` entry point is classified:

  whole      the literal is the whole shader: not joined to other text with `+` or `<<`, not an
             argument of a formatting call (absl::StrFormat, absl::Substitute, StrCat, ...), and
             holding no format placeholder (%s, %d, $0, {0}). Each is run through wgslc.
  assembled  built at run time from pieces; counted and skipped (its text is not the shader).
             An `@compute` in an ordinary "..." string (streamed into a std::stringstream or
             joined with +) counts here too.

Each whole shader ends in one class: translates (wgslc exit 0), unsupported (its first
diagnostic says "unsupported in this WGSL subset"), internal error (a diagnostic says
"internal error"), error (any other diagnostic: an invalid shader Dawn expects to fail, a
feature such as f16 the test enables, or a translator bug), crash (a signal) or hang (past the
timeout). A literal inside ASSERT_DEVICE_ERROR / EXPECT_DEVICE_ERROR is one Dawn expects to
fail (at module or pipeline creation); the counts say how many. The script prints the counts, the reason histograms (quoted names and numbers
normalised) and writes DIR/summary.json (each shader's file, line, class and first message) and
each whole shader as DIR/shaders/<file>_<line>.wgsl. With --shim, each @compute entry point
of each shader that translates also gets a compute pipeline (layout "auto") on the shim's default
device, through tests/dawn_programs/pipeline_check.cpp; the errors are counted the same way.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

RAW_OPEN = re.compile(r'(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"([^()\\ \t\n]{0,16})\(')
FORMAT_CALLS = ("StrFormat", "Substitute", "StrCat", "StrAppend", "format", "sprintf", "snprintf",
                "Format", "ReplaceAll", "StrReplaceAll")
PLACEHOLDER = re.compile(r'%\d*[sd](?![A-Za-z0-9_])|\$\d|\{\d+\}')


def strip_back(text, i):
    """Index of the last character before i that is not whitespace or inside a // comment."""
    j = i - 1
    while j >= 0:
        if text[j].isspace():
            j -= 1
            continue
        # Skip a // comment ending on this line.
        line_start = text.rfind("\n", 0, j + 1) + 1
        line = text[line_start:j + 1]
        c = line.find("//")
        if c != -1 and '"' not in line[:c]:
            j = line_start + c - 1
            continue
        return j
    return -1


def skip_forward(text, i):
    """Index of the first character at or after i that is not whitespace or a comment."""
    n = len(text)
    while i < n:
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            e = text.find("\n", i)
            i = n if e == -1 else e + 1
        elif text.startswith("/*", i):
            e = text.find("*/", i + 2)
            i = n if e == -1 else e + 2
        else:
            return i
    return n


def enclosing_call(text, i):
    """The name of the function whose unclosed '(' encloses position i (within 400 chars)."""
    depth = 0
    j = i - 1
    lo = max(0, i - 400)
    while j >= lo:
        ch = text[j]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                m = re.search(r"([A-Za-z_][A-Za-z0-9_:]*)\s*(?:<[^<>()]*>)?\s*$", text[lo:j])
                return m.group(1).split("::")[-1] if m else ""
            depth -= 1
        elif ch in ";{}":
            return ""
        j -= 1
    return ""


def raw_literals(text):
    """(start, end, body) of every raw string literal; start is the R, end just past the quote."""
    out = []
    pos = 0
    while True:
        m = RAW_OPEN.search(text, pos)
        if not m:
            return out
        # Skip matches inside // comments.
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "//" in text[line_start:m.start()] and '"' not in text[line_start:m.start()]:
            pos = m.end()
            continue
        close = ")" + m.group(1) + '"'
        e = text.find(close, m.end())
        if e == -1:
            return out
        out.append((m.start(), e + len(close), text[m.end():e]))
        pos = e + len(close)


def classify_context(text, start, end, body):
    """'whole', or why the literal is only a piece of a shader assembled at run time."""
    before = strip_back(text, start)
    prev = text[before] if before >= 0 else ""
    after = skip_forward(text, end)
    nxt = text[after:after + 2]
    if prev == "+" or nxt.startswith("+"):
        return "joined with +"
    if text[max(0, before - 1):before + 1] == "<<" or nxt == "<<":
        return "streamed with <<"
    if nxt.startswith('"') or re.match(r'(?:u8|u|U|L)?R"', text[after:after + 4]):
        return "adjacent literals"
    if prev == '"':
        return "adjacent literals"
    # `std::string shader = R"(...)";` followed by `shader += ...` or `... + shader`.
    assigned = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*$", text[max(0, start - 200):start])
    if assigned:
        name = re.escape(assigned.group(1))
        later = text[end:end + 4000]
        if re.search(r"\b%s\s*\+=|\+\s*%s\b|\b%s\s*\+(?!\+)" % (name, name, name), later):
            return "appended to later (+=, +)"
    call = enclosing_call(text, start)
    if call in FORMAT_CALLS:
        return "formatted (" + call + ")"
    if PLACEHOLDER.search(body):
        return "format placeholder"
    return "whole"


def normalise(message):
    message = re.sub(r"'[^']*'", "'_'", message)
    message = re.sub(r'"[^"]*"', '"_"', message)
    message = re.sub(r"\b\d+(\.\d+)?[uif]?\b", "N", message)
    return message.strip()


DIAG = re.compile(r"error: (\d+):(\d+): (.*)$", re.M)


def expects_error(text, start):
    """Whether the statement holding the literal is wrapped in ASSERT/EXPECT_DEVICE_ERROR."""
    stmt = max(text.rfind(";", 0, start), text.rfind("{", 0, start), text.rfind("}", 0, start))
    return "_DEVICE_ERROR" in text[stmt + 1:start]


def run_wgslc(wgslc, path, timeout):
    try:
        p = subprocess.run([wgslc, path, "--validate"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", "timed out"
    if p.returncode < 0:
        return "crash", "signal %d" % -p.returncode
    if p.returncode == 0:
        return "translates", ""
    output = p.stderr + p.stdout
    messages = [m.group(3) for m in DIAG.finditer(output)]
    first = messages[0] if messages else output.strip().splitlines()[0] if output.strip() else "no message"
    if any("internal error" in m for m in messages):
        return "internal error", first
    if "unsupported in this WGSL subset" in first:
        return "unsupported", first.split("unsupported in this WGSL subset:", 1)[-1].strip()
    return "error", first


def shim_check(tool, whole, shader_dir, top):
    """Pipelines on the shim for every @compute entry point of the shaders that translate."""
    targets = []
    for r in whole:
        if r["class"] != "translates":
            continue
        path = os.path.join(shader_dir, "%s_%d.wgsl" % (r["file"][:-4], r["line"]))
        body = open(path).read()
        for m in re.finditer(r"@compute\b[^{;]*?\bfn\s+([A-Za-z_][A-Za-z0-9_]*)", body):
            targets.append((r, "%s:%s" % (path, m.group(1))))
    p = subprocess.run([tool] + [t for _, t in targets], capture_output=True, text=True, timeout=600)
    results = dict(line.split("\t", 1) for line in p.stdout.splitlines() if "\t" in line)
    ok = 0
    errors = collections.Counter()
    examples = {}
    for r, t in targets:
        verdict = results.get(t, "no answer (exit %d)" % p.returncode)
        r.setdefault("shim", {})[t.rsplit(":", 1)[1]] = verdict
        if verdict == "OK":
            ok += 1
        else:
            key = normalise(re.sub(r"\[[A-Za-z]+ [^\]]*\]", "[_]", verdict))
            errors[key] += 1
            examples.setdefault(key, "%s:%d" % (r["file"], r["line"]))
    print("\nshim: %d compute entry points of the shaders that translate; pipeline created: %d, "
          "error: %d" % (len(targets), ok, len(targets) - ok))
    for msg, n in errors.most_common(top):
        print("  %4d  %s   (e.g. %s)" % (n, msg[:110], examples[msg]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dawn")
    ap.add_argument("--wgslc", default=os.path.join(os.path.dirname(__file__), "..", "build", "wgsl_subset", "wgslc"))
    ap.add_argument("--out", default="out/dawn-e2e-shaders")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--shim", help="build/tests/dawn_programs/dawn_pipeline_check: also create a "
                    "pipeline (layout auto) on the shim for each @compute entry point of each "
                    "shader that translates")
    args = ap.parse_args()
    folder = args.dawn
    if os.path.isdir(os.path.join(folder, "src/dawn/tests/end2end")):
        folder = os.path.join(folder, "src/dawn/tests/end2end")
    if not os.path.isfile(args.wgslc):
        sys.exit("wgslc not found at %s (--wgslc)" % args.wgslc)
    shader_dir = os.path.join(args.out, "shaders")
    os.makedirs(shader_dir, exist_ok=True)

    records = []
    files = sorted(f for f in os.listdir(folder) if f.endswith(".cpp"))
    for name in files:
        text = open(os.path.join(folder, name), encoding="utf-8", errors="replace").read()
        literals = raw_literals(text)
        # `@compute` in an ordinary "..." string: a piece streamed or joined at run time.
        for m in re.finditer(r"@compute", text):
            if any(s <= m.start() < e for s, e, _ in literals):
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1
            prefix = text[line_start:m.start()]
            if '"' in prefix and "//" not in prefix.split('"')[0]:
                records.append({"file": name, "line": text.count("\n", 0, m.start()) + 1,
                                "context": "ordinary string piece"})
        for start, end, body in literals:
            if "@compute" not in body:
                continue
            line = text.count("\n", 0, start) + 1
            context = classify_context(text, start, end, body)
            rec = {"file": name, "line": line, "context": context}
            if context == "whole":
                path = os.path.join(shader_dir, "%s_%d.wgsl" % (name[:-4], line))
                with open(path, "w") as f:
                    f.write(body)
                rec["class"], rec["message"] = run_wgslc(args.wgslc, path, args.timeout)
                if rec["message"].startswith("'enable' directive"):  # name the extensions
                    rec["message"] += " (" + ", ".join(sorted(set(
                        e.strip() for m in re.finditer(r"\benable\s+([^;]+);", body)
                        for e in m.group(1).split(",")))) + ")"
                rec["render"] = bool(re.search(r"@(vertex|fragment)\b", body))
                rec["dawnExpectsError"] = expects_error(text, start)
            records.append(rec)

    whole = [r for r in records if r["context"] == "whole"]
    assembled = [r for r in records if r["context"] != "whole"]
    classes = collections.Counter(r["class"] for r in whole)
    print("Dawn end2end: %d files, %d shader texts with @compute (raw literals and string pieces)" % (
        len(files), len(records)))
    print("  whole shaders: %d (%d unique texts); assembled at run time (skipped): %d" % (
        len(whole), len({open(os.path.join(shader_dir, "%s_%d.wgsl" % (r["file"][:-4], r["line"]))).read()
                          for r in whole}), len(assembled)))
    for why, n in collections.Counter(r["context"] for r in assembled).most_common():
        print("    %-28s %d" % (why, n))
    for c in ("translates", "unsupported", "error", "internal error", "crash", "hang"):
        expected = sum(1 for r in whole if r["class"] == c and r["dawnExpectsError"])
        print("  %-15s %d%s" % (c, classes.get(c, 0),
                                "  (%d of them in ASSERT_DEVICE_ERROR)" % expected if expected else ""))
    for c in ("unsupported", "error", "internal error", "crash", "hang"):
        key = (lambda m: re.sub(r"\b\d+\b", "N", m)) if c == "unsupported" else normalise
        hist = collections.Counter(key(r["message"]) for r in whole if r["class"] == c)
        if not hist:
            continue
        print("\n%s reasons:" % c)
        examples = {}
        for r in whole:
            if r["class"] == c:
                examples.setdefault(key(r["message"]), "%s:%d" % (r["file"], r["line"]))
        for msg, n in hist.most_common(args.top):
            print("  %4d  %s   (e.g. %s)" % (n, msg[:110], examples[msg]))
    if args.shim:
        shim_check(args.shim, whole, shader_dir, args.top)
    by_file = collections.defaultdict(collections.Counter)
    for r in records:
        by_file[r["file"]][r.get("class", "assembled")] += 1
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"records": records, "classes": classes,
                   "byFile": {k: dict(v) for k, v in sorted(by_file.items())}}, f, indent=1)
    print("\nper file: %s" % os.path.join(args.out, "summary.json"))


if __name__ == "__main__":
    main()
