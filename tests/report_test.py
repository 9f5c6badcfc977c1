#!/usr/bin/python3
"""report_test.py MODULE CHROMIUM OUTDIR: weights_report() in headless Chromium.

Run by tests/report_test.sh (which finds or installs Chromium, or skips).
For each report it writes OUTDIR/NAME.html, has Chromium load it from the
file system (--dump-dom gives the DOM after loading, --screenshot a PNG,
--enable-logging=stderr the console), and checks:

  - no console message at all (the page has no script; an injected one would
    also be refused by the page's Content-Security-Policy, which logs);
  - the SVG elements: one bar per dtype, one stacked bar per layer group, one
    histogram per chosen tensor, one heatmap cell per layer x kind;
  - the numbers shown against the same questions asked in SQL (tensors(),
    weights_files(), gguf_metadata(), tensor_stats(), tensor_compare()) or
    computed here in Python from tensor_values() (the q/k row permutation);
  - a two-model diff of files written here with hand-worked differences;
  - hostile names: tensor names and metadata holding HTML and JS stay text
    (no element, attribute or script from the file in the DOM).

The detector of console messages is itself checked on a page that logs.
Last line: "report: N passed, M failed, K skipped".
"""
import json
import math
import os
import re
import sqlite3
import struct
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

import checks
from checks import ok

DEMO_GG = "build/demo/tiny-llama.gguf"
DEMO_ST = "build/demo/tiny-llama.safetensors"
KINDS = ["q", "k", "v", "o", "gate", "up", "down", "norms"]


def close(a, b, rel=1e-9, abs_=1e-12):
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_)


# ---- a small DOM from html.parser ----

VOID = {"meta", "br", "img", "input", "link", "hr", "area", "base", "col", "embed", "source", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.texts = [], []

    def text(self):
        return "".join(t if isinstance(t, str) else t.text() for t in self.texts)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, tag=None, cls=None, **attrs):
        out = []
        for n in self.walk():
            if tag and n.tag != tag:
                continue
            if cls and cls not in n.attrs.get("class", "").split():
                continue
            if any(n.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append(n)
        return out


class Tree(HTMLParser):
    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.texts.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.texts.append(n)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.texts.append(data)


# ---- Chromium ----

def chromium(chrome, html_path, extra):
    profile = tempfile.mkdtemp(prefix="report-chromium-")
    cmd = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]
    p = subprocess.run(cmd + extra + ["file://" + os.path.abspath(html_path)],
                       capture_output=True, text=True, timeout=300)
    subprocess.run(["rm", "-rf", profile])
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l]
    return p.returncode, p.stdout, console


def load(chrome, outdir, name, html, screenshot=False):
    """Write html, load it in Chromium; the DOM tree (and a screenshot)."""
    path = os.path.join(outdir, name + ".html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(html)
    rc, dom, console = chromium(chrome, path, ["--dump-dom"])
    ok(rc == 0 and "</html>" in dom, name + ": Chromium loads the page", "rc=%d" % rc)
    ok(console == [], name + ": no console messages", "\n".join(console))
    if screenshot:
        png = os.path.join(outdir, name + ".png")
        rc, _, _ = chromium(chrome, path, ["--window-size=1200,1600", "--screenshot=" + png])
        with open(png, "rb") as f:
            ok(rc == 0 and f.read(8) == b"\x89PNG\r\n\x1a\n", name + ": screenshot written", png)
    return Tree(dom).root


# ---- helpers over the extension ----

def connect(module):
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(os.path.abspath(module))
    return conn


def values(conn, path, name, start=None, count=None):
    if start is None:
        q = conn.execute("SELECT value FROM tensor_values(?, ?) ORDER BY idx", (path, name))
    else:
        q = conn.execute("SELECT value FROM tensor_values(?, ?, ?, ?) ORDER BY idx",
                         (path, name, start, count))
    return [float("nan") if v is None else float(v) for (v,) in q]


def diff(a, b):
    """(rel_l2, cosine) of two lists, computed here."""
    aa = sum(x * x for x in a)
    bb = sum(y * y for y in b)
    ab = sum(x * y for x, y in zip(a, b))
    dd = sum((x - y) ** 2 for x, y in zip(a, b))
    return math.sqrt(dd) / math.sqrt(aa), ab / math.sqrt(aa * bb), (aa, bb, ab, dd)


def gguf_name(hf):
    """The llama name map, written again here from the llama.cpp converter's table."""
    whole = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
             "lm_head.weight": "output.weight"}
    part = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
            "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
            "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm",
            "post_attention_layernorm": "ffn_norm"}
    if hf in whole:
        return whole[hf]
    m = re.match(r"model\.layers\.(\d+)\.(.*)\.weight$", hf)
    return "blk.%s.%s.weight" % (m.group(1), part[m.group(2)]) if m and m.group(2) in part else hf


def kind_of(name):
    for k, pats in [("norms", ["norm"]), ("q", ["attn_q.", "q_proj."]), ("k", ["attn_k.", "k_proj."]),
                    ("v", ["attn_v.", "v_proj."]), ("o", ["attn_output.", "o_proj."]),
                    ("gate", ["ffn_gate.", "gate_proj."]), ("up", ["ffn_up.", "up_proj."]),
                    ("down", ["ffn_down.", "down_proj."])]:
        if any(p in name for p in pats):
            return k
    return None


def tiles(dom):
    return {t.attrs["data-key"]: t for t in dom.find("div", cls="tile")}


# ---- the one-model report ----

def check_model(conn, chrome, outdir, path, name, expect_hist):
    html = conn.execute("SELECT weights_report(?)", (path,)).fetchone()[0]
    dom = load(chrome, outdir, name, html, name == "report")
    ok(dom.find("script") == [], name + ": no script element")
    t = tiles(dom)
    params, tbytes, ntensors = conn.execute(
        "SELECT sum(numel), sum(nbytes), count(*) FROM tensors(?)", (path,)).fetchone()
    nfiles, fbytes, fmt = conn.execute(
        "SELECT count(*), sum(size), group_concat(DISTINCT format) FROM weights_files(?) "
        "WHERE tensors IS NOT NULL", (path,)).fetchone()
    for key, want in [("parameters", params), ("tensor_bytes", tbytes), ("tensors", ntensors),
                      ("files", nfiles), ("file_bytes", fbytes)]:
        got = t[key].attrs.get("data-value")
        ok(got == str(want), "%s: tile %s" % (name, key), "%s != %s" % (got, want))
    ok(t["parameters"].text().endswith("{:,}".format(params)), name + ": parameters shown with separators",
       t["parameters"].text())
    ok(t["format"].text().endswith(fmt), name + ": format tile", t["format"].text())
    ok(t["bits_per_weight"].text().endswith("%.2f" % (8.0 * tbytes / params)), name + ": bits per weight",
       t["bits_per_weight"].text())
    if fmt == "gguf":
        ctx = conn.execute("SELECT value FROM gguf_metadata(?) WHERE key = 'llama.context_length'",
                           (path,)).fetchone()[0]
        voc = conn.execute("SELECT count FROM gguf_metadata(?) WHERE key = 'tokenizer.ggml.tokens'",
                           (path,)).fetchone()[0]
        arch = conn.execute("SELECT value FROM gguf_metadata(?) WHERE key = 'general.architecture'",
                            (path,)).fetchone()[0]
        ok(t["architecture"].text().endswith(arch), name + ": architecture tile")
    else:
        ctx = None
        voc = json.loads(conn.execute("SELECT shape FROM tensors(?) WHERE name LIKE '%embed_tokens%'",
                                      (path,)).fetchone()[0])[0]
    ok(t["vocabulary"].attrs.get("data-value") == str(voc), name + ": vocabulary tile",
       str(t["vocabulary"].attrs))
    if ctx is not None:
        ok(t["context_length"].attrs.get("data-value") == str(ctx), name + ": context length tile")

    # bytes and parameters per dtype: one bar each, values as GROUP BY gives them
    hbars = dom.find("svg", cls="hbars")
    ok(len(hbars) == 2, name + ": two dtype charts")
    for chart, col in zip(hbars, ["nbytes", "numel"]):
        want = dict(conn.execute("SELECT dtype, sum(%s) FROM tensors(?) GROUP BY dtype" % col, (path,)))
        bars = chart.find("rect", cls="bar")
        ok(len(bars) == len(want), "%s: one %s bar per dtype" % (name, col), "%d" % len(bars))
        got = {b.find("title")[0].text().split(":")[0]: float(b.attrs["data-value"]) for b in bars}
        ok(got == {k: float(v) for k, v in want.items()}, "%s: %s per dtype" % (name, col),
           "%s != %s" % (got, want))

    # bytes and parameters per layer group: one stacked bar per group in each
    # chart, segments summing as here
    groups = {}
    for (n, nb, ne) in conn.execute("SELECT name, nbytes, numel FROM tensors(?)", (path,)):
        m = re.search(r"(?:^|\.)(?:blk|layers)\.(\d+)\.", n)
        g = "layer " + m.group(1) if m else "embedding" if "emb" in n else "output"
        old = groups.get(g, (0, 0))
        groups[g] = (old[0] + nb, old[1] + ne)
    charts = dom.find("svg", cls="stacked")
    ok(len(charts) == 2, name + ": two per-layer charts", str(len(charts)))
    for k, chart in enumerate(charts):
        bars = chart.find("g", cls="layer-bar")
        ok(len(bars) == len(groups), name + ": one bar per layer group", "%d != %d" % (len(bars), len(groups)))
        got = {b.find("text")[0].text(): sum(float(r.attrs["data-value"]) for r in b.find("rect")) for b in bars}
        want = {g: float(v[k]) for g, v in groups.items()}
        ok(got == want, name + ": %s per layer group" % ["bytes", "parameters"][k], "%s != %s" % (got, want))

    # histograms of the chosen tensors, statistics as tensor_stats gives them (the
    # demo's tensors are small enough to be sampled whole)
    hists = dom.find("div", cls="hist")
    names = [h.find("h3")[0].text() for h in hists]
    ok(names == expect_hist, name + ": the chosen tensors", str(names))
    ok(len(dom.find("svg", cls="histogram")) == len(expect_hist), name + ": one histogram each")
    for h, tn in zip(hists, names):
        st = conn.execute("SELECT count, min, max, mean, std, nan_count, inf_count FROM tensor_stats(?, ?)",
                          (path, tn)).fetchone()
        stat = {td.attrs["data-stat"]: td.text() for td in h.find("td") if "data-stat" in td.attrs}
        ok(h.find("table")[0].attrs["data-tensor-sampled"] == str(st[0]), "%s: %s sampled whole" % (name, tn))
        for k, want in zip(["min", "max", "mean", "std"], st[1:5]):
            ok(close(float(stat[k]), want, 1e-5, 1e-9), "%s: %s %s" % (name, tn, k), "%s != %r" % (stat[k], want))
        ok(stat["nan"] == str(st[5]) and stat["inf"] == str(st[6]), "%s: %s NaN/Inf" % (name, tn))
        counts = [int(b.find("title")[0].text().rsplit(": ", 1)[1]) for b in h.find("rect", cls="hist-bar")]
        ok(sum(counts) == st[0], "%s: %s histogram counts add up" % (name, tn), "%d" % sum(counts))

    # every tensor, in collapsible groups
    rows = dom.find("tr", cls="tensor")
    want = conn.execute("SELECT name, dtype, shape, nbytes FROM tensors(?)", (path,)).fetchall()
    got = [tuple(td.text() for td in r.find("td")) for r in rows]
    ok(sorted(got) == sorted((a, b, c, str(d)) for a, b, c, d in want), name + ": the tensor table")
    ok(len(dom.find("details", cls="group")) == len(groups), name + ": one <details> per layer group")
    ok("sampled" in dom.find("section", id="histograms")[0].text(), name + ": the page says what is sampled")


# ---- the diff report ----

def pairs(dom):
    out = {}
    for r in dom.find("tr", cls="pair"):
        tds = r.find("td")
        out[(tds[0].text(), tds[1].text())] = (float(tds[3].attrs["data-rel-l2"]),
                                             float(tds[4].attrs["data-cosine"]))
    return out


def cells(dom, cls):
    out = {}
    svg = dom.find("svg", cls=cls)
    if not svg:
        return out
    for c in svg[0].find("g", cls="cell"):
        label, value = c.find("title")[0].text().rsplit(": ", 1)
        out[tuple(label.split(", "))] = value
    return out


def check_demo_diff(conn, chrome, outdir):
    html = conn.execute("SELECT weights_report(?, ?)", (DEMO_ST, DEMO_GG)).fetchone()[0]
    dom = load(chrome, outdir, "diff", html, True)
    t = tiles(dom)
    for key, want in [("paired", 21), ("added", 0), ("removed", 0), ("retyped", 21), ("reshaped", 0)]:
        ok(t[key].attrs.get("data-value") == str(want), "diff: tile " + key, str(t[key].attrs))
    heads = dict(conn.execute("SELECT key, value FROM gguf_metadata(?) WHERE key LIKE 'llama.attention.head_count%'",
                              (DEMO_GG,)))
    p = pairs(dom)
    ok(len(p) == 21, "diff: 21 pairs compared", str(len(p)))
    pooled = {}
    for (a, b), (rel, cos) in p.items():
        ok(b == gguf_name(a), "diff: %s pairs with %s" % (a, b))
        k = kind_of(b)
        if k in ("q", "k"):
            # llama.cpp's rows: GGUF row r holds checkpoint row src(r); computed here
            n_head = heads["llama.attention.head_count" if k == "q" else "llama.attention.head_count_kv"]
            shape = json.loads(conn.execute("SELECT shape FROM tensors(?) WHERE name = ?", (DEMO_GG, b)).fetchone()[0])
            rows, cols = shape
            va, vb = values(conn, DEMO_ST, a), values(conn, DEMO_GG, b)
            per, half = rows // n_head, rows // n_head // 2
            src = [(r // per) * per + (r % per % 2) * half + (r % per) // 2 for r in range(rows)]
            va = [va[src[r] * cols + c] for r in range(rows) for c in range(cols)]
            want_rel, want_cos, sums = diff(va, vb)
            ok(cos > 0.9999, "diff: %s un-permuted gives a cosine near 1" % b, str(cos))
            naive = json.loads(conn.execute("SELECT tensor_compare(?, ?, ?, ?, 'none')", (DEMO_ST, a, DEMO_GG, b)).fetchone()[0])
            ok(naive["cosine"] < 0.5, "diff: %s compared without un-permuting is far off" % b, str(naive))
            # tensor_compare un-permutes by itself: the same as the pairing computed here
            auto = json.loads(conn.execute("SELECT tensor_compare(?, ?, ?, ?)", (DEMO_ST, a, DEMO_GG, b)).fetchone()[0])
            ok(auto.get("unpermuted_heads") == n_head and close(auto["rel_l2"], want_rel) and close(auto["cosine"], want_cos),
               "diff: %s tensor_compare un-permutes as the report does" % b, str(auto))
        else:
            c = json.loads(conn.execute("SELECT tensor_compare(?, ?, ?, ?)", (DEMO_ST, a, DEMO_GG, b)).fetchone()[0])
            want_rel, want_cos = c["rel_l2"], c["cosine"]
            sums = diff(values(conn, DEMO_ST, a), values(conn, DEMO_GG, b))[2]
        ok(close(rel, want_rel) and close(cos, want_cos), "diff: %s rel_l2 and cosine" % b,
           "%r %r != %r %r" % (rel, cos, want_rel, want_cos))
        m = re.match(r"blk\.(\d+)\.", b)
        if m and k:
            key = ("layer " + m.group(1), k)
            pooled[key] = [x + y for x, y in zip(pooled.get(key, [0, 0, 0, 0]), sums)]
    rel_cells, cos_cells = cells(dom, "rel-l2"), cells(dom, "cosine")
    want_keys = {("layer %d" % l, k) for l in range(2) for k in KINDS}
    ok(set(rel_cells) == want_keys and set(cos_cells) == want_keys, "diff: one cell per layer x kind",
       "%s" % sorted(rel_cells))
    for key, (aa, bb, ab, dd) in pooled.items():
        rel, cos = math.sqrt(dd / aa), ab / math.sqrt(aa * bb)
        ok(close(float(rel_cells[key]), rel, 0.03), "diff: cell %s rel_l2" % (key,), "%s vs %r" % (rel_cells[key], rel))
        ok(close(float(cos_cells[key]), cos, 1e-6), "diff: cell %s cosine" % (key,), "%s vs %r" % (cos_cells[key], cos))


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype, shape, values); F32 or F16."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, vals in tensors:
        raw = struct.pack("<%d%s" % (len(vals), "f" if dtype == "F32" else "e"), *vals)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def check_finetune_diff(conn, chrome, outdir):
    """Two checkpoints written here; every difference worked out by hand."""
    def w(seed, n):  # small integers over 8: exact in F16 and F32
        return [((i * 7 + seed * 3) % 17 - 8) / 8 for i in range(n)]
    a, b = [], []
    for l in range(3):
        for j, part in enumerate(["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                                  "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"]):
            name = "model.layers.%d.%s.weight" % (l, part)
            x = w(l * 10 + j, 32)
            a.append((name, "F32", [4, 8], x))
            if (l, part) == (1, "self_attn.v_proj"):
                b.append((name, "F32", [4, 8], [v * 1.5 for v in x]))  # |a - 1.5a| / |a| = 0.5, cosine 1
            elif (l, part) == (2, "self_attn.o_proj"):
                b.append((name, "F32", [4, 8], [-v for v in x]))  # |2a| / |a| = 2, cosine -1
            elif (l, part) == (0, "mlp.up_proj"):
                b.append((name, "F16", [4, 8], x))  # retyped, same values: 0 and 1
            elif (l, part) == (0, "mlp.down_proj"):
                b.append((name, "F32", [8, 4], x))  # reshaped
            else:
                b.append((name, "F32", [4, 8], x))
        for part in ["input_layernorm", "post_attention_layernorm"]:
            name = "model.layers.%d.%s.weight" % (l, part)
            a.append((name, "F32", [8], [1.0] * 8))
            b.append((name, "F32", [8], [1.0] * 8))
    a.append(("model.embed_tokens.weight", "F32", [16, 8], w(99, 128)))  # removed in b
    b.append(("lm_head.weight", "F32", [16, 8], w(98, 128)))  # added in b
    pa, pb = os.path.join(outdir, "ft-a.safetensors"), os.path.join(outdir, "ft-b.safetensors")
    write_safetensors(pa, a)
    write_safetensors(pb, b)
    dom = load(chrome, outdir, "finetune-diff", conn.execute("SELECT weights_report(?, ?)", (pa, pb)).fetchone()[0])
    lists = {d.attrs["id"]: [tuple(td.text() for td in r.find("td")) for r in d.find("tr", cls="item")]
             for d in dom.find("details") if d.attrs.get("id")}
    ok(lists["added"] == [("lm_head.weight", "F32", "[16,8]")], "finetune: added", str(lists["added"]))
    ok(lists["removed"] == [("model.embed_tokens.weight", "F32", "[16,8]")], "finetune: removed", str(lists["removed"]))
    up = "model.layers.0.mlp.up_proj.weight"
    ok(lists["retyped"] == [(up, up, "F32", "F16")], "finetune: retyped", str(lists["retyped"]))
    down = "model.layers.0.mlp.down_proj.weight"
    ok(lists["reshaped"] == [(down, down, "[4,8]", "[8,4]")], "finetune: reshaped", str(lists["reshaped"]))
    p = pairs(dom)
    ok(len(p) == 27, "finetune: 27 pairs", str(len(p)))
    for (na, nb), (rel, cos) in p.items():
        want = (0.5, 1.0) if "layers.1.self_attn.v_proj" in na else (2.0, -1.0) if "layers.2.self_attn.o_proj" in na \
            else (0.0, 1.0)
        ok(close(rel, want[0]) and close(cos, want[1]), "finetune: %s" % na, "%r %r" % (rel, cos))
    rel_cells = cells(dom, "rel-l2")
    ok(len(rel_cells) == 24, "finetune: 3 x 8 cells", str(len(rel_cells)))
    ok(rel_cells[("layer 1", "v")] == "0.500" and rel_cells[("layer 2", "o")] == "2.000"
       and rel_cells[("layer 0", "q")] == "0.000", "finetune: cells show the changes", str(rel_cells))


# ---- hostile names ----

HOSTILE = [
    "<script>document.title='PWNED'</script>",
    "model.embed_tokens.<img src=x onerror=\"document.title='PWNED'\">.weight",
    "model.layers.0.self_attn.q_proj.weight\"><svg onload=alert(1)>",
    "model.layers.0.mlp.gate_proj.weight' onmouseover='alert(2)",
    "</title></style></svg><script>alert(3)</script>",
    "model.norm.<iframe src=\"javascript:alert(4)\"></iframe>",
    "&lt;b&gt;entities&amp;stay&lt;/b&gt;",
]
HOSTILE_META = {"<b onclick=alert(5)>key</b>": "<script>alert(6)</script><img src=x onerror=alert(7)>",
                "general.name": "</title><script>alert(8)</script>"}
ALLOWED = {"#root", "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "p", "section",
           "div", "span", "svg", "g", "rect", "line", "text", "defs", "lineargradient", "stop", "details",
           "summary", "table", "tbody", "tr", "th", "td", "footer"}


def check_hostile(conn, chrome, outdir):
    path = os.path.join(outdir, "hostile.safetensors")
    write_safetensors(path, [(n, "F32", [2, 2], [0.5, -0.25, 1.0, 2.0]) for n in HOSTILE], HOSTILE_META)
    for name, sql, args in [("hostile", "SELECT weights_report(?)", (path,)),
                            ("hostile-diff", "SELECT weights_report(?, ?)", (path, DEMO_ST))]:
        dom = load(chrome, outdir, name, conn.execute(sql, args).fetchone()[0])
        tags = {n.tag for n in dom.walk()}
        ok(tags <= ALLOWED, name + ": only the report's own elements", str(tags - ALLOWED))
        attrs = {a for n in dom.walk() for a in n.attrs}
        ok(not any(a.startswith("on") for a in attrs) and "src" not in attrs, name + ": no handler or src attribute",
           str(sorted(attrs)))
        titles = [n.text() for n in dom.find("title") if n.parent.tag == "head"]
        ok(titles == ["hostile.safetensors" if name == "hostile" else "hostile.safetensors vs tiny-llama.safetensors"],
           name + ": the document title is the file's name", str(titles))
        shown = {n.text() for n in dom.find("td", cls="name")}
        for h in HOSTILE:
            ok(h in shown, name + ": shown as text: " + h)
        if name == "hostile":
            heads = [n.text() for n in dom.find("h3")]
            ok(HOSTILE[1] in heads and HOSTILE[2] in heads, name + ": hostile names as histogram titles", str(heads))
            meta = [n.text() for n in dom.find("td", cls="meta-value")]
            ok(HOSTILE_META["<b onclick=alert(5)>key</b>"] in meta, name + ": metadata values shown as text", str(meta))


def check_detector(chrome, outdir):
    """The console check can fail: a page that logs and one that breaks the CSP."""
    path = os.path.join(outdir, "control.html")
    with open(path, "w") as f:
        f.write("<!DOCTYPE html><html><body><script>console.error('control-message')</script></body></html>")
    _, _, console = chromium(chrome, path, ["--dump-dom"])
    ok(any("control-message" in l for l in console), "detector: a console message is caught", str(console))
    with open(path, "w") as f:
        f.write("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">"
                "</head><body><script>console.error('ran')</script></body></html>")
    _, _, console = chromium(chrome, path, ["--dump-dom"])
    ok(console != [] and not any("ran" in l and "Refused" not in l for l in console),
       "detector: a refused script is logged", str(console))


def main():
    module, chrome, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(outdir, exist_ok=True)
    conn = connect(module)
    check_detector(chrome, outdir)
    check_model(conn, chrome, outdir, DEMO_GG, "report",
                ["token_embd.weight", "blk.0.attn_q.weight", "blk.0.ffn_gate.weight", "blk.1.attn_q.weight",
                 "blk.1.ffn_gate.weight", "output_norm.weight"])
    check_model(conn, chrome, outdir, DEMO_ST, "report-safetensors",
                ["model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight",
                 "model.layers.0.mlp.gate_proj.weight", "model.layers.1.self_attn.q_proj.weight",
                 "model.layers.1.mlp.gate_proj.weight", "model.norm.weight"])
    check_demo_diff(conn, chrome, outdir)
    check_finetune_diff(conn, chrome, outdir)
    check_hostile(conn, chrome, outdir)
    print(checks.summary("report", with_skipped=True))
    return checks.status(need_passed=True)


if __name__ == "__main__":
    sys.exit(main())
