#!/usr/bin/python3
"""hash_test.py [MODULE]: file_sha256() against sha256sum.

Run from the repository root with Debian's /usr/bin/python3 after
`make testdata`:

    /usr/bin/python3 tests/hash_test.py build/weights.so

Writes files of sizes around the 1 MiB chunk that file_sha256 reads
(0, 1, 2^20 - 1, 2^20, 2^20 + 1, 3 * 2^20 + 123 bytes of random data, and
a 64 MiB sparse file), and hashes them and every blob of the generated
Hugging Face cache (build/testdata/hf) with file_sha256() and with
coreutils' sha256sum, run here on the same files.  A file truncated,
rewritten in place or replaced by a rename while it is hashed gives the
hash of one of its versions or an error, never another hash (whichever
happens depends on timing; each is accepted, none is a signal).  Checks
that an LFS blob's name is its SHA-256 except for the one the generator wrote under a
wrong name, that errors name the function and the file, and that a view
in the database may not call it (SQLITE_DIRECTONLY).  Last line
"hash: N passed, M failed"; exit 1 on failure.
"""

import glob
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

import checks
from checks import ok

MODULE = sys.argv[1] if len(sys.argv) > 1 else "build/weights.so"
HUB = "build/testdata/hf/hub"
CHUNK = 1 << 20

def sha256sum(path):
    out = subprocess.run(["sha256sum", "--", path], check=True, capture_output=True, text=True).stdout
    return out.split()[0]


def error_of(conn, sql, args=()):
    try:
        conn.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        return str(e)
    return None


def changed_while_hashed(tmp, how):
    """Hash a 256 MiB sparse file on another connection while this thread
    changes it (how: "truncate", "rewrite" in place, "replace" by a
    rename).  Returns (outcome, detail): "old" or "new" for the hash of
    one version, "error" for an error that says the file changed, "bad"
    for anything else."""
    p = os.path.join(tmp, "moving-" + how)
    size = 256 * CHUNK
    with open(p, "wb") as f:
        f.truncate(size)
        f.seek(size - 3)
        f.write(b"end")
    old = sha256sum(p)
    new_content = b"x" * 4096 + b"\0" * (size // 2 - 4096)
    result = {}

    def run():
        c = sqlite3.connect(":memory:")
        c.enable_load_extension(True)
        c.load_extension(os.path.abspath(MODULE))
        try:
            result["hash"] = c.execute("SELECT file_sha256(?)", (p,)).fetchone()[0]
        except sqlite3.Error as e:
            result["error"] = str(e)
        c.close()

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.02)
    if how == "truncate":
        os.truncate(p, size // 2)
    elif how == "rewrite":
        with open(p, "wb") as f:
            f.write(new_content)
    else:
        q = p + ".tmp"
        with open(q, "wb") as f:
            f.write(new_content)
        os.replace(q, p)
    t.join()
    new = sha256sum(p)
    if "hash" in result:
        h = result["hash"]
        return ("old" if h == old else "new" if h == new else "bad"), h
    e = result["error"]
    return ("error" if "changed while it was hashed" in e else "bad"), e


def main():
    if not os.path.isdir(HUB):
        print("FAILED: %s not found (run `make testdata` first)" % HUB)
        print("hash: 0 passed, 1 failed")
        return 1
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(os.path.abspath(MODULE))
    conn.enable_load_extension(False)

    def file_sha256(path):
        return conn.execute("SELECT file_sha256(?)", (path,)).fetchone()[0]

    with tempfile.TemporaryDirectory() as tmp:
        for size in (0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 123):
            p = os.path.join(tmp, "f%d" % size)
            with open(p, "wb") as f:
                f.write(os.urandom(size))
            got, want = file_sha256(p), sha256sum(p)
            ok(got == want, "file_sha256 of %d random bytes is sha256sum's" % size, "%s != %s" % (got, want))
        sparse = os.path.join(tmp, "sparse")
        with open(sparse, "wb") as f:
            f.truncate(64 * CHUNK - 7)
            f.seek(40 * CHUNK + 5)
            f.write(b"not only zeros")
        got, want = file_sha256(sparse), sha256sum(sparse)
        ok(got == want, "file_sha256 of a 64 MiB sparse file is sha256sum's", "%s != %s" % (got, want))

        # a symlink is followed, as sha256sum follows it
        link = os.path.join(tmp, "link")
        os.symlink(sparse, link)
        ok(file_sha256(link) == want, "file_sha256 follows a symlink")

        # errors name the function and the file
        e = error_of(conn, "SELECT file_sha256(?)", (os.path.join(tmp, "nope"),))
        ok(e is not None and e.startswith("file_sha256(): " + os.path.join(tmp, "nope") + ": cannot open"),
           "a missing file is an error naming the function and the file", repr(e))
        e = error_of(conn, "SELECT file_sha256(?)", (tmp,))
        ok(e is not None and "is a directory" in e, "a directory is an error", repr(e))
        os.mkfifo(os.path.join(tmp, "fifo"))
        e = error_of(conn, "SELECT file_sha256(?)", (os.path.join(tmp, "fifo"),))
        ok(e is not None and "not a regular file" in e, "a FIFO is an error, without waiting", repr(e))
        e = error_of(conn, "SELECT file_sha256(NULL)")
        ok(e == "file_sha256(): the path argument is NULL", "a NULL path is an error", repr(e))
        e = error_of(conn, "SELECT file_sha256(CAST(? AS TEXT))", ("a\0b",))
        ok(e is not None and "NUL" in e, "a path holding NUL is an error", repr(e))

        for how in ("truncate", "rewrite", "replace"):
            outcome, detail = changed_while_hashed(tmp, how)
            print("hash: file changed while hashed (%s): %s" % (how, outcome))
            ok(outcome != "bad", "a file changed while hashed (%s): one version's hash or an error" % how,
               detail)

    # every blob of the generated cache: LFS blobs are named by their SHA-256
    blobs = sorted(glob.glob(os.path.join(HUB, "*", "blobs", "*")))
    named = [b for b in blobs if re.fullmatch(r"[0-9a-f]{64}", os.path.basename(b))]
    wrong = []
    for b in blobs:
        got, want = file_sha256(b), sha256sum(b)
        ok(got == want, "file_sha256 of %s is sha256sum's" % b, "%s != %s" % (got, want))
        if b in named and got != os.path.basename(b):
            wrong.append(b)
    ok(len(blobs) >= 9 and len(named) >= 6, "the generated cache has blobs", "%d, %d" % (len(blobs), len(named)))
    # the generator wrote exactly one blob under a wrong name: the one corrupt.safetensors points to
    corrupt = os.path.realpath(glob.glob(os.path.join(HUB, "models--org--tiny", "snapshots", "*",
                                                      "corrupt.safetensors"))[0])
    ok([os.path.realpath(w) for w in wrong] == [corrupt], "only the corrupt blob's SHA-256 differs from its name",
       repr(wrong))

    # SQLITE_DIRECTONLY: not from a view of the database; a TEMP view may
    conn.execute("CREATE VIEW v AS SELECT file_sha256('Makefile') AS h")
    e = error_of(conn, "SELECT * FROM v")
    ok(e is not None and "unsafe use" in e, "a view in the database cannot call file_sha256", repr(e))
    conn.execute("CREATE TEMP VIEW tv AS SELECT file_sha256('Makefile') AS h")
    ok(conn.execute("SELECT h FROM tv").fetchone()[0] == sha256sum("Makefile"), "a TEMP view can")
    conn.close()
    print(checks.summary("hash"))
    return checks.status(need_passed=True)


if __name__ == "__main__":
    sys.exit(main())
