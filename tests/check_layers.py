#!/usr/bin/env python3
"""check_layers.py OBJDIR: the layers of ext/ as ext/README.md draws them.

Three checks, each able to fail:
1. Includes: every `#include "folder/..."` of a file in ext/FOLDER is of a
   folder that FOLDER may use (the table below, the same as ext/README.md's
   "may call" column), and nothing outside ext/sql and ext/weights.c
   includes SQLite.
2. Calls: the object files of the module (OBJDIR, e.g. build/obj), linked by
   which defines a symbol that another uses (nm), have no cycle: no two
   files call each other, directly or round a longer circle, and no call
   goes from a lower layer to a higher one.
3. The map: ext/README.md's table has a row for every folder of ext/ (and
   no other), each row names every file of its folder (as `stem`,
   `stem.c` or `stem.h`), and every `file.c` or `file.h` a row names
   without a folder is in that folder (ext/weights.c, the entry point, in
   the sql/ row).
Prints "layers: N passed, M failed" and exits 1 on any failure.
"""
import os
import re
import subprocess
import sys

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
    "sql": {"base", "formats", "decode", "plan", "report", "bytes", "remote", "paths", "write"},
}
SQLITE_OK_IN = {"sql"}

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


def symbols(obj):
    """(defined, undefined) global symbol names of an object file."""
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


def family(objdir, obj):
    """The module of an object file: "folder/stem", or "folder/X_int" for every
    file that includes the folder's private header X_int.h (or X_internal.h)."""
    rel = os.path.relpath(obj, objdir)[:-2]
    src = os.path.join(EXT, rel + ".c")
    if os.path.exists(src):
        with open(src, encoding="utf-8") as f:
            m = re.search(r'^#include "([a-z_]+_int(?:ernal)?)\.h"', f.read(), re.M)
        if m:
            return os.path.dirname(rel) + "/" + m.group(1)
    return rel


def check_calls(objdir):
    objs = []
    for dirpath, _, names in os.walk(objdir):
        objs += [os.path.join(dirpath, n) for n in names if n.endswith(".o")]
    # only the objects of today's sources (a moved file leaves its old .o behind)
    objs = [o for o in objs if os.path.exists(os.path.join(EXT, os.path.relpath(o, objdir)[:-2] + ".c"))]
    if not objs:
        return 0, ["%s holds no object files: build the module first" % objdir]
    # The files that share a private header (paths_int.h, http_int.h, ...)
    # are one module: they may call each other.
    module = {o: family(objdir, o) for o in objs}
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


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "obj")
    n_inc, f_inc = check_includes()
    n_call, f_call = check_calls(objdir)
    n_map, f_map = check_map()
    failures = f_inc + f_call + f_map
    for f in failures:
        print("layers: " + f, file=sys.stderr)
    print("layers: %d includes, %d calls between files and %d files in ext/README.md's map checked" % (n_inc, n_call, n_map))
    n_failed = bool(f_inc) + bool(f_call) + bool(f_map)
    print("layers: %d passed, %d failed" % (3 - n_failed, n_failed))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
