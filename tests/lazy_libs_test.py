#!/usr/bin/python3
"""lazy_libs_test.py [MODULE]: libcurl and libcrypto are loaded when first
needed, not by `.load`.

Run from the repository root with Debian's /usr/bin/python3 after
`make build/weights.so build/demo/.stamp`:

    /usr/bin/python3 tests/lazy_libs_test.py build/weights.so

Checks, each in a fresh process (the libraries a process maps are read
from /proc/self/maps, an account independent of the module):
- the module's ELF header (readelf -d) needs neither libcurl nor libcrypto;
- loading the module and listing a local file maps neither;
- tensor_hash(..., 'sha256') maps libcrypto (and gives sha256sum's answer
  for a file hashed whole, file_sha256), and does not map libcurl;
- a remote path maps libcurl (unless the module was built with REMOTE=0);
- with SQLITE_WEIGHTS_LIBCRYPTO / SQLITE_WEIGHTS_LIBCURL naming a library
  that does not exist, the query fails with a message naming the library and
  the Debian package, and a local listing still works.
Last line "lazy_libs: N passed, M failed"; exit 1 on failure.
"""

import json
import os
import subprocess
import sys

import checks
from checks import ok

MODULE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/weights.so")
DEMO = os.path.abspath("build/demo/tiny-llama.gguf")

# Run in a child: load the module, run the queries, print the result and
# which of the libraries the process maps.
CHILD = r"""
import json, sqlite3, sys
module, queries = sys.argv[1], json.loads(sys.argv[2])
def mapped():
    with open("/proc/self/maps") as f:
        text = f.read()
    return {"curl": "libcurl" in text, "crypto": "libcrypto" in text}
out = {"before": mapped()}
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension(module)
out["loaded"] = mapped()
out["results"] = []
for q, args in queries:
    try:
        out["results"].append(["ok", conn.execute(q, args).fetchall()])
    except sqlite3.Error as e:
        out["results"].append(["error", str(e)])
out["after"] = mapped()
print(json.dumps(out))
"""

def run(queries, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([sys.executable, "-c", CHILD, MODULE, json.dumps(queries)], env=e,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return {"results": [["error", r.stderr]], "before": {}, "loaded": {}, "after": {}}
    return json.loads(r.stdout)


def main():
    needed = subprocess.run(["readelf", "-d", MODULE], capture_output=True, text=True).stdout
    needed = [l.split("[")[1].rstrip("]") for l in needed.splitlines() if "(NEEDED)" in l]
    ok(needed and not [n for n in needed if "curl" in n or "crypto" in n or "ssl" in n],
       "the module needs neither libcurl nor libcrypto", needed)

    r = run([["SELECT count(*) FROM gguf(?)", [DEMO]]])
    ok(r["before"] == {"curl": False, "crypto": False}, "python alone maps neither", r["before"])
    ok(r["results"] == [["ok", [[21]]]], "a local listing", r["results"])
    ok(r["after"] == {"curl": False, "crypto": False}, ".load and a local listing map neither",
       r["after"])

    want = subprocess.run(["sha256sum", DEMO], capture_output=True, text=True).stdout.split()[0]
    r = run([["SELECT tensor_hash(?, 'output_norm.weight', 'xxh3-64')", [DEMO]]])
    ok(r["results"][0][0] == "ok" and r["after"]["crypto"] is False, "xxh3 maps no libcrypto", r)
    r = run([["SELECT tensor_hash(?, 'output_norm.weight', 'sha256')", [DEMO]],
             ["SELECT file_sha256(?)", [DEMO]]])
    ok(r["loaded"]["crypto"] is False and r["after"]["crypto"] is True,
       "a SHA-256 maps libcrypto then, not before", r)
    ok(r["after"]["curl"] is False, "a SHA-256 maps no libcurl", r["after"])
    ok(r["results"][1] == ["ok", [[want]]], "file_sha256 is sha256sum's", (r["results"], want))
    ok(r["results"][0][0] == "ok" and len(r["results"][0][1][0][0]) == 64, "tensor_hash sha256",
       r["results"])

    missing = {"SQLITE_WEIGHTS_LIBCRYPTO": "libcrypto-missing.so.3"}
    r = run([["SELECT file_sha256(?)", [DEMO]],
             ["SELECT tensor_hash(?, 'output_norm.weight', 'sha1')", [DEMO]],
             ["SELECT count(*) FROM gguf(?)", [DEMO]]], missing)
    for (status, msg), what in zip(r["results"][:2], ("file_sha256", "tensor_hash sha1")):
        ok(status == "error" and "need libcrypto-missing.so.3" in msg and "libssl3" in msg,
           what + " without libcrypto: names the library and the package", msg)
    ok(r["results"][2] == ["ok", [[21]]], "without libcrypto a listing still works", r["results"])

    r = run([["SELECT weights_remote()", []]])
    if r["results"] != [["ok", [[1]]]]:
        print("lazy_libs: remote checks skipped (a module built with REMOTE=0)")
    else:
        url = "http://127.0.0.1:1/x.gguf"  # refused at once: the library is loaded first
        r = run([["SELECT count(*) FROM gguf(?)", [url]]])
        ok(r["loaded"]["curl"] is False and r["after"]["curl"] is True,
           "a remote path maps libcurl then, not before", r)
        ok(r["results"][0][0] == "error" and "onnect" in r["results"][0][1], "refused", r["results"])
        r = run([["SELECT count(*) FROM gguf(?)", [url]], ["SELECT count(*) FROM gguf(?)", [DEMO]]],
                {"SQLITE_WEIGHTS_LIBCURL": "libcurl-missing.so.4"})
        msg = r["results"][0][1]
        ok(r["results"][0][0] == "error" and "need libcurl-missing.so.4" in msg and "libcurl4" in msg,
           "a remote path without libcurl: names the library and the package", msg)
        ok(r["results"][1] == ["ok", [[21]]], "without libcurl a local listing still works",
           r["results"])
    print(checks.summary("lazy_libs"))
    sys.exit(checks.status())


if __name__ == "__main__":
    main()
