#!/usr/bin/python3
"""python_pkg_test.py: the Python package sqlite_weights, installed with pip
into fresh virtual environments, offline.  Run from the repository root after
`make build/weights.so build/demo/.stamp`:

    /usr/bin/python3 tests/python_pkg_test.py

1. A venv made by Debian's `/usr/bin/python3 -m venv` (nothing of the
   system's site-packages) and the README's command, `v/bin/pip install .`,
   with pip's index turned off (PIP_NO_INDEX) and no pip configuration, so
   that anything needing PyPI fails here.  In it: loadable_path(), the
   version, load() on a sqlite3 connection, the demo model's tensors and
   bytes against the file read here in Python, an error naming a missing
   file, SQL's load_extension() still refused after load(), TypeError for
   a non-connection, and the error for a sqlite3 without extension loading
   (a subclass hiding enable_load_extension, and the real interpreter when a
   python3 on PATH is built so, as pyenv's is).
2. A venv made with --system-site-packages, because apsw (Debian's
   python3-apsw) and wheel (python3-wheel) come from Debian, not PyPI:
   `pip wheel .` must give a platform wheel holding weights.so and
   py.typed; installed, it is used through apsw.
3. `setup.py sdist` must hold the Makefile and every file that
   `make -s print-sources` lists, so a build from an sdist has its sources.

Skipped, with the reason, when /usr/bin/python3 has no venv (python3-venv).
Last line: "python-pkg: N passed, M failed"; exit status 1 if a check failed.
With --inside MODE VERSION it is the part that runs inside a venv's python.
"""

import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile

import checks
from checks import ok

DEMO_ST = "build/demo/tiny-llama.safetensors"
DEMO_GGUF = "build/demo/tiny-llama.gguf"
MISSING = "build/demo/no-such-file.safetensors"

DONE_WHEN = ("import sqlite3, sqlite_weights; c=sqlite3.connect(':memory:'); sqlite_weights.load(c); "
             "print(c.execute('select weights_version()').fetchone())")

def safetensors_header(path):
    """The file's tensors as {name: (dtype, shape text, begin, end)} and the
    data section's start, read with json from the bytes (not the module)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    tensors = {k: (v["dtype"], json.dumps(v["shape"], separators=(",", ":")), v["data_offsets"][0],
                   v["data_offsets"][1]) for k, v in header.items() if k != "__metadata__"}
    return tensors, 8 + n


def gguf_tensor_count(path):
    """The tensor count of a GGUF file's header (bytes 8..15, little-endian)."""
    with open(path, "rb") as f:
        return struct.unpack("<4sIQ", f.read(16))[2]


def error_of(fn):
    """Run fn; return the exception it raised, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (any error is an answer here)
        return e
    return None


def check_queries(rows, one, what):
    """The demo model through a loaded connection: rows(sql, args) -> list of
    tuples, one(sql, args) -> first value.  `what` names the connection."""
    tensors, data_start = safetensors_header(DEMO_ST)
    got = rows("SELECT name, dtype, shape, data_start, data_end, offset, nbytes FROM safetensors(?)", (DEMO_ST,))
    want = sorted((k, d, s, b, e, data_start + b, e - b) for k, (d, s, b, e) in tensors.items())
    ok(sorted(got) == want, what + ": safetensors() rows match the header read with json",
       "%d rows, want %d" % (len(got), len(want)))
    with open(DEMO_ST, "rb") as f:
        data = f.read()
    for name in ("model.norm.weight", "model.embed_tokens.weight"):
        _, _, b, e = tensors[name]
        blob = one("SELECT safetensors_blob(?, ?)", (DEMO_ST, name))
        ok(blob == data[data_start + b:data_start + e], what + ": safetensors_blob(%s) is the file's bytes" % name,
           "%d bytes" % len(blob or b""))
    n = gguf_tensor_count(DEMO_GGUF)
    ok(one("SELECT count(*) FROM gguf(?)", (DEMO_GGUF,)) == n, what + ": gguf() has the header's %d tensors" % n)
    e = error_of(lambda: rows("SELECT * FROM safetensors(?)", (MISSING,)))
    ok(e is not None and MISSING in str(e), what + ": a missing file is an error naming it", repr(e))
    e = error_of(lambda: rows("SELECT load_extension('build/weights')", ()))
    ok(e is not None and "not authorized" in str(e), what + ": SQL's load_extension() refused after load()",
       repr(e))


def inside(mode, version):
    """The checks that run in a venv's interpreter, with the installed package."""
    import sqlite_weights

    pkg = os.path.dirname(os.path.abspath(sqlite_weights.__file__))
    ok(pkg.startswith(os.path.realpath(sys.prefix) + os.sep) or pkg.startswith(sys.prefix + os.sep),
       "sqlite_weights is imported from the venv", pkg)
    path = sqlite_weights.loadable_path()
    ok(os.path.isabs(path) and os.path.isfile(path) and path == os.path.join(pkg, "weights.so"),
       "loadable_path() is the package's weights.so", path)
    ok(sqlite_weights.__version__ == version, "__version__ is the Makefile's VERSION", sqlite_weights.__version__)
    ok(os.path.isfile(os.path.join(pkg, "py.typed")), "py.typed is installed")
    e = error_of(lambda: sqlite_weights.load(object()))
    ok(isinstance(e, TypeError) and "sqlite3.Connection" in str(e), "load(object()) is a TypeError", repr(e))

    if mode == "sqlite3":
        conn = sqlite3.connect(":memory:")
        sqlite_weights.load(conn)
        ok(conn.execute("SELECT weights_version()").fetchone()[0] == version, "sqlite3: weights_version()")
        check_queries(lambda q, a: conn.execute(q, a).fetchall(), lambda q, a: conn.execute(q, a).fetchone()[0],
                      "sqlite3")
        conn.close()

        class NoExtensions(sqlite3.Connection):
            """A sqlite3 connection as pyenv builds it: no enable_load_extension."""

            def __getattribute__(self, name):
                if name == "enable_load_extension":
                    raise AttributeError(name)
                return super().__getattribute__(name)

        conn = sqlite3.connect(":memory:", factory=NoExtensions)
        e = error_of(lambda: sqlite_weights.load(conn))
        ok(isinstance(e, RuntimeError) and "python3-apsw" in str(e) and "/usr/bin/python3" in str(e),
           "sqlite3 without enable_load_extension: the error names apsw and Debian's python3", repr(e))
        conn.close()
    else:
        import apsw

        conn = apsw.Connection(":memory:")
        sqlite_weights.load(conn)
        ok(list(conn.execute("SELECT weights_version()")) == [(version,)], "apsw: weights_version()")
        check_queries(lambda q, a: list(conn.execute(q, a)), lambda q, a: list(conn.execute(q, a))[0][0], "apsw")
        conn.close()
    print(checks.summary("inside"))


def run(argv, what, env):
    """Run argv from the repository root; count it; return (ok, output)."""
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    if not ok(p.returncode == 0, what, "exit status %d\n%s" % (p.returncode, out[-3000:])):
        return False, out
    return True, out


def run_inside(python, mode, version, env):
    """Run the --inside checks with a venv's python and add up its counts."""
    p = subprocess.run([python, __file__, "--inside", mode, version], capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    m = re.search(r"^inside: (\d+) passed, (\d+) failed$", p.stdout, re.M)
    print("\n".join(l for l in out.splitlines() if l.startswith("FAILED")) or "%s: %s" % (mode, m and m.group(0)))
    if m:
        checks.add(int(m.group(1)), int(m.group(2)))
    if not m or (p.returncode != 0 and m.group(2) == "0"):
        ok(False, "%s checks in %s" % (mode, python), "exit status %d\n%s" % (p.returncode, out[-3000:]))


def makefile_version():
    """The Makefile's VERSION := value."""
    with open("Makefile") as f:
        m = re.search(r"^VERSION\s*:?=\s*(\S+)\s*$", f.read(), re.M)
    return m.group(1) if m else None


def python_without_extensions():
    """A python3 on PATH whose sqlite3 cannot load extensions, or None."""
    for d in os.environ.get("PATH", "").split(os.pathsep):
        exe = os.path.join(d, "python3")
        if not os.access(exe, os.X_OK) or os.path.realpath(exe) == os.path.realpath("/usr/bin/python3"):
            continue
        p = subprocess.run([exe, "-c", "import sqlite3; print(hasattr(sqlite3.Connection, 'enable_load_extension'))"],
                           capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip() == "False":
            return exe
    return None


def main():
    version = makefile_version()
    ok(version is not None, "the Makefile has a VERSION := line")
    for f in (DEMO_ST, DEMO_GGUF, "build/weights.so"):
        if not os.path.isfile(f):
            print("python-pkg: FAILED: %s not found (make build/weights.so build/demo/.stamp)" % f)
            return 1
    # No pip configuration, no index, no cache: only what Debian's venv has.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    tmp = tempfile.mkdtemp(prefix="python-pkg-test.")
    try:
        plain = os.path.join(tmp, "v")
        p = subprocess.run(["/usr/bin/python3", "-m", "venv", plain], capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print((p.stdout + p.stderr).strip()[-1000:])
            print("python-pkg: skipped: /usr/bin/python3 -m venv failed (Debian: apt-get install python3-venv)")
            return 0
        # 1. The README's command in a plain venv, then the checks in it.
        good, _ = run([os.path.join(plain, "bin", "pip"), "install", "."], "v/bin/pip install . (offline)", env)
        if good:
            # The one-liner of the README, as it is written there.
            p = subprocess.run([os.path.join(plain, "bin", "python"), "-c", DONE_WHEN], capture_output=True,
                               text=True, env=env)
            ok(p.returncode == 0 and p.stdout == "('%s',)\n" % version, "the README's one-liner prints the version",
               p.stdout + p.stderr)
            run_inside(os.path.join(plain, "bin", "python"), "sqlite3", version, env)
            # The real interpreter without enable_load_extension, given the
            # installed package (pure Python but for weights.so) on its path.
            exe = python_without_extensions()
            if exe is None:
                print("skipped: no python3 on PATH without enable_load_extension (the simulated one is checked)")
            else:
                site = subprocess.run([os.path.join(plain, "bin", "python"), "-c",
                                       "import sqlite_weights, os; print(os.path.dirname(os.path.dirname("
                                       "sqlite_weights.__file__)))"], capture_output=True, text=True).stdout.strip()
                q = subprocess.run([exe, "-c", "import sqlite3, sqlite_weights\n"
                                    "sqlite_weights.load(sqlite3.connect(':memory:'))"],
                                   capture_output=True, text=True, env=dict(env, PYTHONPATH=site))
                ok(q.returncode != 0 and "RuntimeError" in q.stderr and "python3-apsw" in q.stderr
                   and "/usr/bin/python3" in q.stderr,
                   "%s (no enable_load_extension): load() fails naming apsw and /usr/bin/python3" % exe,
                   q.stderr[-1000:])

        # 2. A wheel, built and installed in a venv that sees Debian's apsw and wheel.
        system = os.path.join(tmp, "w")
        wheels = os.path.join(tmp, "wheels")
        good, _ = run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", system],
                      "python3 -m venv --system-site-packages", env)
        if good:
            good, _ = run([os.path.join(system, "bin", "pip"), "wheel", "--no-deps", "-w", wheels, "."],
                          "pip wheel . (offline)", env)
        if good:
            built = os.listdir(wheels)
            ok(len(built) == 1 and re.match(r"sqlite_weights-%s-py3-none-linux_\w+\.whl$" % re.escape(version), built[0]),
               "one wheel, for the platform (not pure) and any Python 3", built)
            whl = os.path.join(wheels, built[0])
            with zipfile.ZipFile(whl) as z:
                names = z.namelist()
                so = z.read("sqlite_weights/weights.so") if "sqlite_weights/weights.so" in names else b""
            with open("build/weights.so", "rb") as f:
                ok(so == f.read(), "the wheel's sqlite_weights/weights.so is build/weights.so")
            ok("sqlite_weights/py.typed" in names, "the wheel holds py.typed")
            good, _ = run([os.path.join(system, "bin", "pip"), "install", whl], "pip install the wheel", env)
        if good:
            p = subprocess.run([os.path.join(system, "bin", "python"), "-c", "import apsw"], capture_output=True)
            if p.returncode != 0:
                print("skipped: apsw checks (no apsw module: Debian: apt-get install python3-apsw)")
            else:
                run_inside(os.path.join(system, "bin", "python"), "apsw", version, env)

        # The package imported from the source tree (python/ on the path): build/weights.so.
        p = subprocess.run(["/usr/bin/python3", "-c", "import sqlite3, sqlite_weights as w; c = sqlite3.connect(':memory:')\n"
                            "w.load(c); print(w.loadable_path(), w.__version__, c.execute('SELECT weights_version()')"
                            ".fetchone()[0])"], capture_output=True, text=True, env=dict(env, PYTHONPATH="python"))
        want = "%s %s %s\n" % (os.path.abspath("build/weights.so"), version, version)
        ok(p.returncode == 0 and p.stdout == want, "from the source tree: build/weights.so and the Makefile's VERSION",
           p.stdout + p.stderr)

        # 3. The sdist carries every source the Makefile builds.
        sdist = os.path.join(tmp, "sdist")
        good, _ = run(["/usr/bin/python3", "setup.py", "-q", "sdist", "-d", sdist], "setup.py sdist", env)
        srcs = subprocess.run(["make", "-s", "print-sources"], capture_output=True, text=True).stdout.split()
        ok(len(srcs) > 10 and all(s.startswith("ext/") for s in srcs), "make -s print-sources lists ext/ files",
           srcs[:5])
        if good:
            (tgz,) = os.listdir(sdist)
            with tarfile.open(os.path.join(sdist, tgz)) as t:
                inside_names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
            missing = [s for s in srcs + ["Makefile", "setup.py"] if s not in inside_names]
            ok(not missing, "the sdist holds the Makefile and every source", missing)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(checks.summary("python-pkg"))
    return checks.status()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--inside":
        inside(sys.argv[2], sys.argv[3])
        sys.exit(checks.status())
    sys.exit(main())
