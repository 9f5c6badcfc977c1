"""setup.py: the Python package sqlite_weights (python/sqlite_weights), with
the compiled module weights.so as package data.

    python3 -m venv v && v/bin/pip install .      # offline, Debian 12's pip

The module is built by the Makefile (`make build/weights.so`, the same
sources and flags as every other build) and copied into the package, so the
list of C files lives in one place.  There is deliberately no pyproject.toml:
with one, pip builds in an isolated environment and downloads setuptools from
PyPI first, which fails offline; without one, pip uses the setuptools of the
environment (a venv made by Debian's python3 -m venv has setuptools 66).
The version is the Makefile's VERSION.  The build directory is build/python,
beside the Makefile's own build/obj.
"""

import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def makefile_version():
    """Return the VERSION := line's value of the Makefile."""
    with open(os.path.join(ROOT, "Makefile")) as f:
        for line in f:
            m = re.match(r"^VERSION\s*:?=\s*(\S+)\s*$", line)
            if m:
                return m.group(1)
    sys.exit("setup.py: no VERSION := line in %s" % os.path.join(ROOT, "Makefile"))


VERSION = makefile_version()


class build_py_with_module(build_py):
    """build_py, then `make build/weights.so`, copied into the package with
        a _version.py that holds the Makefile's VERSION."""

    def run(self):
        super().run()
        if not os.path.isdir(os.path.join(ROOT, "ext")):
            sys.exit("setup.py: %s has no ext/ folder: the C sources are needed to build weights.so" % ROOT)
        make = os.environ.get("MAKE", "make")
        cmd = [make, "-C", ROOT, "-j%d" % (os.cpu_count() or 1), "WERROR=", "build/weights.so"]
        print("setup.py: " + " ".join(cmd), flush=True)
        try:
            subprocess.run(cmd, check=True)
        except FileNotFoundError:
            sys.exit("setup.py: %s not found: it builds weights.so (Debian: apt-get install make gcc)" % make)
        except subprocess.CalledProcessError as e:
            sys.exit("setup.py: building weights.so failed (%s exited with status %d); "
                     "`make deps` lists the Debian packages it needs" % (make, e.returncode))
        package = os.path.join(self.build_lib, "sqlite_weights")
        os.makedirs(package, exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, "build", "weights.so"), os.path.join(package, "weights.so"))
        with open(os.path.join(package, "_version.py"), "w") as f:
            f.write('"""Written by setup.py: the Makefile\'s VERSION."""\n__version__ = %r\n' % VERSION)


cmdclass = {"build_py": build_py_with_module}
try:  # wheel is there when pip builds a wheel (Debian: python3-wheel)
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel package: pip runs setup.py install, no wheel is made
    pass
else:

    class bdist_wheel_any_python(bdist_wheel):
        """A wheel for any Python 3 on the platform: weights.so is an SQLite
        extension, not a Python one, so it depends on no Python ABI."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = bdist_wheel_any_python


class BinaryDistribution(Distribution):
    """A distribution with compiled code: platform-specific wheels, platlib."""

    def has_ext_modules(self):
        return True


setup(
    name="sqlite-weights",
    version=VERSION,
    description="SQLite extension that reads model-weight files (safetensors, GGUF) as SQL tables",
    license="see the repository",
    python_requires=">=3.8",
    packages=["sqlite_weights"],
    package_dir={"": "python"},
    package_data={"sqlite_weights": ["py.typed"]},
    zip_safe=False,
    cmdclass=cmdclass,
    distclass=BinaryDistribution,
    options={"build": {"build_base": "build/python"}},
)
