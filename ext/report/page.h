/*
** page.h: the frame of a report page (pure C, no SQLite): the document
** head with its style sheet and a Content-Security-Policy that forbids
** scripts and fetches, the header tiles, and the end of the document.
** The page is self-contained: no script, no external resource.
*/
#ifndef WT_PAGE_H
#define WT_PAGE_H

#include <stdint.h>

#include "html.h"

/* Open the document: <head> with the style sheet, <body>, an <h1> of title
** (escaped) and a subtitle line (escaped; may be NULL). */
void wt_page_begin(wt_html *b, const char *title, const char *subtitle);

/* Close the document, with a footer naming what wrote it. */
void wt_page_end(wt_html *b, const char *version);

/* Open and close the row of header tiles. */
void wt_page_tiles_begin(wt_html *b);
void wt_page_tiles_end(wt_html *b);

/* One header tile: label over value.  key names it for the tests
** (data-key); _int also gives the exact value in data-value. */
void wt_page_tile_int(wt_html *b, const char *key, const char *label, int64_t v);
void wt_page_tile_text(wt_html *b, const char *key, const char *label, const char *text);
void wt_page_tile_bytes(wt_html *b, const char *key, const char *label, int64_t bytes);

#endif
