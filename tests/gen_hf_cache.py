#!/usr/bin/python3
"""gen_hf_cache.py OUTDIR: build a Hugging Face hub cache for the tests.

Run by `make testdata` after the generated files of build/testdata exist
(the model content is copied from build/testdata/safetensors and /gguf).
OUTDIR is removed and made again, and OUTDIR-card beside it (a cache of one
PEFT adapter whose README.md alone names its base model: build_card_cache).
OUTDIR holds:

  hub/                                    the cache (as HF_HUB_CACHE)
    CACHEDIR.TAG, version.txt, .locks/    what huggingface_hub leaves at the root
    models--fake/                         a folder named like a repo, without
                                          snapshots/, blobs/ or refs/: no repo
    models--org--tiny/                    two revisions, A (older) and B (newer)
      refs/main                           -> B (no newline, as huggingface_hub writes)
      refs/refs/pr/1                      -> A
      refs/v1.0                           -> A, with a trailing newline
      blobs/SHA256                        LFS files, named by the SHA-256 of their content
      blobs/SHA1                          config.json at A and at B, named by the git
                                          blob SHA-1 (40 hex)
      blobs/SHA256.1a2b3c4d.incomplete    a partial download, in no snapshot
      blobs/SHA256 (corrupt)              a safetensors file whose name is the
                                          SHA-256 of other bytes
      snapshots/A/  config.json model.safetensors model.gguf sub/extra.safetensors
      snapshots/B/  config.json model.safetensors (other content) model.gguf
                    sub/extra.safetensors corrupt.safetensors
                    missing.safetensors (dangling: its blob is gone)
      .no_exist/B/tokenizer.json          empty, as huggingface_hub writes
    datasets--org--data/                  snapshots/C/data/train.gguf (one level deeper)
    spaces--org--app/                     snapshots/D/app.safetensors, a regular file
                                          (no symlinks, as on Windows), no blobs/
  Contents (copies of build/testdata files; tensors, parameters):
    A/model.safetensors     ok_unaligned.safetensors   a [2], b [1]            3
    B/model.safetensors     ok_4d.safetensors          conv [2,3,4,5]        120
    */model.gguf            ok-v3-le.gguf              token_embd.weight [4,8],
                                                       output_norm.weight [8] 40
    */sub/extra.safetensors ok_scalar_i64.safetensors  step []                 1
    B/corrupt.safetensors   ok_dtype_F32.safetensors   x [4]                   4
    the .incomplete blob    the first 50 bytes of ok_4d.safetensors
    C/data/train.gguf       ok-scalars.gguf            no tensors
    D/app.safetensors       ok_unaligned.safetensors   a [2], b [1]            3
  link-to-snapshot -> hub/models--org--tiny/snapshots/A   (a symlink outside the hub)
  plain/model.safetensors                 a folder that is not in a cache
  manifest.tsv                            what tests/hf_cache_test.c checks, TAB-separated:
    locate PATH IN ROOT REPO_DIR KIND REPO_ID REVISION     (IN is 0 or 1, "-" for NULL)
    scan PATH N            then N lines:
    entry PATH BLOB KIND REPO_ID REVISION REFS EXPECTED_SHA256 INCOMPLETE CONTENT_SHA256
    scanerror PATH TEXT    wt_hf_scan() must fail with TEXT in its message
  BLOB is the realpath of the file the entry resolves to, CONTENT_SHA256 the
  SHA-256 of its bytes (hashlib), both "-" when dangling.
  blobs.json                              every blob of the hub, for SQL tests
                                          (json_each(readfile(...))): [{"path",
                                          "name", "sha256", "incomplete"}], path
                                          relative to the repository's root
  The facts come from this generator's own model of the tree, not from the
  module.
"""

import hashlib
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ST = os.path.join(ROOT, "build/testdata/safetensors")
GG = os.path.join(ROOT, "build/testdata/gguf")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def git_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def rev(name):
    """A 40-hex commit hash for a revision's name."""
    return hashlib.sha1(b"revision " + name.encode()).hexdigest()


REV_A, REV_B, REV_C, REV_D = rev("A"), rev("B"), rev("C"), rev("D")


class Repo:
    """One repo folder, and the facts the manifest needs about it."""

    def __init__(self, hub, folder, kind, repo_id):
        self.dir = os.path.join(hub, folder)
        self.folder, self.kind, self.repo_id = folder, kind, repo_id
        self.files = []  # (revision, relpath, blob name or None, content or None)
        self.incomplete = []  # blob names
        self.blobs = []  # every blob name written
        self.refs = {}  # ref name -> commit
        os.makedirs(self.dir)

    def blob(self, name, data):
        write(os.path.join(self.dir, "blobs", name), data)
        self.blobs.append(name)

    def link(self, revision, relpath, name, data):
        """snapshots/REV/relpath -> ../../blobs/name (one ../ more per
        folder); data is the blob's content, None when it is gone."""
        p = os.path.join(self.dir, "snapshots", revision, relpath)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        up = "../" * (relpath.count("/") + 2)
        os.symlink(up + "blobs/" + name, p)
        self.files.append((revision, relpath, name, data))

    def lfs(self, revision, relpath, data, name=None):
        """An LFS file: its blob (named by the SHA-256 unless name is given)
        and the snapshot's symlink to it."""
        name = name or sha256(data)
        if name not in self.blobs:
            self.blob(name, data)
        self.link(revision, relpath, name, data)

    def git(self, revision, relpath, data):
        """A plain git file: its blob is named by the git blob SHA-1."""
        name = git_sha1(data)
        if name not in self.blobs:
            self.blob(name, data)
        self.link(revision, relpath, name, data)

    def regular(self, revision, relpath, data):
        """A file stored in the snapshot itself (no symlinks)."""
        write(os.path.join(self.dir, "snapshots", revision, relpath), data)
        self.files.append((revision, relpath, None, data))

    def ref(self, name, commit, text=None):
        write(os.path.join(self.dir, "refs", name), (commit if text is None else text).encode())
        self.refs[name] = commit

    def refs_of(self, revision):
        names = sorted(n for n, c in self.refs.items() if c == revision)
        return ",".join(names) if names else None


def build(out):
    hub = os.path.join(out, "hub")
    os.makedirs(hub)
    write(os.path.join(hub, "CACHEDIR.TAG"), b"Signature: 8a477f597d28d172789f06886806bc55\n")
    write(os.path.join(hub, "version.txt"), b"1")
    os.makedirs(os.path.join(hub, "models--fake", "nothing"))

    st_a = read(os.path.join(ST, "ok_unaligned.safetensors"))
    st_b = read(os.path.join(ST, "ok_4d.safetensors"))
    st_extra = read(os.path.join(ST, "ok_scalar_i64.safetensors"))
    st_corrupt = read(os.path.join(ST, "ok_dtype_F32.safetensors"))
    gguf = read(os.path.join(GG, "ok-v3-le.gguf"))
    gguf_data = read(os.path.join(GG, "ok-scalars.gguf"))

    tiny = Repo(hub, "models--org--tiny", "model", "org/tiny")
    write(os.path.join(hub, ".locks", tiny.folder, sha256(gguf) + ".lock"), b"")
    for r, config, model in ((REV_A, b'{"v": 1}\n', st_a), (REV_B, b'{"v": 2}\n', st_b)):
        tiny.git(r, "config.json", config)
        tiny.lfs(r, "model.safetensors", model)
        tiny.lfs(r, "model.gguf", gguf)
        tiny.lfs(r, "sub/extra.safetensors", st_extra)
    tiny.lfs(REV_B, "corrupt.safetensors", st_corrupt, name=sha256(b"other bytes"))
    tiny.link(REV_B, "missing.safetensors", sha256(b"a blob that was deleted"), None)
    tiny.blob(sha256(st_b[:50]) + ".1a2b3c4d.incomplete", st_b[:50])
    tiny.incomplete.append(sha256(st_b[:50]) + ".1a2b3c4d.incomplete")
    tiny.ref("main", REV_B)
    tiny.ref("refs/pr/1", REV_A)
    tiny.ref("v1.0", REV_A, REV_A + "\n")
    write(os.path.join(tiny.dir, ".no_exist", REV_B, "tokenizer.json"), b"")

    data = Repo(hub, "datasets--org--data", "dataset", "org/data")
    data.lfs(REV_C, "data/train.gguf", gguf_data)
    data.ref("main", REV_C)

    app = Repo(hub, "spaces--org--app", "space", "org/app")
    app.regular(REV_D, "app.safetensors", st_a)
    app.ref("main", REV_D)

    os.symlink(os.path.join("hub", tiny.folder, "snapshots", REV_A), os.path.join(out, "link-to-snapshot"))
    write(os.path.join(out, "plain", "model.safetensors"), st_a)
    return hub, [tiny, data, app]


def build_card_cache(out):
    """A cache of its own (OUTDIR-card, so that the facts of the one above
    stay as they are): a PEFT adapter whose adapter_config.json has no base
    model (null) and whose card (README.md, a git blob as the Hub stores
    it, behind the snapshot's symlink) names it."""
    hub = os.path.join(out, "hub")
    os.makedirs(hub)
    lora = Repo(hub, "models--org--lora", "model", "org/lora")
    lora.git(REV_A, "adapter_config.json", b'{"base_model_name_or_path": null, "peft_type": "LORA"}\n')
    lora.lfs(REV_A, "adapter_model.safetensors", read(os.path.join(ST, "ok_scalar_i64.safetensors")))
    lora.git(REV_A, "README.md", b"---\nlibrary_name: peft\nbase_model:\n- org/tiny\n---\n# A LoRA\n")
    lora.ref("main", REV_A)


def entry(path, blob_file, data, repo, revision, incomplete):
    """A manifest entry line (without the leading "entry")."""
    if data is None:
        blob, content = "-", "-"
    else:
        blob, content = os.path.realpath(blob_file), sha256(data)
    base = os.path.basename(blob_file)
    expected = base if len(base) == 64 and all(c in "0123456789abcdef" for c in base) else "-"
    if incomplete:
        expected = "-"
    refs = repo.refs_of(revision) if revision else None
    return [path, blob, repo.kind, repo.repo_id, revision or "-", refs or "-", expected,
            str(incomplete), content]


def join(base, rel):
    return base + rel if base.endswith("/") else base + "/" + rel


def snapshot_entries(repo, user, revision=None, under=""):
    """Entries of repo's snapshots as reached through the user's path user:
    user is the snapshots folder (revision None), a snapshot (revision set,
    under ""), or a folder or file inside one (under its path)."""
    rows = []
    for r, rel, name, data in repo.files:
        if revision is not None and r != revision:
            continue
        if under and not (rel == under or rel.startswith(under + "/")):
            continue
        if revision is None:
            p = join(user, r + "/" + rel)
        elif rel == under:
            p = user
        else:
            p = join(user, rel[len(under) + 1:] if under else rel)
        if name is None:
            blob_file = os.path.join(repo.dir, "snapshots", r, rel)
        else:
            blob_file = os.path.join(repo.dir, "blobs", name)
        rows.append(entry(p, blob_file, data, repo, r, 0))
    return rows


def blob_entries(repo, user, only_incomplete):
    rows = []
    for name in repo.blobs:
        inc = int(name.endswith(".incomplete"))
        if only_incomplete and not inc:
            continue
        data = read(os.path.join(repo.dir, "blobs", name))
        rows.append(entry(join(user, name), os.path.join(repo.dir, "blobs", name), data, repo, None, inc))
    return rows


def repo_entries(repo, user):
    return snapshot_entries(repo, join(user, "snapshots")) + blob_entries(repo, join(user, "blobs"), True)


def norm(path):
    """The path as wt_hf_locate reads it: "" and "." parts dropped."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return ("/" if path.startswith("/") else "") + "/".join(parts)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_hf_cache.py OUTDIR")
    out = sys.argv[1].rstrip("/")
    for f in ("ok_unaligned.safetensors", "ok_4d.safetensors"):
        if not os.path.exists(os.path.join(ST, f)):
            sys.exit("gen_hf_cache.py: %s is missing: run `make testdata` first" % os.path.join(ST, f))
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out + "-card", ignore_errors=True)
    build_card_cache(out + "-card")
    hub, (tiny, data, app) = build(out)
    lines = []

    def locate(path, root, repo, revision, resolved=False):
        if root is None:
            lines.append(["locate", path, "0", "-", "-", "-", "-", "-"])
            return
        fix = os.path.realpath if resolved else norm
        lines.append(["locate", path, "1", fix(root), fix(repo.dir) if repo else "-",
                      repo.kind if repo else "-", repo.repo_id if repo else "-", revision or "-"])

    def scan(path, rows):
        rows = sorted(rows, key=lambda r: r[0].encode())
        lines.append(["scan", path, str(len(rows))])
        lines.extend(["entry"] + r for r in rows)

    t = tiny.dir
    snaps = os.path.join(t, "snapshots")
    # the hub, as given and with a trailing slash
    for h in (hub, hub + "/"):
        locate(h, hub, None, None)
        scan(h, sum((repo_entries(r, join(h, r.folder)) for r in (tiny, data, app)), []))
    # a repo folder; written with "." parts and a doubled slash
    for p in (t, out + "//hub/./" + tiny.folder):
        locate(p, hub, tiny, None)
        scan(p, repo_entries(tiny, p))
    locate(snaps, hub, tiny, None)
    scan(snaps, snapshot_entries(tiny, snaps))
    for r in (REV_A, REV_B):
        locate(os.path.join(snaps, r), hub, tiny, r)
        scan(os.path.join(snaps, r), snapshot_entries(tiny, os.path.join(snaps, r), r))
    for rel in ("sub", "model.safetensors", "missing.safetensors"):
        p = os.path.join(snaps, REV_B, rel)
        locate(p, hub, tiny, REV_B)
        scan(p, snapshot_entries(tiny, p, REV_B, rel))
    b = os.path.join(t, "blobs")
    locate(b, hub, tiny, None)
    scan(b, blob_entries(tiny, b, False))
    inc = os.path.join(b, tiny.incomplete[0])
    locate(inc, hub, tiny, None)
    scan(inc, blob_entries(tiny, b, True))
    for p in (os.path.join(t, "refs"), os.path.join(t, ".no_exist", REV_B)):
        locate(p, hub, tiny, None)
        scan(p, [])
    # a symlink to a snapshot, from outside the hub: found through realpath
    link = os.path.join(out, "link-to-snapshot")
    locate(link, hub, tiny, REV_A, resolved=True)
    scan(link, snapshot_entries(tiny, link, REV_A))
    locate(os.path.join(link, "config.json"), hub, tiny, REV_A, resolved=True)
    # the other kinds of repo
    for repo, r in ((data, REV_C), (app, REV_D)):
        locate(repo.dir, hub, repo, None)
        scan(repo.dir, repo_entries(repo, repo.dir))
        p = os.path.join(repo.dir, "snapshots", r)
        locate(p, hub, repo, r)
    scan(os.path.join(data.dir, "snapshots", REV_C, "data"),
         snapshot_entries(data, os.path.join(data.dir, "snapshots", REV_C, "data"), REV_C, "data"))
    # not in a cache
    for p in (os.path.join(out, "plain"), os.path.join(out, "plain", "model.safetensors"),
              os.path.join(hub, "models--fake"), os.path.join(hub, ".locks"), os.path.join(out, "nope")):
        locate(p, None, None, None)
        lines.append(["scanerror", p, "not in a Hugging Face hub cache"])
    # in a cache, but missing
    for p in (os.path.join(snaps, REV_B, "nope.safetensors"), os.path.join(b, "0" * 64)):
        locate(p, hub, tiny, REV_B if "snapshots" in p else None)
        lines.append(["scanerror", p, "No such file or directory"])

    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        for line in lines:
            f.write("\t".join(line) + "\n")
    blobs = []
    for repo in (tiny, data, app):
        for name in sorted(repo.blobs):
            p = os.path.join(repo.dir, "blobs", name)
            blobs.append({"path": p, "name": name, "sha256": sha256(read(p)),
                          "incomplete": int(name.endswith(".incomplete"))})
    with open(os.path.join(out, "blobs.json"), "w") as f:
        json.dump(blobs, f, indent=1)


main()
