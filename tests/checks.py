"""checks.py: the tally the Python test scripts of this folder keep.

    import checks
    from checks import ok, skip

    ok(cond, "what was checked", detail)  # counted; printed with detail when it failed
    skip("what", "why")                   # counted as skipped; printed
    print(checks.summary("name"))         # "name: N passed, M failed" (", K skipped")
    sys.exit(checks.status())             # 1 when a check failed (or, asked, none passed)

The Makefile and the runner read the summary line; a script that runs part
of itself in another process adds that process's counts with add().
"""

passed = failed = skipped = 0
DETAIL_MAX = 3000  # characters of a failed check's detail that are printed


def ok(cond, what, detail=""):
    """Count one check; print it, with its detail, when it failed."""
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        text = detail if isinstance(detail, str) else repr(detail)
        print("FAILED: %s%s" % (what, (": " + text[:DETAIL_MAX]) if text else ""))
    return cond


def skip(what, reason):
    """Count a check that was not run, and say why."""
    global skipped
    skipped += 1
    print("skipped: %s (%s)" % (what, reason))


def add(n_passed, n_failed):
    """Add the counts of checks run elsewhere (another process)."""
    global passed, failed
    passed += n_passed
    failed += n_failed


def summary(name, with_skipped=False):
    """The last line a test prints: "name: N passed, M failed" (", K skipped")."""
    line = "%s: %d passed, %d failed" % (name, passed, failed)
    return line + (", %d skipped" % skipped if with_skipped else "")


def status(need_passed=False):
    """The exit status: 1 when a check failed, or when need_passed and none passed."""
    return 1 if failed or (need_passed and passed == 0) else 0
