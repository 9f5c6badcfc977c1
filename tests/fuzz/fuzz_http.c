/*
** fuzz_http.c: libFuzzer target for the response checks of the remote
** source (ext/io/http_parse.c), without a network.
**
** Input: a flags byte (bit 0: the first request of an open; bits 1-3: the
** status; bits 4-5: the Link URL bound), then off, want and size as 8
** bytes each (little-endian), then the ETag seen at open up to a '\n', then
** header lines up to an empty line, then 2-byte body piece sizes.  Each
** header line goes to wt_http_resp_line() and wt_http_link_line() in a
** buffer of exactly its length (ASan sees a read past it), then the
** verdict and the body steps run as http_transfer.c runs them.  Checks:
** - a WT_RESP_OK from a 206 means the Content-Range, read here by another
**   way (digits with leading zeros dropped, "bytes " in any case), is
**   exactly "bytes OFF-(OFF+WANT-1)/SIZE" with the want after the verdict,
**   the size seen at open (or any size above the range at open), at most
**   the want asked, and the ETag the one seen at open;
** - the body taken never exceeds the want; an error page stops once over
**   WT_RESP_MAX_ERROR_BODY;
** - a Link "next" URL is at most its bound, and bytes of its line;
** - at open, with the ETag and size taken as those of a header kept on
**   disk: a WT_RESP_KEPT comes only from a 200 or 206 of that strong ETag
**   and size; a 200 is WT_RESP_WHOLE exactly when it is for a range from
**   byte 0 and has a Content-Length, and then its total is that length.
** Built by `make fuzz`.
*/
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/http_parse.h"

static uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* s with "bytes " lowercased and the leading zeros of each number dropped
** into out (size bytes); 0, or -1 when s does not start with "bytes ". */
static int normalize(const char *s, char *out, size_t size) {
  size_t i, j = 0;
  static const char lower[] = "bytes ";
  for (i = 0; i < 6; i++)
    if (s[i] == 0 || (s[i] | (i < 5 ? 0x20 : 0)) != lower[i])
      return -1;
  for (s += 6; *s && j + 1 < size; s++) {
    int start = j == 0 || out[j - 1] < '0' || out[j - 1] > '9';
    if (*s == '0' && start && s[1] >= '0' && s[1] <= '9')
      continue; /* a leading zero */
    out[j++] = *s;
  }
  out[j] = 0;
  return 0;
}

/* Abort unless a verdict OK on a 206 holds what it promises. */
static void check_ok(const wt_http_resp *r, const wt_http_ask *asked, const wt_http_ask *q,
                     uint64_t total) {
  char want[96], got[sizeof(r->cr)];
  if (q->want == 0 || q->want > asked->want || q->off + q->want - 1 < q->off ||
      normalize(r->cr, got, sizeof(got)) != 0)
    abort();
  if (asked->opening) {
    if (total <= q->off + q->want - 1 || total == UINT64_MAX)
      abort();
  } else if (total != asked->size || q->want != asked->want || strcmp(r->etag, asked->etag) != 0)
    abort();
  snprintf(want, sizeof(want), "%llu-%llu/%llu", (unsigned long long)q->off,
           (unsigned long long)(q->off + q->want - 1), (unsigned long long)total);
  if (strcmp(want, got) != 0)
    abort();
}

/* Abort unless a verdict KEPT holds what it promises: at open, a 200 or
** 206 with the strong ETag kept and the size kept (a 200's length, a 206's
** Content-Range total, read here by another way). */
static void check_kept(long code, const wt_http_resp *r, const wt_http_ask *asked) {
  char got[sizeof(r->cr)], *slash;
  if (!asked->opening || asked->kept_etag[0] == 0 || strncmp(asked->kept_etag, "W/", 2) == 0 ||
      strcmp(r->etag, asked->kept_etag) != 0)
    abort();
  if (code == 200 && (!r->has_length || r->length != asked->kept_size))
    abort();
  if (code == 206) {
    char want[32];
    if (normalize(r->cr, got, sizeof(got)) != 0 || (slash = strchr(got, '/')) == NULL)
      abort();
    snprintf(want, sizeof(want), "%llu", (unsigned long long)asked->kept_size);
    if (strcmp(slash + 1, want) != 0)
      abort();
  }
  if (code != 200 && code != 206)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const long codes[8] = {206, 206, 206, 200, 416, 404, 500, 304};
  static const size_t bounds[4] = {8192, 64, 8, 0};
  wt_http_resp r;
  wt_http_ask asked, q;
  const uint8_t *p, *end = data + size, *nl;
  char etag[256], *next, *prev;
  size_t n, got = 0, discarded = 0, max;
  uint64_t total = 0;
  long code;
  int why, started = 0;
  if (size < 25)
    return 0;
  code = codes[(data[0] >> 1) & 7];
  max = bounds[(data[0] >> 4) & 3];
  memset(&asked, 0, sizeof(asked));
  asked.opening = data[0] & 1;
  asked.off = le64(data + 1);
  asked.want = (size_t)le64(data + 9);
  asked.size = le64(data + 17);
  if (asked.want == 0)
    asked.want = 1; /* the caller never asks 0 bytes */
  p = data + 25;
  nl = memchr(p, '\n', (size_t)(end - p));
  n = (size_t)((nl ? nl : end) - p);
  if (n >= sizeof(etag) || memchr(p, 0, n) != NULL)
    return 0;
  memcpy(etag, p, n);
  etag[n] = 0;
  asked.etag = etag;
  asked.kept_etag = etag; /* at open, as the ETag of a header kept on disk */
  asked.kept_size = asked.size;
  p = nl ? nl + 1 : end;
  memset(&r, 0, sizeof(r));
  next = malloc(max + 1);
  prev = malloc(max + 1);
  next[0] = prev[0] = 0;
  while (p < end && *p != '\n') { /* header lines, each with its '\n' */
    char *line;
    nl = memchr(p, '\n', (size_t)(end - p));
    n = (size_t)((nl ? nl + 1 : end) - p);
    line = malloc(n ? n : 1);
    memcpy(line, p, n);
    wt_http_resp_line(&r, line, n);
    wt_http_link_line(line, n, next, max);
    if (strlen(next) > max ||
        (strcmp(next, prev) != 0 && next[0] && memmem(line, n, next, strlen(next)) == NULL))
      abort(); /* a new next URL comes from this line */
    memcpy(prev, next, strlen(next) + 1);
    if (strlen(r.cr) >= sizeof(r.cr) || strlen(r.etag) >= sizeof(r.etag))
      abort();
    free(line);
    p += n;
  }
  free(next);
  free(prev);
  if (p < end)
    p++; /* the empty line */
  q = asked;
  for (; p + 2 <= end; p += 2) { /* body pieces, as wt_on_body takes them */
    size_t piece = (size_t)p[0] | (size_t)p[1] << 8;
    if (!started) {
      started = 1;
      why = wt_http_verdict(code, &r, &q, &total);
      if (why == WT_RESP_KEPT) {
        check_kept(code, &r, &asked);
        break;
      }
      if (code == 200 &&
          why != (asked.opening && asked.off == 0 && r.has_length ? WT_RESP_WHOLE
                                                                  : WT_RESP_IGNORED_RANGE))
        abort();
      if (why == WT_RESP_WHOLE && total != r.length)
        abort();
      if (code != 200 && code != 206 && why != WT_RESP_OK)
        abort();
      if (why != WT_RESP_OK)
        break;
      if (code == 206)
        check_ok(&r, &asked, &q, total);
      else if (q.want != asked.want)
        abort();
    }
    why = wt_http_body_step(code, q.want, got, &discarded, piece);
    if (code != 206) {
      if ((why == WT_RESP_OK) != (discarded <= WT_RESP_MAX_ERROR_BODY))
        abort();
    } else if ((why == WT_RESP_OK) != (piece <= q.want - got))
      abort();
    if (why != WT_RESP_OK)
      break;
    if (code == 206)
      got += piece;
    if (got > q.want)
      abort();
  }
  return 0;
}
