#!/usr/bin/python3
"""remote_test.py [MODULE]: every table and function over http:// and hf://.

Run from the repository root with Debian's /usr/bin/python3 after `make
testdata build/demo/.stamp`:

    /usr/bin/python3 tests/remote_test.py build/weights.so

Starts tests/http_server.py on 127.0.0.1 (a port the kernel picks) serving
build/, points HF_ENDPOINT at it, and checks:

  * the same rows (or the same error) over the local path, http:// and
    hf:// for every table of the demo model and the generated corpus, and
    of copies of the corpus with header bytes changed or cut (a fixed
    random seed: a differential of the local and the remote source);
  * blobs equal to the file's bytes read here in Python, hashes, values
    and statistics equal to the local ones;
  * request counts and bytes from the server's log: a 7.9 MB GGUF header
    (Llama-3-8B-shaped, written here) in 3 requests and < 1.1x its bytes, a
    small header in one request, a blob read of exactly the tensor's range;
  * each fault of the server: the right message or the right recovery, with
    the token never sent to another host or printed;
  * remote access turned off per connection (weights_remote(0)).

A watchdog (SIGALRM) fails the test instead of letting it hang.  Exit
status 0 when every check passed.  Prints "remote: N passed, M failed".
"""

import glob
import json
import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import time
import urllib.request

import checks
from checks import ok

MODULE = sys.argv[1] if len(sys.argv) > 1 else "build/weights.so"
ROOT = "build"
# The demo's model files (build/demo holds HTML reports too: a local folder
# lists every file, a remote one its model files by name), for the folder
# comparisons; copied there by main().
DEMO = "remote/demo"
HF_DEMO = "hf://org/repo/%s/" % DEMO

def connect():
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(MODULE)
    conn.enable_load_extension(False)
    return conn


def rows(conn, sql, *args):
    """The rows, or ("error", message)."""
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        return ("error", str(e))


def write_big_tail_gguf(path):
    """A GGUF of a 100-byte header and one 256 MiB F32 tensor (sparse): a
    server that ignores Range sends the whole file to a listing unless the
    reader stops.  Returns the file's size."""
    def s(b):
        return struct.pack("<Q", len(b)) + b
    n = 64 << 20
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1) + s(b"general.architecture") + \
        struct.pack("<I", 8) + s(b"llama") + s(b"tail.weight") + struct.pack("<IQIQ", 1, n, 0, 0)
    start = (len(head) + 31) // 32 * 32
    with open(path, "wb") as f:
        f.write(head + b"\0" * (start - len(head)))
        f.truncate(start + 4 * n)
    return start + 4 * n


class PlainServer:
    """Python's own `python3 -m http.server` on 127.0.0.1: no Range, no ETag."""
    def __init__(self, root):
        self.proc = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1",
                                      "--directory", root, "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (...)"
        self.base = "http://127.0.0.1:%d" % int(line.split(" port ")[1].split()[0])

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def write_big_gguf(path):
    """A GGUF shaped like Llama-3-8B's header: 128,256 tokenizer strings
    (a 7.9 MB header), then one 3 MiB F32 tensor.  Returns (data start,
    tensor offset, tensor bytes)."""
    def s(b):
        return struct.pack("<Q", len(b)) + b
    kv = [s(b"general.architecture") + struct.pack("<I", 8) + s(b"llama")]
    toks = [("tok%06d-" % i).encode() + b"x" * 43 for i in range(128256)]
    kv.append(s(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, len(toks)) +
              b"".join(s(t) for t in toks))
    n = 786432
    info = s(b"big.weight") + struct.pack("<IQIQ", 1, n, 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, len(kv)) + b"".join(kv) + info
    start = (len(head) + 31) // 32 * 32
    data = struct.pack("<%df" % 4096, *[float(i) for i in range(4096)]) * (n // 4096)
    with open(path, "wb") as f:
        f.write(head + b"\0" * (start - len(head)) + data)
    return start, start, len(data)


class Server:
    def __init__(self, root):
        self.proc = subprocess.Popen([sys.executable, "tests/http_server.py", root,
                                      "--lifetime", "600"], stdout=subprocess.PIPE)
        self.port = int(self.proc.stdout.readline())
        self.base = "http://127.0.0.1:%d" % self.port

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=10) as r:
            return r.read()

    def log(self):
        """The requests in the order they came (each is logged when its
        answer is out, so a 302 may be logged after what it led to)."""
        return sorted(json.loads(self.get("/_log")), key=lambda e: e["t0"])

    def log_of(self, part, n=1):
        """The entries whose path holds part, once there are n of them (a
        handler logs when its response is done: wait up to 10 s)."""
        for _ in range(100):
            got = [e for e in self.log() if part in e["path"]]
            if len(got) >= n:
                return got
            time.sleep(0.1)
        return got

    def reset(self):
        self.get("/_reset")

    def stop(self):
        self.proc.kill()
        self.proc.wait()


TABLES = {
    "gguf": ["gguf", "gguf_metadata", "tensors", "weights_files"],
    "safetensors": ["safetensors", "safetensors_metadata", "tensors", "weights_files"],
}


def same_everywhere(conn, srv, rel, kind):
    """Every table of a file gives the same rows (or error) locally, over
    http:// and over hf://.  The remote error may add the URL before the
    local one's text."""
    local = os.path.join(ROOT, rel)
    http = srv.base + "/files/" + rel
    hf = "hf://org/repo/" + rel
    for t in TABLES[kind]:
        sel = "SELECT * FROM %s(?)" % t
        if t == "weights_files":
            sel = "SELECT format, size, tensors, error FROM weights_files(?)"
        want = rows(conn, sel, local)
        for p in (http, hf):
            got = rows(conn, sel, p)
            if isinstance(want, tuple) and isinstance(got, tuple):
                tail = want[1].split(local + ": ", 1)[-1]
                ok(got[1].endswith(tail), "%s(%s) error" % (t, p), "%s vs %s" % (got, want))
            elif t == "weights_files" and not isinstance(want, tuple) and not isinstance(got, tuple):
                w = [r[:3] + ((r[3].split(local + ": ", 1)[-1] if r[3] else None),) for r in want]
                g = [r[:3] + ((r[3].split(": ")[-1] if r[3] else None),) for r in got]
                # a remote file that does not parse has NULL format and size (README)
                ok(len(w) == len(g) and all(a[:3] == b[:3] or (b[3] and b[:3] == (None,) * 3)
                                            for a, b in zip(w, g)) and
                   all((a[3] is None) == (b[3] is None) for a, b in zip(w, g)),
                   "weights_files(%s)" % p, "%s vs %s" % (got, want))
            else:
                ok(got == want, "%s(%s) rows" % (t, p), "%s vs %s" % (str(got)[:300], str(want)[:300]))


def check_functions(conn, srv, rel, kind):
    """Blobs against the file's bytes; hash, values, stats, compare against
    the local ones."""
    local = os.path.join(ROOT, rel)
    with open(local, "rb") as f:
        data = f.read()
    blobf = "gguf_blob" if kind == "gguf" else "safetensors_blob"
    listing = rows(conn, "SELECT name, offset, nbytes FROM tensors(?)", local)
    if isinstance(listing, tuple):
        return
    for p in (srv.base + "/files/" + rel, "hf://org/repo/" + rel):
        for name, off, nb in listing:
            if nb is None:
                continue
            want = data[off:off + nb]
            for fn in (blobf, "tensor_blob"):
                got = rows(conn, "SELECT %s(?, ?)" % fn, p, name)
                ok(not isinstance(got, tuple) and got[0][0] == want, "%s(%s, %s)" % (fn, p, name),
                   str(got)[:200])
            ok(rows(conn, "SELECT tensor_hash(?, ?)", p, name) ==
               rows(conn, "SELECT tensor_hash(?, ?)", local, name), "tensor_hash(%s, %s)" % (p, name))
            q = "SELECT idx, value FROM tensor_values(?, ?)"
            ok(rows(conn, q, p, name) == rows(conn, q, local, name), "tensor_values(%s, %s)" % (p, name))
            ok(rows(conn, "SELECT tensor_compare(?, ?, ?, ?)", p, name, local, name) ==
               rows(conn, "SELECT tensor_compare(?, ?, ?, ?)", local, name, local, name),
               "tensor_compare(%s, %s)" % (p, name))
        q = "SELECT * FROM tensor_stats(?)"
        ok(rows(conn, q, p) == rows(conn, q, local), "tensor_stats(%s)" % p)
        # the writing functions read a remote input (through the remote source, in
        # bounded chunks) and write the same file as from the local one
        out = os.path.join(ROOT, "remote", "written")
        for src in (p, local):
            if kind == "gguf":
                got = rows(conn, "SELECT gguf_rewrite(?, ?, NULL)", out + "-" + str(src == p), src)
            else:
                got = rows(conn, "SELECT safetensors_write(?, name, path) FROM tensors(?)",
                           out + "-" + str(src == p), src)
            ok(not isinstance(got, tuple), "written from %s" % src, str(got)[:200])
        with open(out + "-True", "rb") as a, open(out + "-False", "rb") as b:
            ok(a.read() == b.read(), "the file written from %s is the one written from %s" % (p, local))


def write_mutants(files, out, lo=0, hi=1024):
    """Differential local vs remote (issue 18): copies of the corpus files
    with bytes in [lo, hi) of their headers changed or cut (a fixed random
    seed), into ROOT/out.  Returns their (rel, kind)."""
    rnd = random.Random(18 + lo)
    os.makedirs(os.path.join(ROOT, out), exist_ok=True)
    made = []
    for i, (rel, kind) in enumerate(files):
        with open(os.path.join(ROOT, rel), "rb") as f:
            data = bytearray(f.read())
        span = min(len(data), hi) - lo
        how = i % 3 if span >= 8 else 1
        if how == 0:  # a few bytes changed
            for _ in range(rnd.randint(1, 4)):
                data[lo + rnd.randrange(span)] = rnd.randrange(256)
        elif how == 1:  # cut short
            data = data[:lo + rnd.randrange(len(data) - lo + 1)]
        else:  # an 8-byte field (a count, a length, an offset) made huge or small
            at = (lo + rnd.randrange(span)) & ~7
            data[at:at + 8] = struct.pack("<Q", rnd.choice([0, 1, 2**31, 2**63, 2**64 - 1,
                                                           rnd.randrange(2**64)]))
        name = "%s/m%03d-%s" % (out, i, os.path.basename(rel))
        with open(os.path.join(ROOT, name), "wb") as f:
            f.write(data)
        made.append((name, kind))
    return made


def expect_error(conn, sql, args, want, what):
    t0 = time.monotonic()
    got = rows(conn, sql, *args)
    ok(isinstance(got, tuple) and want in got[1], what, got)
    ok("sekrit" not in str(got), what + ": no token in the message", got)
    return time.monotonic() - t0


def main():
    signal.signal(signal.SIGALRM, lambda *a: (print("FAILED: remote_test timed out"), os._exit(1)))
    signal.alarm(300)
    if connect().execute("SELECT weights_remote()").fetchone()[0] == 0:
        print("remote: 0 passed, 0 failed, 1 skipped (a module built with REMOTE=0)")
        return
    os.makedirs(os.path.join(ROOT, "remote"), exist_ok=True)
    shutil.rmtree(os.path.join(ROOT, DEMO), ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "demo"), os.path.join(ROOT, DEMO),
                    ignore=shutil.ignore_patterns("*.html", ".stamp"))
    big_rel = "remote/big-header.gguf"
    start, toff, tbytes = write_big_gguf(os.path.join(ROOT, big_rel))
    srv = Server(ROOT)
    os.environ["HF_ENDPOINT"] = srv.base + "/"
    for k in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        os.environ.pop(k, None)
    os.environ["HF_TOKEN_PATH"] = "/nonexistent/token"
    cache_dir = os.path.abspath(os.path.join(ROOT, "remote", "cache"))
    subprocess.run(["rm", "-rf", cache_dir], check=True)
    os.environ["SQLITE_WEIGHTS_CACHE_DIR"] = cache_dir
    os.environ["SQLITE_WEIGHTS_CACHE"] = "off"  # until part 5
    try:
        conn = connect()
        # 1. the same rows and bytes as the local files
        files = [("demo/tiny-llama.gguf", "gguf"), ("demo/tiny-llama.safetensors", "safetensors")]
        files += [(os.path.relpath(p, ROOT), "gguf") for p in sorted(glob.glob(ROOT + "/testdata/gguf/*.gguf"))]
        files += [(os.path.relpath(p, ROOT), "safetensors")
                  for p in sorted(glob.glob(ROOT + "/testdata/safetensors/*.safetensors"))]
        for rel, kind in files:
            same_everywhere(conn, srv, rel, kind)
        # the same over files with broken headers (the remote source must
        # read the same bytes and fail the same way)
        for rel, kind in write_mutants(files, "remote/mutants"):
            same_everywhere(conn, srv, rel, kind)
        # and past the first range (2 MiB), read by the growing requests
        for rel, kind in write_mutants([(big_rel, "gguf")] * 3, "remote/mutants", 2 << 20, start):
            same_everywhere(conn, srv, rel, kind)
        for rel, kind in files[:2]:
            check_functions(conn, srv, rel, kind)
        # a split GGUF and a sharded index: their other files read remotely
        for rel, t in (("testdata/trees/split/x-00001-of-00003.gguf", "gguf"),
                       ("testdata/trees/sharded_gen/model.safetensors.index.json", "safetensors"),
                       ("testdata/trees/sharded/model.safetensors.index.json", "safetensors")):
            q = "SELECT *, file FROM %s(?)" % t
            want = rows(conn, q, os.path.join(ROOT, rel))
            for p in (srv.base + "/files/" + rel, "hf://org/repo/" + rel):
                got = rows(conn, q, p)
                base = p[:p.rindex("/") + 1]
                got = [r[:-1] + (os.path.basename(r[-1]),) for r in got] if not isinstance(got, tuple) else got
                ok(not isinstance(want, tuple) and len(want) > 1 and
                   got == [r[:-1] + (os.path.basename(r[-1]),) for r in want], "%s(%s)" % (t, p),
                   "%s vs %s" % (str(got)[:200], str(want)[:200]))
                files_read = rows(conn, "SELECT DISTINCT file FROM %s(?)" % t, p)
                ok(all(f[0].startswith(base) for f in files_read), "parts read from " + base, files_read)
        # a repo folder listed through the tree API (3 entries a page)
        for folder, t in ((DEMO, "gguf"), (DEMO, "safetensors"), ("testdata/trees/sharded", "tensors"),
                          ("testdata/trees/split", "weights_files")):
            q = "SELECT *, file FROM %s(?)" % t
            if t == "weights_files":
                q = "SELECT format, size, tensors, error, file FROM weights_files(?)"
            want = rows(conn, q, os.path.join(ROOT, folder))
            srv.reset()
            got = rows(conn, q, "hf://org/repo/%s/" % folder)
            pages = [e for e in srv.log() if e["path"].startswith("/api/")]
            strip = lambda rs: [r[:-1] + (os.path.relpath(r[-1], ROOT) if r[-1].startswith(ROOT)
                                          else r[-1][len("hf://org/repo/"):],) for r in rs]
            if isinstance(want, tuple):  # a file of the folder fails: the same error, named remotely
                ok(isinstance(got, tuple) and
                   got[1] == want[1].replace(os.path.join(ROOT, folder) + "/", "hf://org/repo/%s/" % folder),
                   "%s(hf://org/repo/%s/) error" % (t, folder), "%s vs %s" % (got, want))
            else:
                ok(not isinstance(got, tuple) and len(want) > 1 and strip(got) == strip(want),
                   "%s(hf://org/repo/%s/)" % (t, folder), "%s vs %s" % (str(got)[:300], str(want)[:300]))
            entries = sum(len(fs) + len(ds) for _, ds, fs in os.walk(os.path.join(ROOT, folder)))
            ok(len(pages) == (entries + 2) // 3, "tree pages followed: %d entries" % entries, pages)
        expect_error(conn, "SELECT * FROM gguf(?)", ("hf://org/private/demo/",), "needs a token: set HF_TOKEN",
                     "a private repo without a token")
        # models, not files: weights_models over a remote folder counts what the local one counts
        for folder in ("testdata/trees/sharded", "testdata/trees/split", "testdata/trees/split_missing",
                       "testdata/trees/index_missing", "testdata/trees/shards_broken", DEMO):
            lw = rows(conn, "SELECT * FROM weights_models(?)", os.path.join(ROOT, folder))
            got = rows(conn, "SELECT * FROM weights_models(?)", "hf://org/repo/%s/" % folder)
            loc = os.path.join(ROOT, folder) + "/"
            norm = lambda rs, pre: [tuple(v.replace(pre, "") if isinstance(v, str) else v for v in r) for r in rs]
            ok(not isinstance(lw, tuple) and len(lw) >= 1 and
               norm(got, "hf://org/repo/%s/" % folder) == norm(lw, loc),
               "weights_models(hf://org/repo/%s/)" % folder, "%s vs %s" % (str(got)[:300], str(lw)[:300]))
        # what each model is, remotely: config.json and adapter_config.json read through the same
        # byte source (a 404 is no such file); the values worked out by hand in tests/gen_catalog.py
        q = "SELECT kind, architecture, base_model, context_length, quantization FROM weights_models(?)"
        for rel, want in (("testdata/catalog/st/lora/adapter_model.safetensors",
                           ("adapter", None, "org/base-7b", None, "F32")),
                          ("testdata/catalog/st/gptq/model.safetensors", ("model", "llama", None, 4096, "gptq 4-bit")),
                          ("testdata/catalog/st/gptq_plain/model.safetensors",
                           ("model", "llama", None, 4096, "gptq 4-bit (config.json only: no .qweight tensors)")),
                          ("testdata/catalog/st/gemma3/model.safetensors", ("model", "gemma3", None, 131072, "F32")),
                          ("testdata/catalog/st/sharded/model.safetensors.index.json",
                           ("model", "llama", None, 4096, "BF16+F32")),
                          ("testdata/catalog/gguf/model-q4km.gguf", ("model", "llama", "org/base-7b", 4096, "Q4_K_M")),
                          ("testdata/catalog/gguf/mmproj.gguf", ("projector", "clip", None, None, "F16"))):
            for p in (srv.base + "/files/" + rel, "hf://org/repo/" + rel):
                got = rows(conn, q, p)
                ok(got == [want], "what the model is, over " + p, got)
        for folder in ("testdata/catalog/gguf", "testdata/catalog/st/lora_renamed", "testdata/catalog/st/rerank"):
            q2 = "SELECT substr(model, length(?1) + 1), " + q[len("SELECT "):].replace("(?)", "(?1)")
            lw = rows(conn, q2, os.path.join(ROOT, folder) + "/")
            got = rows(conn, q2, "hf://org/repo/%s/" % folder)
            ok(not isinstance(lw, tuple) and len(lw) >= 1 and got == lw,
               "what the models are: hf://org/repo/%s/" % folder, "%s vs %s" % (str(got)[:300], str(lw)[:300]))
        # a remote folder's files are opened at once, at most 8 (WT_HTTP_PARALLEL) at a time
        many = os.path.join(ROOT, "remote", "many")
        os.makedirs(many, exist_ok=True)
        with open(os.path.join(ROOT, "demo", "tiny-llama.gguf"), "rb") as f:
            demo_bytes = f.read()
        for i in range(12):
            with open(os.path.join(many, "m%02d.gguf" % i), "wb") as f:
                f.write(demo_bytes)
        def in_flight(log):
            ev = sorted([(e["t0"], 1) for e in log] + [(e["t1"], -1) for e in log])
            top = cur = 0
            for _, d in ev:
                cur += d
                top = max(top, cur)
            return top
        for q, expect in (("SELECT count(*) FROM gguf(?)", 12 * 21), ("SELECT count(*) FROM weights_files(?)", 12),
                          ("SELECT sum(tensors) FROM weights_models(?)", 12 * 21)):
            conn2 = connect()
            srv.reset()
            got = rows(conn2, q, "hf://org/fault-slow/remote/many/")
            slow = [e for e in srv.log_of("/f/slow/", 12) if e["path"].startswith("/f/slow/")]
            ok(got == [(expect,)] and len(slow) == 12 and 2 <= in_flight(slow) <= 8,
               "%s over a remote folder: %d requests, %d at once" % (q.split(" FROM ")[1], len(slow), in_flight(slow)),
               (got, len(slow), in_flight(slow)))
            srv.reset()
            ok(rows(conn2, q, "hf://org/fault-slow/remote/many/") == [(expect,)] and
               not [e for e in srv.log() if e["path"].startswith("/f/")],
               "the same again: the open files reused, no request", srv.log()[:3])
            conn2.close()
        # a function given a repo folder reads its models as it reads a local folder's
        for name in ("x", "model.norm.weight", "output_norm.weight"):
            lw = rows(conn, "SELECT tensor_hash(?, ?)", os.path.join(ROOT, DEMO), name)
            got = rows(conn, "SELECT tensor_hash(?, ?)", HF_DEMO, name)
            if isinstance(lw, tuple):
                lw = (lw[0], lw[1].replace(os.path.join(ROOT, DEMO) + "/", HF_DEMO)
                      .replace("(): %s:" % os.path.join(ROOT, DEMO), "(): %s:" % HF_DEMO))
            ok(got == lw, "tensor_hash(%s, %s)" % (HF_DEMO, name), "%s vs %s" % (got, lw))
        # "**" lists a remote folder recursively, as it does a local one
        lw = rows(conn, "SELECT count(*) FROM weights_files(?)", os.path.join(ROOT, DEMO, "**"))
        ok(lw[0][0] > 6 and rows(conn, "SELECT count(*) FROM weights_files(?)", HF_DEMO + "**") == lw,
           "weights_files(%s**)" % HF_DEMO, lw)
        expect_error(conn, "SELECT * FROM tensors(?)",
                     ("hf://org/repo/testdata/trees/index_bad/missing_shard.safetensors.index.json",),
                     "model-00004-of-00004.safetensors) HTTP 404: not found", "a missing remote shard")
        conn.close()

        # 2. requests and bytes
        conn = connect()
        srv.reset()
        r = rows(conn, "SELECT count(*) FROM gguf_metadata(?)", srv.base + "/files/demo/tiny-llama.gguf")
        log = srv.log()
        ok(len(log) == 1 and log[0]["range"] == "bytes=0-65535" and log[0]["status"] == 206,
           "a small header: one request of 64 KiB", log)
        srv.reset()
        big = srv.base + "/files/" + big_rel
        r = rows(conn, "SELECT count(*) FROM gguf(?)", big)
        log = srv.log()
        sent = sum(e["bytes"] for e in log)
        ok(r == [(1,)], "big header parsed", r)
        ok(len(log) == 2 and log[0]["range"] == "bytes=0-65535",
           "a 7.9 MB header in 2 requests (64 KiB, then up to where the parser expects its end)", log)
        ok(sent < 1.01 * start, "a header read costs < 1.01x its %d bytes" % start, sent)
        print("remote: a %d-byte header: %d requests, %d bytes (%.3fx)" % (start, len(log), sent, sent / start))
        srv.reset()
        r = rows(conn, "SELECT gguf_blob(?, 'big.weight')", big)
        log = srv.log()
        with open(os.path.join(ROOT, big_rel), "rb") as f:
            f.seek(toff)
            want = f.read(tbytes)
        ok(not isinstance(r, tuple) and r[0][0] == want, "big blob equals the file's bytes")
        got_ranges = sorted(tuple(int(x) for x in e["range"][6:].split("-")) for e in log)
        covered = sum(b - a + 1 for a, b in got_ranges)
        ok(covered == tbytes and got_ranges[0][0] == toff and got_ranges[-1][1] == toff + tbytes - 1 and
           sum(e["bytes"] for e in log) == tbytes, "a blob read transfers the tensor's bytes only",
           got_ranges[:3])
        srv.reset()
        r = rows(conn, "SELECT count(*) FROM tensor_values(?, 'big.weight', 10, 5)", big)
        log = srv.log()
        ok(r == [(5,)] and sum(e["bytes"] for e in log) < 65536, "a slice of values reads a block", log)
        conn.close()

        # 3. faults
        conn = connect()
        f = srv.base + "/f/%s/" + big_rel
        q = "SELECT count(*) FROM gguf(?)"
        srv.reset()
        local_rows = rows(conn, "SELECT * FROM gguf(?)", os.path.join(ROOT, big_rel))
        ok(rows(conn, "SELECT * FROM gguf(?)", f % "ignore-range") == local_rows,
           "a server that ignores Range: the header read from the start of the 200", len(local_rows))
        log = srv.log_of("ignore-range")
        ok([e["status"] for e in log] == [200], "a server that ignores Range: one request", log)
        expect_error(conn, "SELECT gguf_blob(?, 'big.weight')", (f % "ignore-range",),
                     "the server cannot serve ranges", "a blob past the header from it")
        tail_rel = "remote/big-tail.gguf"
        tail_size = write_big_tail_gguf(os.path.join(ROOT, tail_rel))
        srv.reset()
        ok(rows(conn, "SELECT name, nbytes FROM gguf(?)", srv.base + "/f/ignore-range/" + tail_rel) ==
           [("tail.weight", 256 << 20)],
           "a 256 MiB file with a 100-byte header from a server that ignores Range")
        log = srv.log_of("ignore-range")
        sent = sum(e["bytes"] for e in log)
        ok(len(log) == 1 and sent < tail_size // 8, "the 200 is closed once the header is read", log)
        os.remove(os.path.join(ROOT, tail_rel))
        plain = PlainServer(os.path.abspath(ROOT))
        try:
            for rel in ("demo/tiny-llama.gguf", "demo/tiny-llama.safetensors", big_rel):
                q2 = "SELECT * FROM tensors(?)"
                ok(rows(conn, q2, plain.base + "/" + rel) == rows(conn, q2, os.path.join(ROOT, rel)),
                   "python3 -m http.server: tensors(%s)" % rel)
            expect_error(conn, "SELECT gguf_blob(?, 'big.weight')", (plain.base + "/" + big_rel,),
                         "the server cannot serve ranges", "python3 -m http.server: a blob")
        finally:
            plain.stop()
        srv.reset()
        t0 = time.monotonic()
        ok(rows(conn, q, f % "429once") == [(1,)], "429 then ok: recovered")
        ok(time.monotonic() - t0 >= 0.9, "Retry-After: 1 was waited for")
        ok([e["status"] for e in srv.log_of("429once", 3)] == [429, 206, 206], "429 then 206",
           srv.log_of("429once"))
        ok(rows(conn, q, f % "500once") == [(1,)], "500 then ok: recovered")
        ok(rows(conn, q, f % "close-early-once") == [(1,)], "a body cut once: recovered")
        os.environ["SQLITE_WEIGHTS_HTTP_RETRIES"] = "2"
        srv.reset()
        expect_error(conn, q, (f % "500always",), "HTTP 500", "500 every time")
        ok(len(srv.log_of("500always", 3)) == 3, "500 every time: 1 + 2 retries", srv.log_of("500always"))
        expect_error(conn, q, (f % "close-early",), "", "a body cut every time")
        os.environ["SQLITE_WEIGHTS_HTTP_RETRIES"] = "0"
        os.environ["SQLITE_WEIGHTS_HTTP_STALL"] = "1"
        took = expect_error(conn, q, (f % "stall",), "stalled", "a stalled transfer")
        ok(took < 10, "a stall ends in bounded time", took)
        expect_error(conn, q, ("http://127.0.0.1:1/x.gguf",), "onnect", "connection refused")
        del os.environ["SQLITE_WEIGHTS_HTTP_STALL"]
        del os.environ["SQLITE_WEIGHTS_HTTP_RETRIES"]
        expect_error(conn, q, (f % "bad-range",), "wrong Content-Range", "a wrong Content-Range")
        expect_error(conn, q, (f % "notfound",), "HTTP 404", "404")
        expect_error(conn, q, ("hf://org/repo/nothing-here.gguf",), "HTTP 404", "404 through hf://")
        expect_error(conn, q, (f % "redirect-loop",), "redirects", "a redirect loop")
        expect_error(conn, q, (f % "redirect-ftp",), "protocol", "a redirect to ftp://")
        expect_error(conn, "SELECT gguf_blob(?, 'big.weight')", (f % "change",),
                     "file changed on the server", "a file changed between requests")
        expect_error(conn, q, ("hf://org/fault-token/" + big_rel,), "needs a token: set HF_TOKEN",
                     "401 without a token")
        conn.close()
        os.environ["HF_TOKEN"] = "sekrit"
        conn = connect()
        lw = rows(conn, "SELECT count(*), count(tensors) FROM weights_files(?)", os.path.join(ROOT, DEMO))
        ok(lw[0][1] > 1 and rows(conn, "SELECT count(*), count(tensors) FROM weights_files(?)",
                                   "hf://org/private/%s/" % DEMO) == lw,
           "a private repo listed with the token", lw)
        srv.reset()
        ok(rows(conn, q, "hf://org/fault-token/" + big_rel) == [(1,)], "401 with the token: ok")
        ok(all(e["auth"] for e in srv.log()), "the token sent to the endpoint's host", srv.log())
        srv.reset()
        ok(rows(conn, "SELECT count(*) FROM gguf(?)", "hf://org/other-host/demo/tiny-llama.gguf") == [(21,)],
           "a redirect to another host: read")
        log = srv.log()
        ok([(e["host"].split(":")[0], e["auth"]) for e in log] == [("127.0.0.1", True), ("localhost", False)],
           "the token is not sent after a redirect to another host", log)
        srv.reset()
        r = rows(conn, "SELECT gguf_blob(?, 'big.weight')", "hf://org/other-host/" + big_rel)
        log = srv.log()
        ok(not isinstance(r, tuple) and r[0][0] == want, "a blob through the CDN redirect")
        ok([e["status"] for e in log].count(302) == 1 and len(log) == 1 + 2 + 1,
           "the redirect is followed once, then its target is read (2 header + 1 blob requests)",
           [(e["path"], e["status"]) for e in log])
        ok([(e["host"].split(":")[0], e["auth"]) for e in log[1:]] == [("localhost", False)] * (len(log) - 1),
           "the CDN host never gets the token", log[:3])
        srv.reset()
        rows(conn, "SELECT count(*) FROM gguf(?)", "http://localhost:%d/files/demo/tiny-llama.gguf" % srv.port)
        ok([e["auth"] for e in srv.log()] == [False], "no token to a host that is not the endpoint's", srv.log())
        conn.close()
        del os.environ["HF_TOKEN"]

        # 4. remote access off per connection
        conn = connect()
        demo = srv.base + "/files/demo/tiny-llama.gguf"
        ok(rows(conn, "SELECT weights_remote()") == [(1,)], "remote access is on by default")
        ok(rows(conn, "SELECT weights_remote(0)") == [(0,)], "weights_remote(0)")
        srv.reset()
        expect_error(conn, "SELECT count(*) FROM gguf(?)", (demo,), "remote access is off", "off: gguf()")
        expect_error(conn, "SELECT tensor_hash(?, 'token_embd.weight')", (demo,), "remote access is off",
                     "off: tensor_hash()")
        expect_error(conn, "SELECT * FROM gguf(?)", ("hf://org/repo/demo/",), "remote access is off",
                     "off: a repo folder")
        expect_error(conn, "SELECT * FROM tensors(?)",
                     ("hf://org/repo/testdata/trees/sharded_gen/model.safetensors.index.json",),
                     "remote access is off", "off: an index")
        ok(srv.log() == [], "off: no request", srv.log())
        ok(rows(conn, "SELECT count(*) FROM gguf(?)", "build/demo/tiny-llama.gguf") == [(21,)],
           "off: local files still read")
        ok(rows(conn, "SELECT weights_remote(1)") == [(1,)] and
           rows(conn, "SELECT count(*) FROM gguf(?)", demo) == [(21,)], "weights_remote(1) turns it on")
        conn.execute("CREATE VIEW v AS SELECT weights_remote(1)")
        expect_error(conn, "SELECT * FROM v", (), "unsafe use", "weights_remote is DIRECTONLY")
        conn.close()
        ok(not os.path.exists(cache_dir), "SQLITE_WEIGHTS_CACHE=off: nothing written")

        # 5. the header cache on disk
        del os.environ["SQLITE_WEIGHTS_CACHE"]
        q = "SELECT * FROM gguf(?)"
        local = rows(connect(), q, os.path.join(ROOT, big_rel))
        srv.reset()
        conn = connect()
        ok(rows(conn, q, big) == local, "disk cache: first query")
        conn.close()
        ok(len(srv.log()) == 2 and len(glob.glob(cache_dir + "/*.hdr")) == 1, "disk cache: written",
           srv.log())
        kept = os.path.getsize(glob.glob(cache_dir + "/*.hdr")[0])
        ok(start - 32 < kept < start + 1024, "disk cache: only the header's bytes are kept", (kept, start))
        srv.reset()
        conn = connect()  # a new connection: nothing in memory
        ok(rows(conn, q, big) == local, "disk cache: second query, same rows")
        log = srv.log()
        ok([e["status"] for e in log] == [304], "disk cache: one conditional request (304)", log)
        srv.reset()
        r = rows(conn, "SELECT gguf_blob(?, 'big.weight')", big)
        ok(not isinstance(r, tuple) and r[0][0] == want and
           sum(e["bytes"] for e in srv.log()) == tbytes, "disk cache: blob read after a 304", srv.log()[:2])
        conn.close()
        commit = "hf://org/repo@0123456789abcdef0123456789abcdef01234567/" + big_rel
        conn = connect()
        rows(conn, q, commit)
        conn.close()
        srv.reset()
        conn = connect()
        ok(rows(conn, q, commit) == local and srv.log() == [], "disk cache: a commit's file: no request",
           srv.log())
        conn.close()
        srv.reset()
        conn = connect()
        ok(rows(conn, q, srv.base + "/f/ignore-inm/" + big_rel) == local, "disk cache: If-None-Match ignored")
        conn.close()
        srv.reset()
        conn = connect()
        ok(rows(conn, q, srv.base + "/f/ignore-inm/" + big_rel) == local,
           "disk cache: If-None-Match ignored, same ETag: the kept header")
        log = srv.log()
        ok([e["status"] for e in log] == [206] and log[0]["bytes"] <= 65536,
           "disk cache: If-None-Match ignored, same ETag: one request, stopped there", log)
        conn.close()
        os.utime(os.path.join(ROOT, big_rel), ns=(1, 1))  # a new ETag on the server
        srv.reset()
        conn = connect()
        ok(rows(conn, q, big) == local, "disk cache: a changed file is read again")
        ok([e["status"] for e in srv.log()][:1] == [206], "disk cache: changed ETag gives 206", srv.log())
        conn.close()
        os.environ["SQLITE_WEIGHTS_CACHE_MB"] = "1"
        conn = connect()
        rows(conn, q, srv.base + "/files/demo/tiny-llama.gguf")
        conn.close()
        del os.environ["SQLITE_WEIGHTS_CACHE_MB"]
        size = sum(os.path.getsize(p) for p in glob.glob(cache_dir + "/*.hdr"))
        ok(size <= 1 << 20, "disk cache: bounded by SQLITE_WEIGHTS_CACHE_MB", size)
    finally:
        srv.stop()
    print(checks.summary("remote"))
    sys.exit(checks.status())


if __name__ == "__main__":
    main()
