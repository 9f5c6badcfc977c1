#!/usr/bin/python3
"""python_test.py [MODULE]: the extension from Python's standard sqlite3 module.

Run from the repository root with Debian's /usr/bin/python3 (the pyenv
python3 first on PATH on some machines has no enable_load_extension):

    /usr/bin/python3 tests/python_test.py build/weights.so

It loads the module the way the README shows (relative path without the
suffix, and absolute path), checks weights_version() against the Makefile's
VERSION, runs every statement of the cookbook (sql/*.sql, and its fixture variants
tests/sql_fixtures/*.sql) through Python and
compares the rows with those the sqlite3 shell prints for the same statement
(.mode json), and checks bound parameters, blobs against the file's bytes,
errors and SQLITE_DIRECTONLY.  Recipes that read ../shared/fixtures are
skipped when that folder is absent (its location is $FIXTURES, default
../shared/fixtures; the recipes' path is replaced by it when it differs).

Every connection is closed before the summary line is printed, so a crash
at sqlite3_close kills the process before "python: N passed, 0 failed" and
make sees the signal.  Exit status: 0 when every check passed, 1 otherwise.
"""

import glob
import json
import math
import os
import re
import sqlite3
import subprocess
import sys

import checks
from checks import ok, skip

MODULE = sys.argv[1] if len(sys.argv) > 1 else "build/weights.so"
DEMO_ST = "build/demo/tiny-llama.safetensors"
DEMO_GGUF = "build/demo/tiny-llama.gguf"
FIXTURES = os.environ.get("FIXTURES") or "../shared/fixtures"
skipped_fixtures = 0  # of the skipped checks: because FIXTURES is absent


def makefile_version():
    with open("Makefile") as f:
        for line in f:
            m = re.match(r"^VERSION\s*:?=\s*(\S+)\s*$", line)
            if m:
                return m.group(1)
    return None


def module_noext(path):
    """'build/weights.so' -> './build/weights': the README's spelling (a
    path with a '/', without the suffix SQLite adds itself)."""
    if path.endswith(".so"):
        path = path[:-3]
    if not os.path.isabs(path) and not path.startswith("./"):
        path = "./" + path
    return path


def connect(load_as):
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(load_as)
    conn.enable_load_extension(False)
    return conn


def split_sql(text):
    """Statements of a .sql file for the sqlite3 shell, without its dot-commands."""
    stmts, cur = [], ""
    for line in text.splitlines(keepends=True):
        if not re.sub(r"--[^\n]*", "", cur).strip() and line.startswith("."):
            continue
        cur += line
        if sqlite3.complete_statement(cur):
            # drop leading comment lines so the statement reads well in messages
            stmts.append(cur.strip())
            cur = ""
    if cur.strip() and re.sub(r"--[^\n]*", "", cur).strip():
        stmts.append(cur.strip())
    return stmts


def shell_rows(before, stmt):
    """The statement's rows as the sqlite3 shell returns them (.mode json),
    after running the statements before it in the same file (their output
    discarded: a recipe may build TEMP tables that later statements use):
    a list of lists of (column, value) pairs, or an error string."""
    script = ".output /dev/null\n" + "\n".join(before) + "\n.output stdout\n" + stmt
    p = subprocess.run(
        ["sqlite3", "-bail", "-cmd", ".load " + module_noext(MODULE), "-cmd", ".mode json", ":memory:"],
        input=script, capture_output=True, text=True, errors="replace")
    if p.returncode != 0 or p.stderr:
        return "sqlite3 exited with status %d: %s" % (p.returncode, p.stderr.strip())
    if not p.stdout.strip():
        return []
    return json.loads(p.stdout, object_pairs_hook=list)


def same_value(py, sh):
    if isinstance(py, float) and isinstance(sh, (int, float)):
        return math.isclose(py, sh, rel_tol=1e-13, abs_tol=0.0)
    if isinstance(py, bytes):
        # .mode json writes a blob's bytes as they are: compare as text
        return py.decode("utf-8", "replace") == sh
    return type(py) is type(sh) and py == sh


def cookbook(load_as):
    """Each recipe on a fresh connection, statement by statement."""
    global skipped_fixtures
    for path in sorted(glob.glob("sql/*.sql")) + sorted(glob.glob("tests/sql_fixtures/*.sql")):
        with open(path) as f:
            text = f.read()
        if "../shared/fixtures/" in text and not os.path.isdir(FIXTURES):
            skip(path, FIXTURES + " not found")  # the whole recipe: its statements build on each other
            skipped_fixtures += 1
            continue
        stmts = split_sql(text.replace("../shared/fixtures", FIXTURES))
        conn = connect(load_as)
        ok(len(stmts) > 0, "%s: has statements" % path)
        for i, stmt in enumerate(stmts, 1):
            what = "%s statement %d" % (path, i)
            try:
                cur = conn.execute(stmt)
                cols = [d[0] for d in cur.description] if cur.description else []
                rows = [list(zip(cols, r)) for r in cur.fetchall()]
            except sqlite3.Error as e:
                ok(False, what, "Python: %s: %s" % (type(e).__name__, e))
                continue
            expect = shell_rows(stmts[:i - 1], stmt)
            if isinstance(expect, str):
                ok(False, what, expect)
                continue
            good = len(rows) == len(expect) and all(
                len(r) == len(e) and all(rc == ec and same_value(rv, ev) for (rc, rv), (ec, ev) in zip(r, e))
                for r, e in zip(rows, expect))
            ok(good, what + ": same %d rows in Python as in the sqlite3 shell" % len(expect),
               "Python %r\n  shell  %r" % (rows[:3], expect[:3]))


def st_header(path):
    """An independent reader of a safetensors header: (data start, {name: entry})."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        hdr = json.loads(f.read(n))
    hdr.pop("__metadata__", None)
    return 8 + n, hdr


def xxhsum_h2(path, offset, length):
    """XXH3-128 of bytes [offset, offset+length) of path, from dd and xxhsum -H2."""
    dd = subprocess.run(["dd", "if=" + path, "bs=1", "skip=%d" % offset, "count=%d" % length,
                         "status=none"], check=True, stdout=subprocess.PIPE)
    out = subprocess.run(["xxhsum", "-H2", "-"], input=dd.stdout, check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return out.split()[0].split("_")[-1]


def models(conn):
    """Models, not files (issue 12): hashes through an index, a folder and part 1
    of a split against xxhsum; params against Python's json; '**' alone, '~';
    a change of mtime alone re-reads; the size check is exact to the byte."""
    trees = "build/testdata/trees"
    if not os.path.isdir(trees + "/sharded_gen"):
        ok(False, "models: %s/sharded_gen is missing (run `make testdata`)" % trees)
        return
    idx = trees + "/sharded_gen/model.safetensors.index.json"
    with open(idx) as f:
        wmap = json.load(f)["weight_map"]
    bad, params = [], 0
    for name, shard in sorted(wmap.items()):
        shard_path = trees + "/sharded_gen/" + shard
        start, hdr = st_header(shard_path)
        b, e = hdr[name]["data_offsets"]
        want = xxhsum_h2(shard_path, start + b, e - b)
        for path in (idx, trees + "/sharded_gen"):
            (got,) = conn.execute("SELECT tensor_hash(?, ?)", (path, name)).fetchone()
            (blob,) = conn.execute("SELECT tensor_blob(?, ?)", (path, name)).fetchone()
            with open(shard_path, "rb") as f:
                f.seek(start + b)
                raw = f.read(e - b)
            if got != want or blob != raw:
                bad.append("%s in %s: %s != %s" % (name, path, got, want))
        n = 1
        for d in hdr[name]["shape"]:
            n *= d
        params += n
    ok(not bad, "tensor_hash/tensor_blob through an index and its folder equal xxhsum -H2 / the bytes",
       "; ".join(bad))
    rows = conn.execute("SELECT params, tensors FROM weights_models(?)", (trees + "/sharded_gen",)).fetchall()
    ok(rows == [(params, len(wmap))], "weights_models params equal Python's count from the headers",
       "%r != %r" % (rows, [(params, len(wmap))]))
    (n_rows, numel) = conn.execute("SELECT count(*), sum(numel) FROM tensors(?)", (idx,)).fetchone()
    ok((n_rows, numel) == (len(wmap), params), "tensors(index): every tensor once", repr((n_rows, numel)))

    # part 1 of a split GGUF: a tensor of part 2, hashed as xxhsum hashes its bytes
    part1, part2 = trees + "/split/x-00001-of-00003.gguf", trees + "/split/x-00002-of-00003.gguf"
    bad = []
    for name, offset, nbytes in conn.execute("SELECT name, offset, nbytes FROM gguf(?)", (part2,)).fetchall():
        (got,) = conn.execute("SELECT tensor_hash(?, ?)", (part1, name)).fetchone()
        want = xxhsum_h2(part2, offset, nbytes)
        if got != want:
            bad.append("%s: %s != %s" % (name, got, want))
    ok(not bad, "tensor_hash(part 1, a tensor of part 2) equals xxhsum -H2", "; ".join(bad))

    # '**' alone walks the working directory; '~' is $HOME
    env = dict(os.environ, HOME=os.path.abspath(trees + "/tilde"))
    sh = lambda sql, cwd=".": subprocess.run(
        ["sqlite3", "-bail", "-cmd", ".load " + os.path.abspath(module_noext(MODULE)), ":memory:", sql],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    r = sh("SELECT file FROM weights_files('**')", cwd=trees + "/order")
    ok(r.returncode == 0 and r.stdout.split() == ["a/x.safetensors", "b.safetensors"],
       "'**' alone lists the working directory's tree", r.stdout + r.stderr)
    r = sh("SELECT count(*) FROM tensors('~/m.safetensors'); SELECT count(*) FROM weights_files('~')")
    ok(r.returncode == 0 and r.stdout.split() == ["1", "1"], "'~' and '~/x' are $HOME", r.stdout + r.stderr)

    # a change of mtime alone re-reads a file; the size check is exact to the byte
    tmp = "build/testdata/models_py"
    os.makedirs(tmp, exist_ok=True)
    m = tmp + "/m.safetensors"
    with open("build/testdata/safetensors/ok_4d.safetensors", "rb") as f:
        data = f.read()
    with open(m, "wb") as f:
        f.write(data)
    conn.execute("SELECT count(*) FROM safetensors(?)", (m,)).fetchone()
    before = json.loads(conn.execute("SELECT weights_cache_stats()").fetchone()[0])["misses"]
    st = os.stat(m)
    os.utime(m, ns=(st.st_atime_ns, st.st_mtime_ns + 1000))
    conn.execute("SELECT count(*) FROM safetensors(?)", (m,)).fetchone()
    after = json.loads(conn.execute("SELECT weights_cache_stats()").fetchone()[0])["misses"]
    ok(after == before + 1, "a change of mtime alone re-reads the file", "%d -> %d misses" % (before, after))
    with open(m, "wb") as f:
        f.write(data[:-1])
    try:
        conn.execute("SELECT count(*) FROM safetensors(?)", (m,)).fetchone()
        ok(False, "a file one byte short of its last tensor is an error")
    except sqlite3.OperationalError as e:
        ok(m in str(e), "a file one byte short of its last tensor is an error naming it", str(e))
    with open(m, "wb") as f:
        f.write(data)
    (n,) = conn.execute("SELECT count(*) FROM safetensors(?)", (m,)).fetchone()
    ok(n == 1, "the same file at its exact size reads", repr(n))


# ---- Files that change while a statement reads them ----
#
# A file rewritten in place (open(p, 'wb'), as safetensors' save_file and
# gguf-py's writer do), truncated, or replaced by os.replace while a
# statement iterates over it: the process must not die (a signal kills the
# interpreter: each case runs in a child process whose exit status is
# checked), and the statement gives the rows it gives on the unchanged file
# or an error naming the file.  The files are written here by Python, not
# by our generators.  Every case runs twice: tensor bytes read with pread
# (weights_mmap(0)) and through the guarded mapping (weights_mmap(1)).

CHANGE_CHILD = r'''
import os, sqlite3, sys, threading
module, sql, path, how, other, mmap = sys.argv[1:7]
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension(module)
if conn.execute("SELECT weights_mmap(?)", (int(mmap),)).fetchone()[0] != int(mmap):
    sys.exit("weights_mmap(%s) did not take: %s" % (mmap, conn.execute("SELECT weights_mmap_guard()").fetchone()[0]))
def mutate():
    if how.endswith("inplace"):
        with open(other, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data)
    elif how.endswith("truncate"):
        os.truncate(path, 16)
    elif how.endswith("replace"):
        with open(other, "rb") as f:
            data = f.read()
        with open(path + ".new", "wb") as f:
            f.write(data)
        os.replace(path + ".new", path)
try:
    if how.startswith("during-"):  # change it while the first row is computed
        t = threading.Timer(0.2, mutate)
        t.start()
        rows = conn.execute(sql).fetchall()
        t.join()
    else:  # change it after the first row
        cur = conn.execute(sql)
        rows = [cur.fetchone()]
        if how != "none":
            mutate()
        rows += cur.fetchall()
    print("ROWS " + repr(rows))
except sqlite3.Error as e:
    print("ERROR " + str(e))
conn.close()
'''


def write_safetensors(path, n_tensors, n_meta, base=0):
    """n_tensors F32 tensors t000.. of shape [64] (value i*0.5 + k + base) and
    n_meta metadata strings: a header of several pages."""
    import struct
    header, data = {"__metadata__": {"key%04d" % i: "value %d" % i for i in range(n_meta)}}, b""
    for k in range(n_tensors):
        header["t%04d" % k] = {"dtype": "F32", "shape": [64], "data_offsets": [len(data), len(data) + 256]}
        data += struct.pack("<64f", *[i * 0.5 + k + base for i in range(64)])
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def gguf_str(s):
    import struct
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, tokens):
    """A GGUF v3 file: general.architecture, an array of the given token
    strings, tensors a (F32 [8]) and b (F32 [4]).  Returns the byte offset of
    each token's length field and the file's bytes."""
    import struct
    out = b"GGUF" + struct.pack("<IQQ", 3, 2, 2)
    out += gguf_str("general.architecture") + struct.pack("<I", 8) + gguf_str("llama")
    out += gguf_str("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, len(tokens))
    starts = []
    for t in tokens:
        starts.append(len(out))
        out += gguf_str(t)
    out += gguf_str("a") + struct.pack("<IQIQ", 1, 8, 0, 0)
    out += gguf_str("b") + struct.pack("<IQIQ", 1, 4, 0, 32)
    out += b"\0" * (-len(out) % 32)
    out += struct.pack("<8f", *range(8)) + struct.pack("<4f", 10, 11, 12, 13) + b"\0" * 16
    with open(path, "wb") as f:
        f.write(out)
    return starts, out


def run_change(module, sql, path, how, other, mmap):
    p = subprocess.run([sys.executable, "-c", CHANGE_CHILD, module, sql, path, how, other, mmap],
                       capture_output=True, text=True, errors="replace")
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def changing_files(module):
    import shutil
    import tempfile
    work = tempfile.mkdtemp(prefix="changes.", dir="build")
    st, gg = os.path.join(work, "orig.safetensors"), os.path.join(work, "orig.gguf")
    write_safetensors(st, 300, 300)
    write_gguf(gg, ["tok%05d" % i for i in range(2000)])
    small_st, small_gg = os.path.join(work, "small.safetensors"), os.path.join(work, "small.gguf")
    write_safetensors(small_st, 1, 0)
    write_gguf(small_gg, ["x"])
    cases = [
        (st, small_st, "SELECT name, dtype, shape, offset FROM safetensors('%s')"),
        (st, small_st, "SELECT key, value FROM safetensors_metadata('%s')"),
        (st, small_st, "SELECT name, numel FROM tensors('%s')"),
        (st, small_st, "SELECT file, format, tensors FROM weights_files('%s')"),
        (st, small_st, "SELECT idx, value FROM tensor_values('%s', 't0007')"),
        (st, small_st, "SELECT name, count, min, max, mean FROM tensor_stats('%s')"),
        (gg, small_gg, "SELECT name, type_id, shape, offset FROM gguf('%s')"),
        (gg, small_gg, "SELECT key, type, value FROM gguf_metadata('%s')"),
        (gg, small_gg, "SELECT idx, value FROM gguf_array('%s', 'tokenizer.ggml.tokens')"),
        (gg, small_gg, "SELECT name, numel FROM tensors('%s')"),
        (gg, small_gg, "SELECT idx, value FROM tensor_values('%s', 'a')"),
        (gg, small_gg, "SELECT name, count, min, max FROM tensor_stats('%s')"),
    ]
    n = 0
    for (orig, other, sql), mmap in [(c, m) for m in ("0", "1") for c in cases]:
        n += 1
        path = os.path.join(work, "f%03d%s" % (n, os.path.splitext(orig)[1]))
        shutil.copyfile(orig, path)
        rc0, ref, err = run_change(module, sql % path, path, "none", other, mmap)
        if not ok(rc0 == 0 and ref.startswith("ROWS "), sql % "..." + ": the unchanged file reads",
                  ref + err):
            continue
        for how in ("inplace", "truncate", "replace"):
            shutil.copyfile(orig, path)
            rc, out, err = run_change(module, sql % path, path, how, other, mmap)
            what = "%s, file changed (%s) after the first row, weights_mmap(%s)" % (sql % "...", how, mmap)
            ok(rc == 0, what + ": the process lives (exit status %d)" % rc, err[-300:])
            ok(out == ref or (out.startswith("ERROR ") and path in out),
               what + ": the old rows or an error naming the file", out[:300])
            if how == "replace":
                ok(out == ref, what + ": a file replaced by rename reads as the old one", out[:300])

    # tensor_stats over a 2 GiB sparse F32 tensor, the file changed while the
    # statistics are computed: truncated (ftruncate), rewritten in place, replaced.
    big = os.path.join(work, "sparse.safetensors")
    nvals = 1 << 29
    h = json.dumps({"w": {"dtype": "F32", "shape": [nvals], "data_offsets": [0, 4 * nvals]}}).encode()
    h += b" " * (-len(h) % 8)
    for how, mmap in [(h_, m) for m in ("0", "1") for h_ in ("during-truncate", "during-inplace", "during-replace")]:
        import struct
        with open(big, "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h)
            f.truncate(8 + len(h) + 4 * nvals)
        sql = "SELECT name, count, min, max, zero_count FROM tensor_stats('%s')" % big
        rc, out, err = run_change(module, sql, big, how, small_st, mmap)
        what = "tensor_stats of a 2 GiB sparse file, file changed (%s) while it is read, weights_mmap(%s)" % (how, mmap)
        ok(rc == 0, what + ": the process lives (exit status %d)" % rc, err[-300:])
        old = "ROWS [('w', %d, 0.0, 0.0, %d)]" % (nvals, nvals)
        ok(out == old or (out.startswith("ERROR ") and big in out and "file changed while in use" in out),
           what + ": the old statistics or an error naming the file", out[:300])
        if how == "during-replace":
            ok(out == old, what + ": a file replaced by rename reads as the old one", out[:300])
        else:
            print("  (%s, weights_mmap(%s): %s)" % (how, mmap, out[:160]))
    shutil.rmtree(work)


def calls_per_row_changes(module):
    """safetensors_blob() once per row of a listing, the file changed after the
    first row (the rule of bytes/cache.h, wt_cache_find_checked: a cached file is
    checked once per statement): within the statement each blob is all the
    old file's bytes (renamed over: the file the statement listed) or all the
    old bytes or an error naming the file (rewritten in place), never new
    bytes under the old listing, never a mix; the same statement run again
    (Python reuses the prepared statement) and a new statement read the new
    file.  The expected bytes are packed here from the values written."""
    import shutil
    import struct
    import tempfile
    work = tempfile.mkdtemp(prefix="rowcalls.", dir="build")
    path, new = os.path.join(work, "m.safetensors"), os.path.join(work, "new.safetensors")
    write_safetensors(new, 300, 0, base=1000)  # the same header, other values
    with open(new, "rb") as f:
        new_data = f.read()
    old_blob = lambda k: struct.pack("<64f", *[i * 0.5 + k for i in range(64)])
    new_blob = lambda k: struct.pack("<64f", *[i * 0.5 + k + 1000 for i in range(64)])
    sql = "SELECT name, safetensors_blob(path, name) FROM safetensors(?)"
    kind = lambda n, b: "old" if b == old_blob(int(n[1:])) else "new" if b == new_blob(int(n[1:])) else "mixed"
    for how in ("replace", "inplace"):
        write_safetensors(path, 300, 0)
        conn = connect(module)
        cur = conn.execute(sql, (path,))
        rows = [cur.fetchone()]
        if how == "replace":
            with open(path + ".tmp", "wb") as f:
                f.write(new_data)
            os.replace(path + ".tmp", path)
        else:
            with open(path, "wb") as f:
                f.write(new_data)
        err = None
        try:
            rows += cur.fetchall()
        except sqlite3.Error as e:
            err = str(e)
        kinds = [kind(n, b) for n, b in rows]
        what = "safetensors_blob() per row, file changed (%s) after the first row" % how
        ok(kinds == ["old"] * len(kinds) and (len(kinds) == 300 if how == "replace" else err is None or path in err),
           what + ": every blob the old bytes%s" % ("" if how == "replace" else ", or an error naming the file"),
           "%s... %s %s" % (kinds[:3], len(kinds), err))
        again = []
        for q in (sql, sql + " LIMIT 300"):  # the same prepared statement again, and a new one
            try:
                again.append([kind(n, b) for n, b in conn.execute(q, (path,))])
            except sqlite3.Error as e:
                again.append(str(e))
        ok(again == [["new"] * 300] * 2, what + ": the next statements read the new file",
           repr([a[:3] for a in again]))
        conn.close()
    # a call with no table in its statement: the next run of the statement
    # checks the file again (the number kept for the statement is reset)
    write_safetensors(path, 300, 0)
    conn = connect(module)
    one = "SELECT safetensors_blob(?, 't0005')"
    got = [conn.execute(one, (path,)).fetchone()[0] == old_blob(5) for _ in range(2)]  # opened, then cached
    with open(path + ".tmp", "wb") as f:
        f.write(new_data)
    os.replace(path + ".tmp", path)
    got.append(conn.execute(one, (path,)).fetchone()[0] == new_blob(5))
    conn.close()
    ok(got == [True] * 3, "safetensors_blob() alone: the old bytes, then, the file renamed over, the new",
       repr(got))
    shutil.rmtree(work)


def folder_parsed_once(module):
    """A folder of 200 files, more than the cache's 64 entries: a table over it
    parses each header once (the scope check's sources are kept for the rows,
    most of them parked without a descriptor), its totals are the files'
    (computed here), and a parked file's bytes still read right."""
    import shutil
    import struct
    import tempfile
    work = tempfile.mkdtemp(prefix="folder.", dir="build")
    for i in range(200):
        write_safetensors(os.path.join(work, "m%03d.safetensors" % i), 3 + i % 5, 0)
    want = sum(3 + i % 5 for i in range(200))
    conn = connect(module)
    before = json.loads(conn.execute("SELECT weights_cache_stats()").fetchone()[0])
    n, nbytes = conn.execute("SELECT count(*), sum(nbytes) FROM safetensors(?)", (work,)).fetchone()
    after = json.loads(conn.execute("SELECT weights_cache_stats()").fetchone()[0])
    ok((n, nbytes) == (want, 256 * want), "a 200-file folder: count(*) and sum(nbytes)", repr((n, nbytes)))
    ok(after["misses"] - before["misses"] == 200 and after["hits"] == before["hits"],
       "a 200-file folder: each header parsed once, no second lookup", repr((before, after)))
    # one call per file, in the order the table visits them: the first 136
    # files' sources are parked by then (the cache held only the last 64)
    rows = conn.execute("SELECT t.file, safetensors_blob(t.file, t.name) FROM safetensors(?) AS t "
                        "WHERE t.name = 't0002'", (work,)).fetchall()
    bad = [p for p, b in rows if b != struct.pack("<64f", *[i * 0.5 + 2 for i in range(64)])]
    ok(len(rows) == 200 and not bad, "a 200-file folder: a blob of each file", "%d rows, bad %s" % (len(rows), bad[:3]))
    conn.close()
    shutil.rmtree(work)


def hashes_against_xxhsum(conn):
    """tensor_hash() against `xxhsum -H2` of the tensor's bytes, cut out of the
    file here: a tensor of 3 MiB + 5 bytes (streamed in several chunks), the
    demo files' tensors (one read each), an empty tensor."""
    import shutil
    import struct
    import tempfile
    work = tempfile.mkdtemp(prefix="hash.", dir="build")
    path = os.path.join(work, "h.safetensors")
    big = bytes((i * 7 + 3) & 255 for i in range(3 * 1024 * 1024 + 5))
    header = {"big": {"dtype": "U8", "shape": [len(big)], "data_offsets": [0, len(big)]},
              "empty": {"dtype": "F32", "shape": [0], "data_offsets": [len(big), len(big)]},
              "small": {"dtype": "U8", "shape": [3], "data_offsets": [len(big), len(big) + 3]}}
    h = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + big + b"abc")
    cases = [(path, "big", big), (path, "empty", b""), (path, "small", b"abc")]
    for demo, table in ((DEMO_ST, "safetensors"), (DEMO_GGUF, "gguf")):
        with open(demo, "rb") as f:
            data = f.read()
        for name, offset, nbytes in conn.execute("SELECT name, offset, nbytes FROM %s(?)" % table, (demo,)):
            cases.append((demo, name, data[offset:offset + nbytes]))
    # each algorithm against the command-line tool on the same bytes (xxhsum -H3
    # prints "XXH3 (file) = hex": the hash is the last word; the others the first)
    tools = [("xxh3-128", ["xxhsum", "-H2"], 0), ("xxh3-64", ["xxhsum", "-H3"], -1),
             ("xxh64", ["xxhsum", "-H1"], 0), ("sha1", ["sha1sum"], 0), ("sha256", ["sha256sum"], 0)]
    bad = []
    for i, (p, name, data) in enumerate(cases):
        part = os.path.join(work, "part%d" % i)
        with open(part, "wb") as f:
            f.write(data)
        (got,) = conn.execute("SELECT tensor_hash(?, ?)", (p, name)).fetchone()
        for algo, tool, word in tools:
            want = subprocess.run(tool + [part], capture_output=True, text=True).stdout.split()
            (got_a,) = conn.execute("SELECT tensor_hash(?, ?, ?)", (p, name, algo)).fetchone()
            if algo == "xxh3-128" and (not want or got != want[word]):
                bad.append("%s %s (default): %r != %r" % (p, name, got, want[:1]))
            if not want or got_a != want[word]:
                bad.append("%s %s %s: %r != %r" % (p, name, algo, got_a, want))
    ok(not bad and len(cases) > 40,
       "tensor_hash() of %d tensors, every algorithm, equals xxhsum -H1/-H2/-H3, sha1sum, sha256sum "
       "of their bytes" % len(cases), "; ".join(bad[:3]))
    # hand-worked vectors: FIPS 180-2's "abc" examples, XXH64's published values of "" and "abc"
    known = [("small", "sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
             ("small", "sha1", "a9993e364706816aba3e25717850c26c9cd0d89d"),
             ("small", "xxh64", "44bc2cf5ad770999"),
             ("empty", "xxh64", "ef46db3751d8e999"),
             ("empty", "sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
             ("empty", "sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709")]
    got = [(n, a, conn.execute("SELECT tensor_hash(?, ?, ?)", (path, n, a)).fetchone()[0]) for n, a, _ in known]
    ok(got == known, "tensor_hash() of 'abc' and of an empty tensor: the published vectors", repr(got))
    # an unknown algorithm is an error that lists the valid names, before any file is read
    try:
        conn.execute("SELECT tensor_hash('/nonexistent', 'x', 'md5')").fetchall()
        e = None
    except sqlite3.Error as err:
        e = str(err)
    ok(e == "tensor_hash(): unknown hash algorithm 'md5': the algorithms are xxh3-128, xxh3-64, xxh64, "
       "sha1, sha256", "tensor_hash() with an unknown algorithm names the valid ones", repr(e))
    (b,) = conn.execute("SELECT tensor_blob(?, 'big')", (path,)).fetchone()
    ok(b == big, "tensor_blob() of a 3 MiB tensor is its bytes")
    shutil.rmtree(work)


def gguf_tensor_ranges(path):
    """An independent reader of a GGUF v2/v3 little-endian file's tensor infos:
    {name: (absolute offset, nbytes)} for F32, F16 and Q8_0 tensors."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    pos = 4
    version, n_tensors, n_kv = struct.unpack_from("<IQQ", data, pos)
    pos += 20
    assert version in (2, 3)
    fixed = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def skip_value(t, pos):
        if t in fixed:
            return pos + fixed[t]
        if t == 8:
            (n,) = struct.unpack_from("<Q", data, pos)
            return pos + 8 + n
        assert t == 9
        et, n = struct.unpack_from("<IQ", data, pos)
        pos += 12
        for _ in range(n):
            pos = skip_value(et, pos)
        return pos

    alignment = 32
    for _ in range(n_kv):
        (n,) = struct.unpack_from("<Q", data, pos)
        key = data[pos + 8:pos + 8 + n].decode()
        pos += 8 + n
        (t,) = struct.unpack_from("<I", data, pos)
        pos += 4
        if key == "general.alignment":
            (alignment,) = struct.unpack_from("<I", data, pos)
        pos = skip_value(t, pos)
    infos = []
    for _ in range(n_tensors):
        (n,) = struct.unpack_from("<Q", data, pos)
        name = data[pos + 8:pos + 8 + n].decode()
        pos += 8 + n
        (nd,) = struct.unpack_from("<I", data, pos)
        dims = struct.unpack_from("<%dQ" % nd, data, pos + 4)
        pos += 4 + 8 * nd
        ggml_type, off = struct.unpack_from("<IQ", data, pos)
        pos += 12
        numel = 1
        for d in dims:
            numel *= d
        nbytes = {0: numel * 4, 1: numel * 2, 8: numel // 32 * 34}[ggml_type]
        infos.append((name, off, nbytes))
    start = (pos + alignment - 1) // alignment * alignment
    return {name: (start + off, nbytes) for name, off, nbytes in infos}


def shared_tensors_expected():
    """tests/sql_expected/shared_tensors.out (sql/shared_tensors.sql) against
    Python: the SHA-256 (hashlib) of every tensor's bytes of the demo files,
    cut out with offsets from Python's own readers of the headers; the pairs of
    files, how many tensors and bytes they share, and each shared hash's files."""
    import hashlib
    files = {}
    for name in sorted(os.listdir("build/demo")):
        p = os.path.join("build/demo", name)
        if name.endswith(".safetensors"):
            start, hdr = st_header(p)
            ranges = {n: (start + e["data_offsets"][0], e["data_offsets"][1] - e["data_offsets"][0])
                      for n, e in hdr.items()}
        elif name.endswith(".gguf") and "truncated" not in name:
            ranges = gguf_tensor_ranges(p)
        else:
            continue
        with open(p, "rb") as f:
            data = f.read()
        files[name] = {n: (hashlib.sha256(data[o:o + nb]).hexdigest(), nb) for n, (o, nb) in ranges.items()}
    pairs = []
    names = sorted(files)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            hb = {h for h, _ in files[b].values()}
            shared = [(h, nb) for h, nb in files[a].values() if h in hb]
            if shared:
                pairs.append((a, b, len(shared), sum(nb for _, nb in shared), len(files[a])))
    pairs.sort(key=lambda r: (-r[2], r[0], r[1]))
    by_hash = {}
    for f, ts in files.items():
        for n, (h, nb) in ts.items():
            by_hash.setdefault(h, set()).add(f)
    groups = sorted((h[:12], ",".join(sorted(fs))) for h, fs in by_hash.items() if len(fs) > 1)
    with open("tests/sql_expected/shared_tensors.out") as f:
        lines = f.read().split("\n")
    got_pairs = []
    got_groups = []
    for line in lines:
        w = line.split()
        if len(w) == 5 and w[2].isdigit() and w[0].endswith(("safetensors", "gguf")):
            got_pairs.append((w[0], w[1], int(w[2]), int(w[3]), int(w[4])))
        if len(w) == 5 and re.fullmatch(r"[0-9a-f]{12}", w[0]):
            got_groups.append((w[0], w[4]))
    ok(got_pairs == pairs and len(pairs) == 4,
       "shared_tensors.out's pairs of files equal Python's hashlib over the demo's tensors",
       "%r != %r" % (got_pairs, pairs))
    ok(sorted(got_groups) == groups and len(groups) == 26,
       "shared_tensors.out's shared hashes and their files equal Python's", "%r != %r" % (got_groups[:3], groups[:3]))


def gguf_hash_expected():
    """tests/sql_expected/gguf_hash.out (sql/gguf_hash.sql, llama-gguf-hash's
    line format) against the tools: each tensor's bytes cut out with Python's
    own GGUF reader, hashed by xxhsum -H1 (xxh64), xxhsum -H3 (xxh3), sha1sum
    and sha256sum; the line format as llama-gguf-hash's printf("%-8s  %s  %s")."""
    import tempfile
    demo = "build/demo/tiny-llama.gguf"
    ranges = gguf_tensor_ranges(demo)
    with open(demo, "rb") as f:
        data = f.read()
    tools = {"xxh64": (["xxhsum", "-H1"], 0), "xxh3": (["xxhsum", "-H3"], -1), "sha1": (["sha1sum"], 0),
             "sha256": (["sha256sum"], 0)}
    with open("tests/sql_expected/gguf_hash.out") as f:
        lines = f.read().splitlines()
    want = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (off, nb) in sorted(ranges.items(), key=lambda r: r[1][0]):
            part = os.path.join(tmp, "t")
            with open(part, "wb") as f:
                f.write(data[off:off + nb])
            for label in ("xxh64", "xxh3", "sha1", "sha256"):
                tool, word = tools[label]
                h = subprocess.run(tool + [part], capture_output=True, text=True).stdout.split()[word]
                want.append("%-8s  %s  %s:%s" % (label, h, demo, name))
    ok(lines == want and len(want) == 84,
       "gguf_hash.out: llama-gguf-hash's lines, each hash equal to xxhsum -H1/-H3, sha1sum, sha256sum "
       "of the tensor's bytes", "%r != %r" % (lines[:2], want[:2]))


def file_type_names(conn):
    """gguf_info's file_type for general.file_type values written here (a
    GGUF v3 with that one key and one F16 tensor of 4 values: 16 bits per
    weight): names from llama.h's enum llama_ftype, an unknown id said as
    such, a key of another type or none at all: null."""
    import shutil
    import struct
    import tempfile
    work = tempfile.mkdtemp(prefix="ftype.", dir="build")
    cases = [(0, 4, "ALL_F32"), (7, 4, "MOSTLY_Q8_0"), (15, 5, "MOSTLY_Q4_K_M"), (32, 10, "MOSTLY_BF16"),
             (38, 4, "MOSTLY_MXFP4_MOE"), (1024, 4, "GUESSED"), (99, 4, "unknown (99)"),
             (41, 11, "unknown (41)"), ("x", 8, None), (None, None, None)]
    bad = []
    for i, (value, vtype, want) in enumerate(cases):
        kvs = b""
        if value is not None:
            enc = gguf_str(value) if vtype == 8 else struct.pack({4: "<I", 5: "<i", 10: "<Q", 11: "<q"}[vtype], value)
            kvs = gguf_str("general.file_type") + struct.pack("<I", vtype) + enc
        out = b"GGUF" + struct.pack("<IQQ", 3, 1, 1 if value is not None else 0) + kvs
        out += gguf_str("t") + struct.pack("<IQIQ", 1, 4, 1, 0)
        out += b"\0" * (-len(out) % 32) + b"\0" * 8 + b"\0" * 24
        path = os.path.join(work, "f%d.gguf" % i)
        with open(path, "wb") as f:
            f.write(out)
        got = conn.execute("SELECT json_extract(i, '$.file_type'), json_extract(i, '$.file_type_id'), "
                           "json_extract(i, '$.bits_per_weight') FROM (SELECT gguf_info(?) AS i)", (path,)).fetchone()
        want_row = (want, value if want is not None else None, 16)
        if got != want_row:
            bad.append("%r: %r != %r" % (value, got, want_row))
    ok(not bad, "gguf_info's file_type by name for %d general.file_type values" % len(cases), "; ".join(bad))
    shutil.rmtree(work)


def big_gguf_header(conn):
    """A GGUF whose header (400 KB) is larger than the first read: its values
    as Python wrote them, and the messages for cuts deep in it, worked out
    here from the layout."""
    import shutil
    import tempfile
    work = tempfile.mkdtemp(prefix="gguf.", dir="build")
    path = os.path.join(work, "big.gguf")
    tokens = ["t%d" % i + "x" * (i % 23) for i in range(25000)]
    starts, data = write_gguf(path, tokens)
    try:
        rows = conn.execute("SELECT idx, value FROM gguf_array(?, 'tokenizer.ggml.tokens')",
                            (path,)).fetchall()
        ok(rows == list(enumerate(tokens)), "GGUF with a %d-byte header: every token as written"
           % starts[-1], repr(rows[:2]))
        rows = conn.execute("SELECT t.name, v.value FROM tensors(?) AS t, "
                            "tensor_values(t.file, t.name) AS v", (path,)).fetchall()
        ok(rows == [("a", float(i)) for i in range(8)] + [("b", float(v)) for v in (10, 11, 12, 13)],
           "GGUF with a large header: tensor values as written", repr(rows))
    except sqlite3.Error as e:
        ok(False, "GGUF with a %d-byte header reads" % starts[-1], str(e))
    # A header that declares 8 GiB of values (2^30 INT64s, a sparse file): an error at once,
    # not 8 GiB read into memory.  Header: 24 bytes, key of 8 + 9, type 4, element type 4,
    # count 8: the values start at byte 24 + 17 + 4 + 4 + 8 = 57 and end at 57 + 2^33.
    import struct
    huge = os.path.join(work, "huge.gguf")
    with open(huge, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gguf_str("big.array")
                + struct.pack("<IIQ", 9, 11, 1 << 30))
        f.truncate(57 + (8 << 30) + 64)
    try:
        conn.execute("SELECT count(*) FROM gguf_metadata(?)", (huge,)).fetchall()
        ok(False, "a GGUF header of 8 GiB is an error")
    except sqlite3.OperationalError as e:
        want = ("gguf_metadata(): %s: the header needs the first %d bytes of the file, over the "
                "limit of 1073741824 bytes that this extension reads into memory" % (huge, 57 + (8 << 30)))
        ok(str(e) == want, "a GGUF header of 8 GiB is an error naming the limit", "%s\n  want %s" % (e, want))
    # A header that declares 2^32 tensors in a sparse file of 1 TiB: the file's size allows them, but
    # their array is not allocated before their smallest bytes (24 each: name length 8, n_dims 4,
    # type 4, offset 8) are in memory, which is over the limit: that error, not an allocation of
    # hundreds of GB (before, "out of memory" or whatever malloc granted).
    many = os.path.join(work, "many.gguf")
    with open(many, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 1 << 32, 0))
        f.truncate(1 << 40)
    try:
        conn.execute("SELECT count(*) FROM gguf(?)", (many,)).fetchall()
        ok(False, "a GGUF declaring 2^32 tensors is an error")
    except sqlite3.OperationalError as e:
        want = ("gguf(): %s: the header needs the first %d bytes of the file, over the limit of "
                "1073741824 bytes that this extension reads into memory" % (many, 24 + 24 * (1 << 32)))
        ok(str(e) == want, "a GGUF declaring 2^32 tensors: no allocation before their bytes are read",
           "%s\n  want %s" % (e, want))
    i = 20000
    for cut, detail in ((starts[i] + 3, "element #%d string length at byte %d" % (i, starts[i])),
                        (starts[i] + 8 + 2, "element #%d string length %d at byte %d"
                         % (i, len(tokens[i]), starts[i]))):
        with open(path, "wb") as f:
            f.write(data[:cut])
        try:
            conn.execute("SELECT * FROM gguf(?)", (path,)).fetchall()
            ok(False, "GGUF cut at byte %d of its header is an error" % cut)
        except sqlite3.OperationalError as e:
            want = ("gguf(): %s: truncated: kv #1 'tokenizer.ggml.tokens' %s runs past the end of the "
                    "file (%d bytes)" % (path, detail, cut))
            ok(str(e) == want, "GGUF cut at byte %d of its header: the message of the whole file" % cut,
               "%s\n  want %s" % (e, want))
    shutil.rmtree(work)


def main():
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        print("FAILED: %s: this Python's sqlite3 module has no enable_load_extension; "
              "run this test with Debian's /usr/bin/python3" % sys.executable)
        print("python: 0 passed, 1 failed")
        return 1
    for p in (MODULE, DEMO_ST, DEMO_GGUF):
        if not os.path.isfile(p):
            print("FAILED: %s not found (run from the repository root after `make %s build/demo/.stamp`)"
                  % (p, MODULE))
            print("python: 0 passed, 1 failed")
            return 1

    if len(sys.argv) > 2 and sys.argv[2] == "changes":  # this part alone (e.g. on an old build)
        changing_files(MODULE)
        calls_per_row_changes(MODULE)
        folder_parsed_once(MODULE)
        print(checks.summary("python", with_skipped=True))
        return checks.status(need_passed=True)

    version = makefile_version()
    ok(version is not None, "Makefile has a VERSION := line")

    # Load by relative path without suffix, as in the README, and by absolute path.
    conns = []
    for load_as in (module_noext(MODULE), os.path.abspath(MODULE)):
        try:
            conn = connect(load_as)
        except sqlite3.Error as e:
            ok(False, "load_extension(%r)" % load_as, str(e))
            continue
        conns.append(conn)
        (v,) = conn.execute("SELECT weights_version()").fetchone()
        ok(v == version, "load_extension(%r): weights_version() is the Makefile's VERSION" % load_as,
           "%r != %r" % (v, version))
    if not conns:
        print(checks.summary("python", with_skipped=True))
        return 1
    conn = conns[0]

    # The cookbook, compared with the sqlite3 shell.
    cookbook(module_noext(MODULE))

    # Bound parameters as table-valued-function arguments.
    rows = conn.execute("SELECT name, dtype, shape, numel, offset, nbytes FROM safetensors(?) LIMIT 2",
                        (DEMO_ST,)).fetchall()
    ok(rows == [("model.embed_tokens.weight", "BF16", "[260,64]", 16640, 2152, 33280),
                ("model.layers.0.input_layernorm.weight", "BF16", "[64]", 64, 35432, 128)],
       "safetensors(?) with a bound path", repr(rows))
    n_st = conn.execute("SELECT count(*) FROM safetensors WHERE path = :p", {"p": DEMO_ST}).fetchone()[0]
    n_gg = conn.execute("SELECT count(*) FROM gguf(?)", (DEMO_GGUF,)).fetchone()[0]
    ok(n_st == 21 and n_gg == 21, "21 tensors in each demo file", "%d, %d" % (n_st, n_gg))

    # Typed values: integers, REAL, TEXT; arrays as JSON.
    meta = dict(conn.execute("SELECT key, value FROM gguf_metadata(?)", (DEMO_GGUF,)).fetchall())
    ok(meta.get("llama.block_count") == 2 and isinstance(meta.get("llama.block_count"), int),
       "gguf_metadata: UINT32 as int", repr(meta.get("llama.block_count")))
    eps = meta.get("llama.attention.layer_norm_rms_epsilon")
    ok(isinstance(eps, float) and 0 < eps < 1e-3, "gguf_metadata: FLOAT32 as float", repr(eps))
    toks = json.loads(meta.get("tokenizer.ggml.tokens", "null"))
    ok(isinstance(toks, list) and len(toks) == 260 and toks[259] == "\u2581hello",
       "gguf_metadata: array as JSON text", repr(toks[-2:]) if isinstance(toks, list) else repr(toks))

    # Blobs are bytes, equal to the file's bytes at the reported offset.
    for table, blob, path in (("safetensors", "safetensors_blob", DEMO_ST), ("gguf", "gguf_blob", DEMO_GGUF)):
        with open(path, "rb") as f:
            data = f.read()
        bad = []
        for name, offset, nbytes in conn.execute("SELECT name, offset, nbytes FROM %s(?)" % table, (path,)):
            (b,) = conn.execute("SELECT %s(?, ?)" % blob, (path, name)).fetchone()
            if not isinstance(b, bytes) or b != data[offset:offset + nbytes]:
                bad.append(name)
        ok(not bad, "%s(): every tensor's bytes equal the file's bytes at its offset" % blob, ", ".join(bad))
    (part,) = conn.execute("SELECT safetensors_blob(?, 'model.norm.weight', 2, 4)", (DEMO_ST,)).fetchone()
    ok(part == bytes.fromhex("823F873F"), "safetensors_blob with offset and length", repr(part))
    (none,) = conn.execute("SELECT safetensors_blob(?, 'no.such.tensor')", (DEMO_ST,)).fetchone()
    ok(none is None, "safetensors_blob of a missing tensor is None", repr(none))

    # Errors are exceptions that name the function and the file.
    try:
        conn.execute("SELECT * FROM safetensors('build/demo/no-such-file.safetensors')").fetchall()
        ok(False, "a missing file raises sqlite3.OperationalError")
    except sqlite3.OperationalError as e:
        ok("safetensors(): build/demo/no-such-file.safetensors: cannot open" in str(e),
           "a missing file raises sqlite3.OperationalError naming the function and file", str(e))
    try:
        conn.execute("SELECT * FROM gguf(?)", (DEMO_ST,)).fetchall()
        ok(False, "a safetensors file read as GGUF raises an error")
    except sqlite3.OperationalError as e:
        ok(str(e).startswith("gguf(): " + DEMO_ST), "a safetensors file read as GGUF raises an error", str(e))
    try:
        conn.execute("SELECT * FROM safetensors()").fetchall()
        ok(False, "a missing argument raises an error")
    except sqlite3.OperationalError as e:
        ok("missing argument" in str(e), "a missing argument raises an error", str(e))

    # SQLITE_DIRECTONLY: a view in the database may not read files; a TEMP view may.
    conn.execute("CREATE VIEW v AS SELECT name FROM safetensors('%s')" % DEMO_ST)
    try:
        conn.execute("SELECT * FROM v").fetchall()
        ok(False, "a view in the database cannot read files")
    except sqlite3.OperationalError as e:
        ok("unsafe use" in str(e), "a view in the database cannot read files", str(e))
    conn.execute("CREATE TEMP VIEW tv AS SELECT name FROM safetensors('%s')" % DEMO_ST)
    ok(len(conn.execute("SELECT * FROM tv").fetchall()) == 21, "a TEMP view can read files")

    models(conn)
    # Headers larger than the first read; files that change under a statement.
    big_gguf_header(conn)
    hashes_against_xxhsum(conn)
    shared_tensors_expected()
    gguf_hash_expected()
    file_type_names(conn)
    changing_files(os.path.abspath(MODULE))
    calls_per_row_changes(os.path.abspath(MODULE))
    folder_parsed_once(os.path.abspath(MODULE))

    for c in conns:
        c.close()
    print("%s (%d because %s is absent)"
          % (checks.summary("python", with_skipped=True), skipped_fixtures, FIXTURES))
    return checks.status(need_passed=True)


if __name__ == "__main__":
    sys.exit(main())
