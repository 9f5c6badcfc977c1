#!/usr/bin/python3
"""catalog_test.py [MODULE]: what the catalogue says, checked from Python's
standard sqlite3 module (Debian's /usr/bin/python3).

    /usr/bin/python3 tests/catalog_test.py build/weights.so

- A FIFO named like a model, in a folder, a glob or named itself, is listed
  with its error and never opened: a writer blocked in open(O_WRONLY) on it
  (which returns as soon as anything opens the FIFO for reading) is still
  blocked after every query.
- GGUF tensor names and metadata keys that are not UTF-8 come back as
  BLOBs holding their bytes (Python would fail the whole query on TEXT
  that is not UTF-8); valid ones as TEXT; weights_report() writes them
  with U+FFFD.  A safetensors header that is not UTF-8 is refused (JSON
  must be UTF-8).

Files are written here (a temporary folder), not taken from ../shared.
Exit status: 0 when every check passed, 1 otherwise.
"""

import os
import sqlite3
import struct
import sys
import tempfile
import threading

import checks
from checks import ok

MODULE = sys.argv[1] if len(sys.argv) > 1 else "build/weights.so"

def connect():
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.path.abspath(MODULE))
    return db


def query(db, sql, args=()):
    """The rows of sql, or the text of its error."""
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        return str(e)


def fifo_checks(tmp):
    """A FIFO named like a model is listed, and never opened for reading."""
    folder = os.path.join(tmp, "fifo")
    os.mkdir(folder)
    fifo = os.path.join(folder, "model.gguf")
    os.mkfifo(fifo)
    opened = threading.Event()

    def writer():
        fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens it
        opened.set()
        os.close(fd)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    db = connect()
    want = [(fifo, "is a FIFO, not a regular file")]
    rows = query(db, "SELECT file, error FROM weights_files(?)", (folder,))
    ok(rows == want, "a FIFO in a folder is listed with its error", rows)
    rows = query(db, "SELECT file, error FROM weights_files(?)", (folder + "/*",))
    ok(rows == want, "a FIFO in a glob is listed with its error", rows)
    rows = query(db, "SELECT model, error FROM weights_models(?)", (folder,))
    ok(rows == [(fifo, "is a FIFO, not a regular file")], "its model says so", rows)
    for sql in ("SELECT * FROM gguf(?)", "SELECT gguf_info(?)", "SELECT file_sha256(?)"):
        try:
            db.execute(sql, (fifo,)).fetchall()
            ok(False, sql + " on a FIFO fails")
        except sqlite3.Error as e:
            ok("not a regular file" in str(e), sql + " on a FIFO fails saying what it is", str(e))
    db.close()
    ok(not opened.wait(0.5), "no query opened the FIFO for reading (its writer is still blocked)")
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # let the writer go
    t.join(5)
    os.close(fd)


def gguf_string(b):
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, key, name):
    """A GGUF v3 with one u32 metadata entry named key and one F32 tensor
    of 2 elements named name (bytes, written as given)."""
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1)
    head += gguf_string(key) + struct.pack("<II", 4, 7)  # type 4: uint32
    head += gguf_string(name) + struct.pack("<I", 1) + struct.pack("<Q", 2)
    head += struct.pack("<IQ", 0, 0)  # type F32, offset 0
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head + struct.pack("<2f", 1.0, 2.0))


def write_safetensors(path, name):
    """A safetensors file with one F32 tensor of 2 elements named name
    (bytes, written into the JSON header as given)."""
    header = b'{"' + name + b'":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + struct.pack("<2f", 1.0, 2.0))


def utf8_checks(tmp):
    """Names and keys that are not UTF-8: BLOBs with their bytes, never
    broken TEXT."""
    bad_name, bad_key = b"blk.\xff\xfe.weight", b"general.\xc3("
    g = os.path.join(tmp, "bad.gguf")
    s = os.path.join(tmp, "bad.safetensors")
    write_gguf(g, bad_key, bad_name)
    write_safetensors(s, bad_name)
    good = os.path.join(tmp, "good.gguf")
    write_gguf(good, "general.é".encode(), "blk.é".encode())
    db = connect()
    for path in (g,):
        for table in ("tensors", "gguf"):
            try:
                rows = db.execute(
                    "SELECT name, typeof(name) FROM %s(?)" % table, (path,)).fetchall()
                ok(rows == [(bad_name, "blob")], "%s(): a non-UTF-8 name is a BLOB of its bytes"
                   % table, rows)
            except sqlite3.Error as e:
                ok(False, "%s() of a non-UTF-8 name" % table, str(e))
    try:
        rows = db.execute("SELECT key, typeof(key) FROM gguf_metadata(?) WHERE key IS NOT "
                          "'GGUF.version' AND typeof(key) = 'blob'", (g,)).fetchall()
        ok(rows == [(bad_key, "blob")], "gguf_metadata(): a non-UTF-8 key is a BLOB", rows)
    except sqlite3.Error as e:
        ok(False, "gguf_metadata() of a non-UTF-8 key", str(e))
    try:  # a safetensors header is JSON, which must be UTF-8: refused whole
        db.execute("SELECT name FROM safetensors(?)", (s,)).fetchall()
        ok(False, "a safetensors header that is not UTF-8 is refused")
    except sqlite3.Error as e:
        ok("invalid UTF-8 in header" in str(e), "a safetensors header that is not UTF-8 is "
           "refused", str(e))
    try:  # the report's HTML shows such a name with U+FFFD: always UTF-8
        html = db.execute("SELECT weights_report(?)", (g,)).fetchone()[0]
        ok("blk.\ufffd\ufffd.weight" in html.replace("&#xFFFD;", "\ufffd"),
           "weights_report() writes a non-UTF-8 name with U+FFFD")
    except sqlite3.Error as e:
        ok(False, "weights_report() of a non-UTF-8 name", str(e))
    rows = db.execute("SELECT name, typeof(name) FROM tensors(?)", (good,)).fetchall()
    ok(rows == [("blk.é", "text")], "a UTF-8 name stays TEXT", rows)
    rows = db.execute("SELECT count(*) FROM gguf_metadata(?) WHERE key = 'general.é'",
                      (good,)).fetchall()
    ok(rows == [(1,)], "a UTF-8 key stays TEXT", rows)
    db.close()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        fifo_checks(tmp)
        utf8_checks(tmp)
    print(checks.summary("catalog"))
    return checks.status()


if __name__ == "__main__":
    sys.exit(main())
