"""sqlite_weights: the sqlite-weights SQLite extension, packaged for Python.

sqlite-weights reads model-weight files (safetensors, GGUF) as SQL tables.
This package carries the compiled module (weights.so, built from this
repository's sources by its Makefile when the package is installed) and
loads it into a connection:

    import sqlite3, sqlite_weights
    conn = sqlite3.connect(":memory:")
    sqlite_weights.load(conn)
    conn.execute("SELECT name, shape FROM gguf('model.gguf')").fetchall()

load() takes a standard-library sqlite3.Connection (it turns extension
loading on, loads the module and turns it off again, so SQL cannot load
anything else afterwards) or an apsw.Connection (Debian's python3-apsw).
Some Python builds (pyenv's, some macOS ones) compile sqlite3 without
enable_load_extension; load() then raises an error that names the ways out.
The SQL reference is the repository's docs/reference.md.
"""

import os
import re
import sqlite3
from typing import Any

__all__ = ["loadable_path", "load", "__version__"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGED = os.path.join(_HERE, "weights.so")
# Imported from the repository itself (python/ on sys.path, no install): the
# module and the version are the Makefile's, two folders up.
_SOURCE_TREE = os.path.dirname(os.path.dirname(_HERE))


def _source_tree_version() -> str:
    """Return the VERSION of the Makefile of the source tree, or "unknown"."""
    try:
        with open(os.path.join(_SOURCE_TREE, "Makefile")) as f:
            m = re.search(r"^VERSION\s*:?=\s*(\S+)\s*$", f.read(), re.M)
    except OSError:
        return "unknown"
    return m.group(1) if m else "unknown"


try:
    from ._version import __version__  # written by setup.py from the Makefile's VERSION
except ImportError:
    __version__ = _source_tree_version()


def loadable_path() -> str:
    """Return the absolute path of the module, weights.so.

    It is the package's own copy once installed with pip, or the source
    tree's build/weights.so when the package is imported from the repository
    (python/ on sys.path) after `make`.  The file name gives SQLite the entry
    point (sqlite3_weights_init), so the path can be passed as it is to any
    load_extension().  Raises FileNotFoundError when neither exists.
    """
    if os.path.isfile(_PACKAGED):
        return _PACKAGED
    built = os.path.join(_SOURCE_TREE, "build", "weights.so")
    if os.path.isfile(built) and os.path.isfile(os.path.join(_SOURCE_TREE, "Makefile")):
        return built
    raise FileNotFoundError(
        "sqlite_weights: %s not found: install the package with pip "
        "(python3 -m pip install .), which builds it" % _PACKAGED
    )


def _is_apsw(conn: Any) -> bool:
    """Tell whether conn is an apsw.Connection, without importing apsw."""
    return any(
        c.__module__ == "apsw" and c.__name__ == "Connection" for c in type(conn).__mro__
    )


def load(conn: Any) -> None:
    """Load sqlite-weights into conn, a sqlite3.Connection or an apsw.Connection.

    Extension loading is enabled for the load and disabled again afterwards,
    so SQL's load_extension() stays refused.  Raises TypeError for any other
    kind of object, RuntimeError when this Python's sqlite3 cannot load
    extensions at all, and the connection's own error (sqlite3.OperationalError,
    apsw.ExtensionLoadingError) when SQLite refuses the module.
    """
    if not (_is_apsw(conn) or isinstance(conn, sqlite3.Connection)):
        raise TypeError(
            "sqlite_weights.load: expected a sqlite3.Connection or an apsw.Connection, got %s.%s"
            % (type(conn).__module__, type(conn).__qualname__)
        )
    if _is_apsw(conn):  # apsw 3.40 (Debian 12) spells them without underscores
        enable, load_extension = conn.enableloadextension, conn.loadextension
    elif hasattr(conn, "enable_load_extension"):
        enable, load_extension = conn.enable_load_extension, conn.load_extension
    else:
        raise RuntimeError(
            "sqlite_weights.load: this Python's sqlite3 module was built without "
            "extension loading (no Connection.enable_load_extension; pyenv and some "
            "macOS builds are). Use apsw (Debian: apt-get install python3-apsw; then "
            "sqlite_weights.load(apsw.Connection(...))) or a Python whose sqlite3 can "
            "load extensions, such as Debian's /usr/bin/python3."
        )
    path = loadable_path()
    enable(True)
    try:
        load_extension(path)
    finally:
        enable(False)
