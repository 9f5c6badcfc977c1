/*
** page.c: the document frame and header tiles of a report (page.h).
*/
#include <string.h>

#include "page.h"

static const char wt_page_css[] =
    "*{box-sizing:border-box}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#1d2433;background:#f4f5f8;margin:0;padding:24px 32px}"
    "main{max-width:1120px;margin:0 auto}"
    "h1{font-size:22px;margin:0 0 2px}h2{font-size:16px;margin:0 0 10px}"
    ".sub{color:#5b6475;margin:0 0 16px;word-break:break-all}"
    "section{background:#fff;border:1px solid #e1e4ea;border-radius:8px;padding:16px 18px;"
    "margin:0 0 16px}"
    ".tiles{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 16px}"
    ".tile{background:#fff;border:1px solid #e1e4ea;border-radius:8px;padding:8px 12px;"
    "flex:1 1 auto;min-width:96px}"
    ".tile .k{color:#5b6475;font-size:12px}.tile .v{font-size:18px;font-weight:600;"
    "word-break:break-all}"
    ".row{display:flex;flex-wrap:wrap;gap:24px}.row>div{flex:1 1 420px}"
    ".note{color:#5b6475;font-size:12.5px;margin:6px 0 0}"
    "svg text{font-size:12px;fill:#1d2433}svg .tick{font-size:10px;fill:#5b6475}"
    "svg .value{fill:#5b6475}svg .grid{stroke:#eceef2}svg .axis,svg .zero{stroke:#8a93a6}"
    "svg .zero{stroke-dasharray:2 2}svg .hist-bar{fill:#4e79a7}"
    "svg .cell-value{font-size:10px}svg .cell-value.on-dark{fill:#fff}"
    ".hists{display:grid;grid-template-columns:repeat(auto-fill,minmax(336px,1fr));gap:14px}"
    ".hist{border:1px solid #eceef2;border-radius:6px;padding:8px}"
    ".hist h3{font-size:12.5px;margin:0 0 4px;font-family:ui-monospace,monospace;"
    "word-break:break-all}"
    ".hist .meta{color:#5b6475;font-size:11.5px;margin:0 0 4px}"
    "table{border-collapse:collapse;font-size:12.5px;width:100%}"
    "th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eceef2;vertical-align:top}"
    "th{color:#5b6475;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:"
    "tabular-nums}"
    "td.name{font-family:ui-monospace,monospace;word-break:break-all}"
    ".stats td{padding:1px 6px;border:0;font-size:11.5px}"
    "details{border-top:1px solid #eceef2;padding:4px 0}summary{cursor:pointer;padding:2px 0}"
    "summary .n{color:#5b6475;margin-left:8px}"
    "footer{color:#8a93a6;font-size:12px;text-align:center;margin:8px 0 0}";

void wt_page_begin(wt_html *b, const char *title, const char *subtitle) {
  wt_html_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'\">"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                    "<title>");
  wt_html_str(b, title);
  wt_html_printf(b, "</title><style>%s</style></head>\n<body><main><h1>", wt_page_css);
  wt_html_str(b, title);
  wt_html_lit(b, "</h1>");
  if (subtitle != NULL) {
    wt_html_lit(b, "<p class=\"sub\">");
    wt_html_str(b, subtitle);
    wt_html_lit(b, "</p>");
  }
  wt_html_lit(b, "\n");
}

void wt_page_end(wt_html *b, const char *version) {
  wt_html_printf(b, "<footer>written by weights_report() of sqlite-weights %s</footer>", version);
  wt_html_lit(b, "</main></body></html>\n");
}

void wt_page_tiles_begin(wt_html *b) {
  wt_html_lit(b, "<div class=\"tiles\">");
}

void wt_page_tiles_end(wt_html *b) {
  wt_html_lit(b, "</div>\n");
}

/* Open a tile up to its value; value, when not NULL, is its exact value
** for data-value. */
static void wt_page_tile_open(wt_html *b, const char *key, const char *label,
                              const int64_t *value) {
  wt_html_printf(b, "<div class=\"tile\" data-key=\"%s\"", key);
  if (value != NULL)
    wt_html_printf(b, " data-value=\"%lld\"", (long long)*value);
  wt_html_lit(b, "><div class=\"k\">");
  wt_html_str(b, label);
  wt_html_lit(b, "</div><div class=\"v\">");
}

void wt_page_tile_int(wt_html *b, const char *key, const char *label, int64_t v) {
  wt_page_tile_open(b, key, label, &v);
  wt_html_int(b, v);
  wt_html_lit(b, "</div></div>");
}

void wt_page_tile_text(wt_html *b, const char *key, const char *label, const char *text) {
  wt_page_tile_open(b, key, label, NULL);
  wt_html_str(b, text ? text : "\xe2\x80\x94");
  wt_html_lit(b, "</div></div>");
}

void wt_page_tile_bytes(wt_html *b, const char *key, const char *label, int64_t bytes) {
  wt_page_tile_open(b, key, label, &bytes);
  wt_html_bytes(b, (double)bytes);
  wt_html_lit(b, "</div></div>");
}
