#!/usr/bin/env python3
"""check_layers.py [OBJDIR] | --self-test: the layers of ext/ as ext/README.md
draws them, and the promises of the tree that a machine can keep.

Seven checks, each able to fail:
1. Includes: every `#include "folder/..."` of a file in ext/FOLDER is of a
   folder that FOLDER may use (the table below, the same as ext/README.md's
   "may call" column), and nothing outside ext/sql and ext/weights.c
   includes SQLite.
2. Calls: the object files of the module (OBJDIR, e.g. build/obj), linked by
   which defines a symbol that another uses (nm), have no cycle: no two
   files call each other, directly or round a longer circle, inside a
   folder as between folders, and no call goes from a lower layer to a
   higher one.
3. The map: ext/README.md's diagram draws every folder of ext/ (as
   "folder/") and weights.c; its table has a row for every folder of ext/
   (and no other), each row names every file of its folder (as `stem`,
   `stem.c` or `stem.h`), and every `file.c` or `file.h` a row names
   without a folder is in that folder (ext/weights.c, the entry point, in
   the sql/ row).
4. Lengths: no .c or .h file of ext/ over MAX_LINES lines (the generated
   data tables of LONG_TABLES aside).
5. The SQL layer's share: ext/sql/ and ext/weights.c hold at most
   MAX_SQL_SHARE of the lines of ext/ (ext/README.md says why).
6. Comments: no line of a .c or .h file of ext/ or tests/ is a "**" line
   that lost its "**" (a line starting with a bare "*" and text, as
   clang-format's reflow broke them), and .clang-format says
   ReflowComments: false (and, where clang-format is installed, a long
   "**" block goes through it unchanged).
7. Labels: each label of formats/gguf_parser.c's checklist (H1-H4, K1-K8,
   ...) appears in a comment of formats/gguf_*.c outside that checklist,
   at the check it names.
Prints "layers: N passed, M failed" and exits 1 on any failure.

--self-test copies ext/ into a temporary folder, plants a violation of
each check in its own copy (an include of SQLite below sql/, two files of
plan/ that call each other, a file the map does not name, a folder the
diagram does not draw, a file of 701 lines, sql/ files that take its share
past the bound, a broken "**" line, a .clang-format that reflows, a label
taken off its check), builds what the call
check needs, and expects each check, and only that one, to fail; it prints
"layers self-test: N passed, M failed".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Which folders the files of each folder may include and call.
MAY_USE = {
    "base": set(),
    "formats": {"base"},
    "decode": {"base", "formats"},
    "plan": {"base", "formats"},
    "report": {"base", "formats", "decode"},
    "bytes": {"base", "formats"},
    "remote": {"base", "formats", "bytes"},
    "paths": {"base", "formats", "bytes", "remote"},
    "write": {"base", "formats", "bytes"},
    "convert": {"base", "formats", "decode", "bytes", "remote", "paths", "write"},
    "sql": {"base", "formats", "decode", "plan", "report", "bytes", "remote", "paths", "write", "convert"},
}
SQLITE_OK_IN = {"sql"}

# No source file may be longer, but for generated data tables.
MAX_LINES = 700
LONG_TABLES = {"decode/iq_grids.c"}  # the IQ codebooks, written by tests/gen_iq_grids.py

# The most of ext/'s lines that ext/sql/ and ext/weights.c may hold.
MAX_SQL_SHARE = 0.20

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EXT = os.path.join(ROOT, "ext")


def folder_of(path):
    """ext/FOLDER/x.c -> FOLDER; ext/weights.c -> sql (it is the sql layer's entry point)."""
    rel = os.path.relpath(path, EXT)
    return rel.split(os.sep)[0] if os.sep in rel else "sql"


def check_includes():
    failures, checked = [], 0
    for dirpath, _, names in os.walk(EXT):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            me = folder_of(path)
            if me not in MAY_USE:
                failures.append("%s: folder %s is not in the layer table" % (path, me))
                continue
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s*[<"]([^">]+)[">]', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    checked += 1
                    if inc.startswith("sqlite3") and me not in SQLITE_OK_IN:
                        failures.append("%s:%d: includes %s below sql/" % (path, lineno, inc))
                    if "/" in inc and line.lstrip().startswith('#include "'):
                        other = inc.split("/")[0]
                        if other != me and other not in MAY_USE[me]:
                            failures.append("%s:%d: %s/ may not include %s" % (path, lineno, me, inc))
    return checked, failures


def check_map():
    """ext/README.md's table against the files of each folder."""
    rows, failures, checked = {}, [], 0
    with open(os.path.join(EXT, "README.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\| `([a-z]+)/` \|(.*)\|[^|]*\|\s*$", line)
            if m:
                rows[m.group(1)] = m.group(2)
    folders = sorted(d for d in os.listdir(EXT) if os.path.isdir(os.path.join(EXT, d)))
    with open(os.path.join(EXT, "README.md"), encoding="utf-8") as f:
        drawing = f.read().split("```")
    drawing = drawing[1] if len(drawing) > 2 else ""
    for name in [d + "/" for d in folders] + ["weights.c"]:
        checked += 1
        if not re.search(r"(?<![\w/])%s" % re.escape(name), drawing):
            failures.append("ext/README.md: the diagram does not draw %s" % name)
    for d in sorted(set(folders) ^ set(rows)):
        failures.append("ext/README.md: %s" % ("no row for folder %s/" % d if d in folders else "a row for %s/, which is not a folder" % d))
    for folder in sorted(set(folders) & set(rows)):
        words = set()
        for quoted in re.findall(r"`([^`]+)`", rows[folder]):
            words |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_./]*[A-Za-z0-9_]", quoted))
        files = sorted(n for n in os.listdir(os.path.join(EXT, folder)) if n.endswith((".c", ".h")))
        for name in files:
            checked += 1
            stem = name.rsplit(".", 1)[0]
            if not words & {stem, stem + ".c", stem + ".h"}:
                failures.append("ext/README.md: the %s/ row does not name %s" % (folder, name))
        extra = set(files) | ({"weights.c"} if folder == "sql" else set())
        for word in sorted(words):
            if re.fullmatch(r"[a-z0-9_]+\.[ch]", word) and word not in extra:
                failures.append("ext/README.md: the %s/ row names %s, which is not in ext/%s/" % (folder, word, folder))
    return checked, failures


_symbols_seen = {}


def symbols(obj):
    """(defined, undefined) global symbol names of an object file (read once
    per file: the self-test's copies are links to the same inodes)."""
    st = os.stat(obj)
    key = (st.st_dev, st.st_ino, st.st_mtime_ns)
    if key not in _symbols_seen:
        _symbols_seen[key] = _read_symbols(obj)
    return _symbols_seen[key]


def _read_symbols(obj):
    out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCVW":
            defined.add(parts[2])
    return defined, undefined


# sqlite3_api: the pointer SQLITE_EXTENSION_INIT1 defines in weights.c and
# every sql/ file reads (SQLITE_EXTENSION_INIT3): data, not a call.
SHARED_DATA = {"sqlite3_api"}


def check_calls(objdir):
    objs = []
    for dirpath, _, names in os.walk(objdir):
        objs += [os.path.join(dirpath, n) for n in names if n.endswith(".o")]
    # only the objects of today's sources (a moved file leaves its old .o behind)
    objs = [o for o in objs if os.path.exists(os.path.join(EXT, os.path.relpath(o, objdir)[:-2] + ".c"))]
    if not objs:
        return 0, ["%s holds no object files: build the module first" % objdir]
    # Each file is a module of its own: files that share a private header
    # (paths_int.h, http_int.h, ...) may not call each other round a circle
    # either.
    module = {o: os.path.relpath(o, objdir)[:-2] for o in objs}
    owner, uses = {}, {}
    for o in objs:
        d, u = symbols(o)
        for s in d:
            owner[s] = module[o]
        uses[module[o]] = uses.get(module[o], set()) | (u - SHARED_DATA)
    mods = sorted(uses)
    edges = {m: sorted({owner[s] for s in uses[m] if s in owner and owner[s] != m}) for m in mods}
    failures = []
    name = lambda m: m
    layer = lambda m: m.split("/")[0] if "/" in m else "sql"
    objs = mods
    for o in objs:
        for t in edges[o]:
            if layer(t) != layer(o) and layer(t) not in MAY_USE.get(layer(o), set()):
                failures.append("%s calls %s: %s/ may not call %s/" % (name(o), name(t), layer(o), layer(t)))
    # a cycle: depth-first search with colours
    colour, stack = {}, []

    def visit(o):
        colour[o] = 1
        stack.append(o)
        for t in edges[o]:
            if colour.get(t) == 1:
                cyc = stack[stack.index(t):] + [t]
                failures.append("call circle: " + " -> ".join(name(c) for c in cyc))
            elif t not in colour:
                visit(t)
        stack.pop()
        colour[o] = 2

    sys.setrecursionlimit(10000)
    for o in sorted(objs):
        if o not in colour:
            visit(o)
    return sum(len(e) for e in edges.values()), failures


def sources():
    """The .c and .h files of ext/, as paths relative to it."""
    out = []
    for dirpath, _, names in os.walk(EXT):
        out += [os.path.relpath(os.path.join(dirpath, n), EXT) for n in names if n.endswith((".c", ".h"))]
    return sorted(out)


def line_count(rel):
    with open(os.path.join(EXT, rel), encoding="utf-8") as f:
        return sum(1 for _ in f)


def check_lengths():
    failures, files = [], sources()
    for rel in files:
        n = line_count(rel)
        if n > MAX_LINES and rel not in LONG_TABLES:
            failures.append("ext/%s has %d lines, more than %d: split it by what its parts do" % (rel, n, MAX_LINES))
    return len(files), failures


def check_sql_share():
    """ext/sql/ and ext/weights.c against MAX_SQL_SHARE of ext/'s lines; the share too."""
    total = sql = 0
    for rel in sources():
        n = line_count(rel)
        total += n
        if folder_of(os.path.join(EXT, rel)) == "sql":
            sql += n
    share = sql / total if total else 0.0
    failures = []
    if share > MAX_SQL_SHARE:
        failures.append("ext/sql/ and ext/weights.c hold %d of ext/'s %d lines (%.1f%%), more than %.0f%%: "
                        "a job lives in the SQL layer" % (sql, total, 100 * share, 100 * MAX_SQL_SHARE))
    return share, failures


# ---- The tree's comments: SQLite's "**" blocks, kept whole ----

# A line of a "/* ** */" block that clang-format's reflow broke: it starts
# with a bare "*" followed by text (not "**", not the closing "*/").
BROKEN_COMMENT = re.compile(r"^\*[^*/]")
# A "**" line longer than ColumnLimit, to try clang-format on.
LONG_COMMENT = ("/*\n** " + "a comment of SQLite's style " * 5 + "ends here.\n*/\n"
                "static int f(void) {\n  /* one\n  ** " + "inside a function " * 6 + "too.\n  */\n"
                "  return 0;\n}\n")


def c_files(top):
    """The .c and .h files below top, as paths."""
    out = []
    for dirpath, _, names in os.walk(top):
        out += [os.path.join(dirpath, n) for n in names if n.endswith((".c", ".h"))]
    return sorted(out)


def check_comments():
    """No broken "**" line in ext/ and tests/; .clang-format cannot make one
    (ReflowComments: false, and, where clang-format is installed, a long
    "**" block goes through it unchanged)."""
    root = os.path.dirname(EXT)
    failures, files = [], c_files(EXT) + c_files(os.path.join(root, "tests"))
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                if BROKEN_COMMENT.match(line):
                    failures.append("%s:%d: a comment line that lost its \"**\" (a reflow broke it): "
                                    "join it to the line above" % (os.path.relpath(path, root), lineno))
    style = os.path.join(root, ".clang-format")
    text = open(style, encoding="utf-8").read() if os.path.exists(style) else ""
    if not re.search(r"^ReflowComments:\s*false\s*$", text, re.M):
        failures.append(".clang-format: ReflowComments is not false: `make format` would break "
                        "the \"**\" comments")
    elif shutil.which("clang-format"):
        out = subprocess.run(["clang-format", "--style=file:" + style, "--assume-filename=x.c"],
                             input=LONG_COMMENT, capture_output=True, text=True)
        got = [l.strip() for l in out.stdout.splitlines() if l.strip().startswith(("**", "/*"))]
        want = [l.strip() for l in LONG_COMMENT.splitlines() if l.strip().startswith(("**", "/*"))]
        if out.returncode != 0 or got != want:
            failures.append(".clang-format: clang-format changes a long \"**\" comment block")
    return len(files), failures


# ---- The GGUF parser's labels: a grep for one a test names finds its check ----

def gguf_labels():
    """The labels formats/gguf_parser.c's top comment promises ("H1-H4", "D1", ...),
    expanded, with the line range of that comment."""
    path = os.path.join(EXT, "formats", "gguf_parser.c")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    end = next(i for i, l in enumerate(lines) if l.startswith("*/"))
    labels = []
    for line in lines[:end]:
        m = re.match(r"\*\*\s+([A-Z])(\d)(?:-[A-Z](\d))?\s{2,}", line)
        if m:
            last = int(m.group(3) or m.group(2))
            labels += ["%s%d" % (m.group(1), k) for k in range(int(m.group(2)), last + 1)]
    return labels, end


def check_labels():
    """Each label of the parser's checklist appears in a comment of formats/gguf_*.c
    other than the checklist itself, where its check is made."""
    labels, end = gguf_labels()
    failures = []
    if not labels:
        return 0, ["formats/gguf_parser.c: its top comment lists no labels (H1-H4, ...)"]
    text = []
    for name in sorted(os.listdir(os.path.join(EXT, "formats"))):
        if re.fullmatch(r"gguf_\w+\.[ch]", name):
            with open(os.path.join(EXT, "formats", name), encoding="utf-8") as f:
                lines = f.read().split("\n")
            if name == "gguf_parser.c":
                lines = lines[end + 1:]
            text += [l for l in lines if "/*" in l or l.lstrip().startswith("**")]
    for label in labels:
        if not any(re.search(r"\b%s\b" % label, l) for l in text):
            failures.append("formats/gguf_parser.c promises label %s at its check, and no comment of "
                            "formats/gguf_*.c names it" % label)
    return len(labels), failures


def run_checks(objdir):
    """Every check: [(name, count, failures)] and the SQL share."""
    n_inc, f_inc = check_includes()
    n_call, f_call = check_calls(objdir)
    n_map, f_map = check_map()
    n_len, f_len = check_lengths()
    share, f_share = check_sql_share()
    n_com, f_com = check_comments()
    n_lab, f_lab = check_labels()
    return [("includes", n_inc, f_inc), ("calls", n_call, f_call), ("map", n_map, f_map),
            ("lengths", n_len, f_len), ("sql share", 1, f_share), ("comments", n_com, f_com),
            ("labels", n_lab, f_lab)], share


# ---- The self-test: each check fails on a violation planted in a copy ----

def compile_objects(ext, objdir, rels):
    """Compile ext/REL.c into objdir/REL.o for each rel (the call check's input)."""
    for rel in rels:
        out = os.path.join(objdir, rel + ".o")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run([os.environ.get("CC", "cc"), "-c", "-w", "-I" + ext, "-o", out,
                        os.path.join(ext, rel + ".c")], check=True)


def plant_include(ext, objdir):
    with open(os.path.join(ext, "plan", "memory_plan.c"), "a", encoding="utf-8") as f:
        f.write('\n#include "sqlite3ext.h"\n')


def plant_circle(ext, objdir):
    """Two files of plan/ that call each other (both named in the map)."""
    for me, other in (("planted_a", "planted_b"), ("planted_b", "planted_a")):
        with open(os.path.join(ext, "plan", me + ".c"), "w", encoding="utf-8") as f:
            f.write("int %s(int n);\nint %s(int n) { return n ? %s(n - 1) : 0; }\n" % (other, me, other))
    readme = os.path.join(ext, "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"(\| `plan/` \|)", r"\1 `planted_a`, `planted_b`;", text)
    with open(readme, "w", encoding="utf-8") as f:
        f.write(text)
    compile_objects(ext, objdir, ["plan/planted_a", "plan/planted_b"])


def plant_unmapped(ext, objdir):
    with open(os.path.join(ext, "plan", "unmapped.h"), "w", encoding="utf-8") as f:
        f.write("/* a file the map does not name */\n")


def plant_undrawn(ext, objdir):
    """A folder the diagram does not draw (its table row stays)."""
    readme = os.path.join(ext, "README.md")
    with open(readme, encoding="utf-8") as f:
        head, drawing, tail = f.read().split("```", 2)
    with open(readme, "w", encoding="utf-8") as f:
        f.write(head + "```" + drawing.replace("convert/", "convert ") + "```" + tail)


def plant_long(ext, objdir):
    """A 701-line file of decode/, named in the map."""
    with open(os.path.join(ext, "decode", "decode_stats.c"), "a", encoding="utf-8") as f:
        f.write("\n" * (MAX_LINES + 1 - line_count("decode/decode_stats.c")))


def plant_sql_share(ext, objdir):
    """sql/ files of 600 lines each (none too long, all mapped) until sql/ passes its share."""
    k = 0
    while check_sql_share()[1] == []:
        name = "planted_%d" % k
        with open(os.path.join(ext, "sql", name + ".h"), "w", encoding="utf-8") as f:
            f.write("/* planted */\n" * 600)
        readme = os.path.join(ext, "README.md")
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"(\| `sql/` \|)", r"\1 `%s.h`," % name, text)
        with open(readme, "w", encoding="utf-8") as f:
            f.write(text)
        k += 1


def plant_broken_comment(ext, objdir):
    """A "**" block of decode/ broken as clang-format's reflow broke them."""
    path = os.path.join(ext, "decode", "histogram.h")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("\n** ", "\n*", 1))


def plant_reflow(ext, objdir):
    """A .clang-format that reflows comments again."""
    path = os.path.join(os.path.dirname(ext), ".clang-format")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("ReflowComments: false", "ReflowComments: true"))


def plant_unlabelled(ext, objdir):
    """The K2 check without its label."""
    path = os.path.join(ext, "formats", "gguf_kv.c")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(re.sub(r"\bK2\b", "(unlabelled)", text))


def self_test(objdir):
    global EXT
    plants = [("includes", plant_include), ("calls", plant_circle), ("map", plant_unmapped),
              ("map", plant_undrawn),
              ("lengths", plant_long), ("sql share", plant_sql_share),
              ("comments", plant_broken_comment), ("comments", plant_reflow),
              ("labels", plant_unlabelled)]
    passed = failed = 0
    real = EXT
    clean, _ = run_checks(objdir)
    if any(f for _, _, f in clean):
        print("layers self-test: the tree itself fails a check; run check_layers.py first", file=sys.stderr)
        return 1
    for name, plant in plants:
        tmp = tempfile.mkdtemp(prefix="check_layers.")
        try:
            ext = os.path.join(tmp, "ext")
            shutil.copytree(real, ext)
            shutil.copy(os.path.join(os.path.dirname(real), ".clang-format"), tmp)
            obj = objdir
            if name == "calls":  # new objects go into a copy
                obj = os.path.join(tmp, "obj")
                shutil.copytree(objdir, obj, copy_function=os.link)
            EXT = ext
            plant(ext, obj)
            results, _ = run_checks(obj)
            failing = sorted(n for n, _, f in results if f)
            if failing == [name]:
                passed += 1
            else:
                failed += 1
                print("layers self-test: a planted %s violation made %s fail" % (name, failing or "nothing"),
                      file=sys.stderr)
        finally:
            EXT = real
            shutil.rmtree(tmp)
    print("layers self-test: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        objdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build", "obj")
        sys.exit(self_test(objdir))
    objdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "obj")
    results, share = run_checks(objdir)
    failures = [f for _, _, fs in results for f in fs]
    for f in failures:
        print("layers: " + f, file=sys.stderr)
    counts = {n: c for n, c, _ in results}
    print("layers: %d includes, %d calls between files, %d files in ext/README.md's map, %d "
          "files' lengths, %d files' comments and %d labels of the GGUF parser checked; sql/ holds "
          "%.1f%% of ext/'s lines (at most %.0f%%)" % (
              counts["includes"], counts["calls"], counts["map"], counts["lengths"],
              counts["comments"], counts["labels"], 100 * share, 100 * MAX_SQL_SHARE))
    n_failed = sum(1 for _, _, f in results if f)
    print("layers: %d passed, %d failed" % (len(results) - n_failed, n_failed))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
