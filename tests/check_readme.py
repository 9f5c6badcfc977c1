#!/usr/bin/python3
"""check_readme.py [FILE.md ...]: run the examples of the README and of docs/*.md
and compare their output, so that the documentation cannot drift from the code.

Run from the repository root after `make build/weights.so build/demo/.stamp`:

    /usr/bin/python3 tests/check_readme.py README.md docs/*.md tests/README.md tests/fuzz/README.md

Without arguments it checks those files.  Every command runs from the
repository root, whichever file holds it.

Conventions (what a file must follow for an example to be checked):

1. Transcript: a fenced block without an info string whose first line starts
   with "$ ".  Each "$ COMMAND" line is run with bash from the repository root.
   - If "sqlite> SQL" lines follow it (continued by "   ...> SQL" lines), they
     are the command's standard input, fed to ONE process, and the lines after
     each one, up to the next "sqlite>", "$ " line or the closing fence, are
     exactly what that input prints (a dot-command such as ".mode json" may be
     an input too; its mode carries on, as at the prompt).  Each SQL input
     must be a complete statement (ending with ';').  The shell's banner is
     not shown.
   - Otherwise the lines after the command are exactly its standard output.
   The command must exit with status 0 and write nothing to standard error.
2. ```sh blocks: every line that starts with "sqlite3 " (after an optional
   "$ "; a trailing "\\" continues it) is run with bash from the repository
   root and must exit with status 0 without writing to standard error.  Other
   lines (make, sudo, ...) are not run.  So use build/demo files in them.
3. ```python blocks run with /usr/bin/python3 from the repository root, with
   python/ on PYTHONPATH (import sqlite_weights loads build/weights.so), and
   must exit 0 without writing to standard error; ```js blocks run with node,
   with NODE_PATH=build/node/node_modules and a folder where sqlite-weights
   links to bindings/node (skipped, saying why, when node or build/node is
   missing: tests/node_test.sh installs it).  If the next
   fenced block (only blank lines between) is a ```text block, it is exactly
   the program's standard output.
4. ```sql blocks (examples on files that are not there: remote paths, your
   own folders) are not run: each statement is prepared, as EXPLAIN STATEMENT,
   on a connection with build/weights loaded, so every table, column and
   function it names must exist and take that many arguments.  Statements
   end with ';'; comments are allowed.
5. In commands, the installed module path /usr/local/lib/sqlite-weights/weights
   is replaced by the absolute path of build/weights, so install one-liners are
   checked too (tests/install_test.sh checks the installed file itself).

Output is compared line by line, ignoring trailing whitespace at the end of
lines and blank lines at the end.  Other fenced blocks (error messages,
tables of values) are listed as not checked.  A file's statement of the
version ("The version of the module, `X`") must match the Makefile's VERSION.

Every relative link of a file, [text](path) or [text](path#anchor) outside
fenced blocks, must name a file or folder that exists (relative to the file),
and an anchor a heading of that Markdown file (as GitHub makes anchors:
lower case, punctuation dropped, spaces as '-').

tests/README.md, the map of the tests, must name every test: each
tests/*.test, tests/*_test.c, *_test.py and *_test.sh, and each
tests/fuzz/fuzz_*.c, by its name without the extension.

Last line: "readme: N passed, M failed, K not checked"; exit status 1 if
anything failed or nothing was checked.
"""

import difflib
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys

DOCS = sys.argv[1:] or ["README.md"] + sorted(glob.glob("docs/*.md")) + ["tests/README.md", "tests/fuzz/README.md"]
README = DOCS[0]  # the file being checked
ROOT = os.getcwd()
INSTALLED = "/usr/local/lib/sqlite-weights/weights"
LOCAL = os.path.join(ROOT, "build", "weights")
MARK = "@@check_readme:end-of-input@@"
TIMEOUT = 120

passed = failed = unchecked = 0
sql_conn = None  # the connection ```sql blocks are prepared on


def report(ok, where, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok:     %s: %s" % (where, what))
    else:
        failed += 1
        print("FAILED: %s: %s" % (where, what))
        if detail:
            print("  " + detail.rstrip("\n").replace("\n", "\n  "))


def norm(lines):
    out = [l.rstrip() for l in lines]
    while out and out[-1] == "":
        out.pop()
    return out


def diff(expected, actual):
    return "\n".join(difflib.unified_diff(expected, actual, README + " (expected)", "actual", lineterm="", n=2))


def run(cmd, stdin="", env=None, argv=None):
    """Run cmd (a bash command line, or argv) from the repository root."""
    cmd = cmd.replace(INSTALLED, LOCAL) if cmd else cmd
    try:
        p = subprocess.run(argv or ["bash", "-o", "pipefail", "-c", cmd], input=stdin, capture_output=True,
                           text=True, cwd=ROOT, env=env, timeout=TIMEOUT, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % TIMEOUT
    return p.returncode, p.stdout, p.stderr


def status_problem(rc, err):
    if rc is None:
        return err
    if rc != 0:
        return "exit status %d%s" % (rc, " (killed by signal %d)" % -rc if rc < 0 else "") + \
               (": " + err.strip() if err.strip() else "")
    if err:
        return "wrote to standard error: " + err.strip()
    return None


def parse_blocks(text, quiet=False):
    """Fenced blocks: (first line number, info string, lines, last line number)."""
    blocks, cur = [], None
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        m = re.match(r"^ {0,3}(```+)\s*(\S*)", line)
        if cur is None and m:
            cur = (i, m.group(2), [], m.group(1))
        elif cur is not None and re.match(r"^ {0,3}" + cur[3] + r"\s*$", line):
            blocks.append((cur[0], cur[1], cur[2], i))
            cur = None
        elif cur is not None:
            cur[2].append(line)
    if cur is not None and not quiet:
        report(False, "%s:%d" % (README, cur[0]), "fenced block never closed")
    return blocks


def check_transcript(start, lines):
    # Split into commands: [(line number, command, [items])]; an item is
    # (line number, input or None, [expected output lines]).
    cmds = []
    for k, line in enumerate(lines):
        n = start + 1 + k
        if line.startswith("$ "):
            cmds.append([n, line[2:], []])
        elif line.startswith("sqlite> "):
            cmds[-1][2].append([n, line[len("sqlite> "):], []])
        elif re.match(r"^ *\.\.\.>( |$)", line) and cmds[-1][2] and cmds[-1][2][-1][1] is not None \
                and not cmds[-1][2][-1][2]:
            cmds[-1][2][-1][1] += "\n" + re.sub(r"^ *\.\.\.>( |$)", "", line)
        else:
            if not cmds[-1][2]:
                cmds[-1][2].append([n, None, []])
            cmds[-1][2][-1][2].append(line)
    for n, cmd, items in cmds:
        where = "%s:%d" % (README, n)
        inputs = [it for it in items if it[1] is not None]
        if not inputs:
            rc, out, err = run(cmd)
            problem = status_problem(rc, err)
            expected = norm(items[0][2]) if items else []
            if problem:
                report(False, where, cmd, problem)
            else:
                actual = norm(out.split("\n"))
                report(actual == expected, where, cmd, diff(expected, actual))
            continue
        if items[0][1] is None and norm(items[0][2]):
            report(False, where, cmd, "output lines before the first sqlite> input")
            continue
        stdin = ""
        bad = False
        for it in inputs:
            sql = it[1]
            if not sql.lstrip().startswith(".") and not sqlite3.complete_statement(sql):
                report(False, "%s:%d" % (README, it[0]), "incomplete SQL statement (missing ';'?)", sql)
                bad = True
            stdin += sql + "\n.print " + MARK + "\n"
        if bad:
            continue
        rc, out, err = run(cmd, stdin)
        problem = status_problem(rc, err)
        chunks = out.split(MARK + "\n")
        for i, it in enumerate(inputs):
            w = "%s:%d" % (README, it[0])
            label = it[1].split("\n")[0] + (" ..." if "\n" in it[1] else "")
            expected = norm(it[2])
            if i >= len(chunks) - 1:
                report(False, w, label, "no output for this input: " + (problem or "the output ended early"))
                continue
            actual = norm(chunks[i].split("\n"))
            report(actual == expected, w, label, diff(expected, actual))
        if problem:
            report(False, where, cmd, problem)


def check_sh(start, lines):
    cmd, first = "", None
    for k, line in enumerate(lines):
        if first is None:
            first = start + 1 + k
            line = re.sub(r"^\$ ", "", line)
        if line.endswith("\\"):
            cmd += line[:-1] + " "
            continue
        cmd += line
        if cmd.lstrip().startswith("sqlite3 "):
            rc, out, err = run(cmd.strip())
            report(status_problem(rc, err) is None, "%s:%d" % (README, first), cmd.strip(),
                   status_problem(rc, err) or "")
        cmd, first = "", None


def check_program(start, info, lines, expected):
    where = "%s:%d" % (README, start)
    src = "\n".join(lines) + "\n"
    if info == "python":
        argv = ["/usr/bin/python3", "-c", src.replace(INSTALLED, LOCAL)]
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))  # sqlite_weights, from the tree
    else:
        node = shutil.which("node")
        mods = os.path.join(ROOT, "build", "node", "node_modules")
        if node is None:
            skip_block(start, "js", "node not found")
            return
        if not os.path.isdir(os.path.join(mods, "better-sqlite3")):
            skip_block(start, "js", "build/node/node_modules/better-sqlite3 not found (tests/node_test.sh installs it)")
            return
        # require('sqlite-weights'): the package of bindings/node, linked as npm would.
        linked = os.path.join(ROOT, "build", "readme-node")
        os.makedirs(linked, exist_ok=True)
        if not os.path.islink(os.path.join(linked, "sqlite-weights")):
            os.symlink(os.path.join(ROOT, "bindings", "node"), os.path.join(linked, "sqlite-weights"))
        argv = [node, "-e", src.replace(INSTALLED, LOCAL)]
        env = dict(os.environ, NODE_PATH=mods + os.pathsep + linked)
    rc, out, err = run(None, env=env, argv=argv)
    problem = status_problem(rc, err)
    if problem:
        report(False, where, "```%s block" % info, problem + ("\n" + out if out else ""))
    elif expected is None:
        report(True, where, "```%s block runs (exit 0, no output shown)" % info)
    else:
        actual = norm(out.split("\n"))
        report(actual == norm(expected), where, "```%s block prints the ```text block after it" % info,
               diff(norm(expected), actual))


def skip_block(start, info, reason):
    global unchecked
    unchecked += 1
    print("skip:   %s:%d: ```%s block not checked: %s" % (README, start, info, reason))


def check_sql(start, lines):
    """Prepare each statement of a ```sql block (EXPLAIN) with the module loaded."""
    global sql_conn
    if sql_conn is None:
        sql_conn = sqlite3.connect(":memory:")
        sql_conn.enable_load_extension(True)
        sql_conn.load_extension(LOCAL)
        sql_conn.enable_load_extension(False)
    stmt, first = "", None
    for k, line in enumerate(lines):
        if not stmt.strip():
            first = start + 1 + k
        stmt += line + "\n"
        if not sqlite3.complete_statement(stmt):
            continue
        label = next(l for l in stmt.split("\n") if l.strip() and not l.lstrip().startswith("--")).strip()
        try:
            sql_conn.execute("EXPLAIN " + stmt)
            report(True, "%s:%d" % (README, first), "prepares: " + label)
        except sqlite3.Error as e:
            report(False, "%s:%d" % (README, first), "prepares: " + label, str(e))
        stmt = ""
    if stmt.strip():
        report(False, "%s:%d" % (README, first or start), "incomplete SQL statement (missing ';'?)", stmt)


def anchor(heading):
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    """Every anchor of a Markdown file (a repeated heading gets -1, -2, ...)."""
    with open(path) as f:
        text = f.read()
    fenced = {n for start, _, _, end in parse_blocks(text, quiet=True) for n in range(start, end + 1)}
    seen, out = {}, set()
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m and n not in fenced:
            a = anchor(m.group(1))
            out.add(a if a not in seen else "%s-%d" % (a, seen[a]))
            seen[a] = seen.get(a, 0) + 1
    return out


def check_links(text, blocks):
    """Every relative link names a file that exists, and an anchor one of its headings."""
    fenced = {n for start, _, _, end in blocks for n in range(start, end + 1)}
    here = os.path.dirname(README)
    for n, line in enumerate(text.split("\n"), 1):
        if n in fenced:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto:
            path, _, frag = target.partition("#")
            full = os.path.normpath(os.path.join(here, path)) if path else README
            where = "%s:%d" % (README, n)
            if not os.path.exists(full):
                report(False, where, "link " + target, "no such file: " + full)
            elif frag and full.endswith(".md"):
                report(frag in anchors(full), where, "link " + target, "no heading of %s has the anchor #%s" % (full, frag))
            else:
                report(True, where, "link " + target)


def check_file():
    """Check every example and link of README (the file being checked)."""
    with open(README) as f:
        text = f.read()
    src_lines = text.split("\n")
    blocks = parse_blocks(text)
    used_as_output = set()
    for idx, (start, info, lines, end) in enumerate(blocks):
        if idx in used_as_output:
            continue
        if info in ("python", "js"):
            expected = None
            if idx + 1 < len(blocks):
                nstart, ninfo, nlines, _ = blocks[idx + 1]
                between = src_lines[end:nstart - 1]
                if ninfo == "text" and all(not l.strip() for l in between):
                    expected = nlines
                    used_as_output.add(idx + 1)
            check_program(start, info, lines, expected)
        elif info == "sh":
            check_sh(start, lines)
        elif info == "sql":
            check_sql(start, lines)
        elif info == "" and lines and lines[0].startswith("$ "):
            check_transcript(start, lines)
        else:
            skip_block(start, info, "not an example (no `$ ` command, not sh/sql/python/js)")
    check_links(text, blocks)

    # The version the file states.
    with open("Makefile") as f:
        m = re.search(r"^VERSION\s*:?=\s*(\S+)\s*$", f.read(), re.M)
    stated = re.findall(r"The version of the module, `([^`]*)`", text)
    if stated:
        report(m is not None and all(v == m.group(1) for v in stated), README,
               "states the Makefile's VERSION (%s)" % (m.group(1) if m else "?"), "%s says %s" % (README, stated))
    if README == "tests/README.md":
        check_test_map(text)


# What tests/README.md must name: every test, by its name without the extension.
TEST_FILES = ["tests/*.test", "tests/*_test.c", "tests/*_test.py", "tests/*_test.sh", "tests/fuzz/fuzz_*.c"]


def check_test_map(text):
    """Every test file is named in tests/README.md (one check per file)."""
    for pattern in TEST_FILES:
        for path in sorted(glob.glob(pattern)):
            stem = os.path.basename(path).rsplit(".", 1)[0]
            named = re.search(r"(?<!\w)%s(?!\w)" % re.escape(stem), text) is not None
            report(named, README, "names %s" % path, "add it to the row of the feature it tests")


def main():
    global README
    for README in DOCS:
        check_file()
    print("readme: %d passed, %d failed, %d not checked" % (passed, failed, unchecked))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
