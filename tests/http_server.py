#!/usr/bin/python3
"""http_server.py ROOT: a range-serving HTTP server for the remote tests.

Serves the files under ROOT on 127.0.0.1 (port 0: the kernel picks one,
printed as the first line on stdout) with a ThreadingHTTPServer, single
ranges only ("bytes=a-b", "bytes=a-", "bytes=-n"), a strong ETag per file
(size and modification time; If-None-Match with it gives 304), and these
paths:

  /files/PATH                       the file, 206 for a Range, 200 without
  /api/models/ORG/REPO/tree/REV[/FOLDER]   the Hub's tree API over ROOT
                                    (recursive, 3 entries a page, Link rel="next";
                                    REPO "private" needs the token)
  /ORG/REPO/resolve/REV/PATH        the Hub: 302 to /files/PATH with
                                    X-Repo-Commit and X-Linked-Etag (as the Hub's CDN
                                    redirect), also under /datasets/
  /f/FAULT/PATH                     /files/PATH misbehaving (FAULT below)
  /_log, /_reset                    the request log as JSON; clear it and the
                                    fault counters

FAULT: ignore-range (200, whole body), 429once (429 Retry-After: 1, then ok),
500once (500, then ok), 500always, stall (4 s pause after some bytes, then
the rest), close-early (half the body then close), close-early-once,
bad-range (Content-Range off by one), change (a new ETag after the first
request), token (401 unless "Authorization: Bearer sekrit"), other-host
(302 to the same path under /files on "localhost" instead of 127.0.0.1),
redirect-loop (302 to itself), redirect-ftp (302 to ftp://), notfound (404),
slow (each answer 0.3 s late: shows how many requests run at once),
ignore-inm (If-None-Match ignored: the file again, with the same ETag).

Every request is logged: method, path, Host, Range, status, body bytes
sent, whether an Authorization header came, when it came and ended (t0, t1).  The server exits after
--lifetime seconds (default 300) so that a test that dies leaves nothing.
"""

import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
LOG = []
ACTIVE = [0]  # requests being answered (not /_log or /_reset): /_log waits for 0
COUNTS = {}
LOCK = threading.Lock()
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def etag_of(path):
    st = os.stat(path)
    return '"%x-%x"' % (st.st_size, st.st_mtime_ns)


def count(key):
    with LOCK:
        COUNTS[key] = COUNTS.get(key, 0) + 1
        return COUNTS[key]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once

    def log_message(self, fmt, *args):
        pass

    def log(self, status, sent):
        if self.path.startswith("/_"):
            return
        with LOCK:
            LOG.append({"method": self.command, "path": self.path,
                        "t0": getattr(self, "t0", 0.0), "t1": time.monotonic(),
                        "host": self.headers.get("Host", ""),
                        "range": self.headers.get("Range"),
                        "auth": self.headers.get("Authorization") is not None,
                        "status": status, "bytes": sent})

    def plain(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.log(status, len(body))

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        """Answer; /_log and /_reset once no other answer is in progress (each
        is logged when it is out, which may be after its client has read it
        all, or, for one its client gave up on, during a later test)."""
        counted = not self.path.startswith("/_")
        if counted:
            with LOCK:
                ACTIVE[0] += 1
        try:
            self.answer()
        finally:
            if counted:
                with LOCK:
                    ACTIVE[0] -= 1

    def answer(self):
        self.t0 = time.monotonic()
        path = self.path.split("?", 1)[0]
        if path in ("/_log", "/_reset"):
            deadline = time.monotonic() + 10
            while ACTIVE[0] > 0 and time.monotonic() < deadline:
                time.sleep(0.005)
        if path == "/_log":
            with LOCK:
                body = json.dumps(LOG).encode()
            return self.plain(200, body)
        if path == "/_reset":
            with LOCK:
                LOG.clear()
                COUNTS.clear()
            return self.plain(200, b"ok")
        m = re.match(r"^/api/(models|datasets|spaces)/([^/]+)/([^/]+)/tree/([^/]+)(/[^?]*)?$", path)
        if m:
            return self.tree(m.group(5) or "", m.group(1), m.group(2), m.group(3), m.group(4))
        m = re.match(r"^/(datasets/|spaces/)?([^/]+)/([^/]+)/resolve/([^/]+)/(.+)$", path)
        if m and not path.startswith("/files/") and not path.startswith("/f/"):
            org, repo, rev, rest = m.group(2), m.group(3), m.group(4), m.group(5)
            target = "/files/" + rest
            if repo == "other-host":  # a CDN on another host
                port = self.server.server_address[1]
                target = "http://localhost:%d/files/%s" % (port, rest)
            elif repo.startswith("fault-"):
                target = "/f/%s/%s" % (repo[6:], rest)
            local = os.path.join(ROOT, rest)
            if not os.path.isfile(local):
                return self.plain(404, b"Entry not found")
            return self.plain(302, b"", [("Location", target), ("X-Repo-Commit", COMMIT),
                                         ("X-Linked-Etag", etag_of(local)),
                                         ("X-Linked-Size", str(os.path.getsize(local)))])
        fault = None
        if path.startswith("/f/"):
            parts = path.split("/", 3)
            if len(parts) < 4:
                return self.plain(404)
            fault, rel = parts[2], parts[3]
        elif path.startswith("/files/"):
            rel = path[len("/files/"):]
        else:
            return self.plain(404, b"not found")
        local = os.path.normpath(os.path.join(ROOT, rel))
        if not local.startswith(ROOT + os.sep) or not os.path.isfile(local):
            return self.plain(404, b"not found")
        return self.serve(local, fault, path)

    def tree(self, folder, kind, org, repo, rev):
        """The Hub's tree API over ROOT (recursive), 3 entries a page, with
        Link rel="next" (?cursor=N); repo "private" needs the token."""
        from urllib.parse import unquote, urlsplit, parse_qs
        if repo == "private" and self.headers.get("Authorization") != "Bearer sekrit":
            return self.plain(401, b"Invalid credentials")
        base = os.path.join(ROOT, unquote(folder).strip("/"))
        if not os.path.isdir(base) or not os.path.abspath(base).startswith(ROOT):
            return self.plain(404, b"Entry not found")
        entries = []
        for d, dirs, names in os.walk(base):
            dirs.sort()
            for name in sorted(dirs):
                entries.append({"type": "directory", "oid": "0" * 40,
                                "path": os.path.relpath(os.path.join(d, name), ROOT), "size": 0})
            for name in sorted(names):
                full = os.path.join(d, name)
                entries.append({"type": "file", "oid": "1" * 40, "size": os.path.getsize(full),
                                "path": os.path.relpath(full, ROOT)})
        q = parse_qs(urlsplit(self.path).query)
        start = int(q.get("cursor", ["0"])[0])
        page = entries[start:start + 3]
        headers = []
        if start + 3 < len(entries):
            headers.append(("Link", '<http://127.0.0.1:%d%s?recursive=true&cursor=%d>; rel="next"' % (
                self.server.server_address[1], urlsplit(self.path).path, start + 3)))
        return self.plain(200, json.dumps(page).encode(), headers)

    def serve(self, local, fault, path):
        if fault == "notfound":
            return self.plain(404, b"nope")
        if fault == "token" and self.headers.get("Authorization") != "Bearer sekrit":
            return self.plain(401, b"Invalid credentials")
        if fault == "other-host":
            port = self.server.server_address[1]
            return self.plain(302, b"", [("Location", "http://localhost:%d/files/%s" % (
                port, path.split("/", 3)[3]))])
        if fault == "redirect-loop":
            return self.plain(302, b"", [("Location", path)])
        if fault == "redirect-ftp":
            return self.plain(302, b"", [("Location", "ftp://127.0.0.1/x")])
        if fault == "slow":
            time.sleep(0.3)
        n = count((fault, path))
        if fault == "429once" and n == 1:
            return self.plain(429, b"slow down", [("Retry-After", "1")])
        if fault == "500once" and n == 1:
            return self.plain(500, b"oops")
        if fault == "500always":
            return self.plain(500, b"oops")
        size = os.path.getsize(local)  # read below only the bytes sent (a bench file is 4.9 GB)
        etag = etag_of(local)
        if fault == "change" and n > 1:
            etag = '"changed-%d"' % n
        if self.headers.get("If-None-Match") == etag and fault != "ignore-inm":
            return self.plain(304, b"", [("ETag", etag)])
        rng = self.headers.get("Range")
        start, end = 0, size - 1
        status = 200
        if rng and fault != "ignore-range":
            m = re.match(r"^bytes=(\d*)-(\d*)$", rng)
            if not m or (m.group(1) == "" and m.group(2) == ""):
                return self.plain(416, b"", [("Content-Range", "bytes */%d" % size)])
            if m.group(1) == "":
                start, end = max(0, size - int(m.group(2))), size - 1
            else:
                start = int(m.group(1))
                end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            if start >= size:
                return self.plain(416, b"", [("Content-Range", "bytes */%d" % size)])
            status = 206
        length = max(0, end + 1 - start)
        self.send_response(status)
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            shown = (start + 1, end + 1) if fault == "bad-range" else (start, end)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (shown[0], shown[1], size))
        self.send_header("Content-Length", str(length))
        self.end_headers()
        if self.command == "HEAD":
            return self.log(status, 0)
        sent = 0
        try:
            with open(local, "rb") as f:
                f.seek(start)
                if fault == "stall":
                    self.wfile.write(f.read(16))
                    self.wfile.flush()
                    sent = min(16, length)
                    time.sleep(4)
                    self.wfile.write(f.read(length - sent))
                    sent = length
                elif fault == "close-early" or (fault == "close-early-once" and n == 1):
                    half = f.read(length // 2)
                    self.wfile.write(half)
                    sent = len(half)
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                else:
                    # sendfile(2) in 1 MiB pieces: an aborted transfer is seen in the
                    # byte count, and this server is not what `make bench` measures
                    self.wfile.flush()
                    while sent < length:
                        k = os.sendfile(self.connection.fileno(), f.fileno(), start + sent,
                                        min(1 << 20, length - sent))
                        if k <= 0:
                            break
                        sent += k
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True
        self.log(status, sent)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up early is one of the tests


def main():
    lifetime = 300
    if "--lifetime" in sys.argv:
        lifetime = int(sys.argv[sys.argv.index("--lifetime") + 1])
    srv = Server(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    threading.Timer(lifetime, lambda: os._exit(0)).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
