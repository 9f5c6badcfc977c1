/*
** slt.c - a sqllogictest-style test runner for sqlite-weights.
**
** Build and run:
**
**     cc -O2 -Wall -Wextra -std=gnu11 -o build/slt tests/slt.c -lsqlite3
**     build/slt [-e PATH]... [--engine NAME] [-v] FILE.test...
**
**   -e PATH, --extension PATH   load this extension into every connection
**                               (sqlite3_load_extension, default entry point)
**   --engine NAME               engine name for skipif/onlyif (default: sqlite)
**   -v                          print one line per record that passes or is skipped
**
** Each FILE.test runs on a fresh ":memory:" connection.  The helper functions
** below are registered, extension loading is enabled through the C API only
** (the SQL function load_extension() stays off), and each -e is loaded in
** order.  A load failure ends the run with status 2.
** The string __TEST_DIR__ anywhere in a test file is replaced by the path of a
** new, empty directory made for that file (inside a temporary directory made
** for the run under $TMPDIR or /tmp, removed with everything in it when the
** runner exits), so that test files cannot see each other's files.
**
** FILE FORMAT
**
** A file is a list of records separated by blank lines.  Lines whose first
** character is '#' are comments: they are dropped, even inside a record, and
** do not separate records.  A trailing '\r' is dropped and a line holding only
** whitespace is blank.  A record's first line says what it is:
**
**   statement ok              The rest of the record is one SQL statement
**                             that must run without error.
**   statement error ERE       The statement must fail, and the POSIX extended
**                             regular expression ERE (the rest of the line,
**                             required) must match sqlite3_errmsg() somewhere.
**   query TYPES [SORT] [LABEL]
**                             The SQL runs up to a line "----"; the lines
**                             after it are the expected values.  TYPES has one
**                             letter per result column: I integer, R real,
**                             T text.  SORT is nosort (the default), rowsort or
**                             valuesort.  Queries with the same LABEL must give
**                             the same result.
**   hash-threshold N          Results with more than N values must be written
**                             as "COUNT values hashing to MD5" (N=0, the
**                             default, never requires a hash).
**   halt                      Skip the rest of the file.
**   require file PATH         If PATH (relative to the working directory) does
**                             not exist, skip the rest of the file.
**
** A record may start with lines "skipif NAME" or "onlyif NAME": it is skipped
** if a skipif names the engine or an onlyif names another engine (names
** compare case-insensitively).
**
** A record holds exactly one SQL statement: anything but whitespace, comments
** or ';' after the first statement is a failure, and nothing runs.  Any other
** record type is a failure that stops the file.  Statements and queries are
** "records" in the counts; skipped ones (skipif/onlyif, or after halt, a
** missing require or an unknown record type) are counted as skipped.
**
** RESULTS
**
** Each value is rendered as text: NULL as "NULL"; I as a 64-bit integer; R with
** "%.3f"; T as its bytes, with every byte below 0x20 or above 0x7e (TAB and
** newline included) shown as '@', and the empty string as "(empty)".  Types are
** strict: an I column must hold integers, an R column reals or integers and a T
** column text (NULL is allowed in all).  A BLOB is always a failure: wrap blobs
** in hex() or length().  The column count must equal the length of TYPES.
**
** Expected lines are split on TAB and the pieces flattened into one list, so
** "one value per line" and "one row per line, TAB-separated" both work.  With
** rowsort the rows (with valuesort every value) of both the actual and the
** expected list are sorted with strcmp() on their rendered text before they
** are compared.  A single expected line "COUNT values hashing to MD5" is
** compared with the MD5 of the actual values, each followed by "\n", after
** sorting.  Above the hash threshold only such a hash line is accepted.  Labels
** compare the same MD5.
**
** HELPER FUNCTIONS (test-only, SQLITE_DIRECTONLY)
**
**   readfile(PATH [, OFFSET [, LENGTH]])  the file's bytes as a BLOB, or NULL
**   writefile(PATH, DATA)                 create/truncate PATH, write DATA;
**                                         returns the number of bytes written
**   truncatefile(PATH, SIZE)              truncate(2); 1 on success, else 0
**   removefile(PATH)                      unlink(2); 1 on success, else 0
**   makefifo(PATH)                        mkfifo(3); 1 on success, else 0
**   renamefile(FROM, TO)                  rename(2); 1 on success, else 0
**
** OUTPUT AND EXIT STATUS
**
** A failure prints "FILE:LINE: KIND" (LINE is the record's first line), then
** the SQL and the details.  After each file, sqlite3_close() must succeed and
** sqlite3_memory_used() must be back where it was before the file was opened
** (that is, 0: Debian's libsqlite3 3.40.1 gives 0 after closing, with or
** without a loaded extension), or the file fails.  A file that runs no record
** fails, unless "require file" skipped it.  Each file ends with
** "FILE: N errors out of M records. K skipped."; the last line is
** "TOTAL: P passed, F failed, S skipped".  The exit status is 0 if nothing
** failed and something passed, 1 otherwise, and 2 for usage, I/O and
** extension-load errors.
*/
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <sqlite3.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLT_MAX_SHOWN 20        /* values shown in an expected/actual listing */
#define SLT_MAX_TOKEN 8         /* tokens kept from a record's first line */
#define SLT_SPACE     " \t\v\f" /* what isspace() accepts, but newlines */

/* Results of prepareOne() besides the SQLite result codes. */
#define SLT_EMPTY (-1) /* the SQL holds no statement */
#define SLT_MULTI (-2) /* more than one statement */

/* A growable list of strings.  The runner's own memory comes from malloc()
** so that sqlite3_memory_used() measures SQLite and the extensions only. */
typedef struct StrList {
  char **az;
  int n;
  int nAlloc;
} StrList;

/* One line of a test file, with its 1-based line number. */
typedef struct Line {
  int iLine;
  char *z;
} Line;

/* A record: the non-comment lines between two blank lines. */
typedef struct Record {
  Line *aLine;
  int nLine;
  int nAlloc;
} Record;

/* A label and the hash of the first result seen under it. */
typedef struct Label {
  char *zName;
  char *zHash;
  struct Label *pNext;
} Label;

/* State of the whole run. */
typedef struct Runner {
  const char **azExt; /* extensions to load (-e) */
  int nExt;
  const char *zEngine; /* engine name for skipif/onlyif */
  int bVerbose;
  char *zTestDir; /* the run's temporary directory */
  char *zFileDir; /* a fresh subdirectory of it per file: replaces __TEST_DIR__ */
  int nFileDir;   /* subdirectories made so far */
  int nPass, nFail, nSkip;
  int nFile, nRecord;
  int bHardError; /* I/O or load error: exit status 2 */
} Runner;

/* State of one test file while it runs. */
typedef struct FileRun {
  Runner *pRunner;
  const char *zFile;
  sqlite3 *db;
  int nHashThreshold;
  int nRun, nErr, nSkip;
  int bSkipRest;    /* after halt, require or an unknown record */
  int bRequireSkip; /* a require record skipped the rest */
  Label *pLabel;
} FileRun;

/* Print a message to stderr and exit with status 2 (used for out-of-memory). */
static void fatal(const char *zMsg) {
  fprintf(stderr, "slt: %s\n", zMsg);
  exit(2);
}

/* malloc(), realloc() and strdup() that never return NULL. */
static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (p == 0)
    fatal("out of memory");
  return p;
}
static char *xstrdup(const char *z) {
  char *zCopy = xrealloc(0, strlen(z) + 1);
  return strcpy(zCopy, z);
}

/* Return a malloc()ed string formatted like printf(). */
static char *xprintf(const char *zFmt, ...) {
  va_list ap;
  char *z = 0;
  va_start(ap, zFmt);
  if (vasprintf(&z, zFmt, ap) < 0)
    fatal("out of memory");
  va_end(ap);
  return z;
}

/* Append a copy of z to a string list. */
static void listAdd(StrList *p, const char *z) {
  if (p->n == p->nAlloc) {
    p->nAlloc = p->nAlloc ? 2 * p->nAlloc : 16;
    p->az = xrealloc(p->az, p->nAlloc * sizeof(char *));
  }
  p->az[p->n++] = xstrdup(z);
}

/* Free the strings of a list and empty it. */
static void listFree(StrList *p) {
  for (int i = 0; i < p->n; i++)
    free(p->az[i]);
  free(p->az);
  memset(p, 0, sizeof(*p));
}

/* Replace every "__TEST_DIR__" in z by zDir.  Returns a new string. */
static char *substitute(const char *z, const char *zDir) {
  static const char zKey[] = "__TEST_DIR__";
  size_t nKey = sizeof(zKey) - 1, nDir = strlen(zDir), nOut = 0;
  const char *zHit;
  char *zOut = xrealloc(0, strlen(z) + 1);
  while ((zHit = strstr(z, zKey)) != 0) {
    size_t nPre = (size_t)(zHit - z);
    zOut = xrealloc(zOut, nOut + nPre + nDir + strlen(zHit) + 1);
    memcpy(zOut + nOut, z, nPre);
    memcpy(zOut + nOut + nPre, zDir, nDir);
    nOut += nPre + nDir;
    z = zHit + nKey;
  }
  strcpy(zOut + nOut, z);
  return zOut;
}

/*
** MD5 (RFC 1321), for result hashes.
*/
typedef struct Md5 {
  uint32_t s[4];
  uint64_t nByte;
  unsigned char buf[64];
} Md5;

/* K[i] = floor(abs(sin(i+1)) * 2^32), and the per-round rotation amounts. */
static const uint32_t md5K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const unsigned char md5R[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};

/* Start a new MD5 computation. */
static void md5Init(Md5 *p) {
  p->s[0] = 0x67452301;
  p->s[1] = 0xefcdab89;
  p->s[2] = 0x98badcfe;
  p->s[3] = 0x10325476;
  p->nByte = 0;
}

/* Process one 64-byte block. */
static void md5Block(Md5 *p, const unsigned char *blk) {
  uint32_t m[16], a = p->s[0], b = p->s[1], c = p->s[2], d = p->s[3];
  for (int i = 0; i < 16; i++) {
    m[i] = (uint32_t)blk[4 * i] | (uint32_t)blk[4 * i + 1] << 8 | (uint32_t)blk[4 * i + 2] << 16 |
           (uint32_t)blk[4 * i + 3] << 24;
  }
  for (int i = 0; i < 64; i++) {
    uint32_t f;
    int g, r = md5R[(i / 16) * 4 + i % 4];
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    f += a + md5K[i] + m[g];
    a = d;
    d = c;
    c = b;
    b += (f << r) | (f >> (32 - r));
  }
  p->s[0] += a;
  p->s[1] += b;
  p->s[2] += c;
  p->s[3] += d;
}

/* Add n bytes to the message. */
static void md5Update(Md5 *p, const void *pData, size_t n) {
  const unsigned char *z = pData;
  while (n > 0) {
    size_t iBuf = p->nByte % 64, nCopy = 64 - iBuf < n ? 64 - iBuf : n;
    memcpy(p->buf + iBuf, z, nCopy);
    p->nByte += nCopy;
    z += nCopy;
    n -= nCopy;
    if (p->nByte % 64 == 0)
      md5Block(p, p->buf);
  }
}

/* Finish the computation and write the digest as 32 hex digits to zOut[33]. */
static void md5Final(Md5 *p, char *zOut) {
  unsigned char aLen[8];
  uint64_t nBit = p->nByte * 8;
  for (int i = 0; i < 8; i++)
    aLen[i] = (unsigned char)(nBit >> (8 * i));
  md5Update(p, "\x80", 1);
  while (p->nByte % 64 != 56)
    md5Update(p, "", 1);
  md5Update(p, aLen, 8);
  for (int i = 0; i < 16; i++)
    sprintf(zOut + 2 * i, "%02x", (unsigned)(p->s[i / 4] >> (8 * (i % 4))) & 0xff);
}

/* Return "N values hashing to MD5" for a list of rendered values. */
static char *hashValues(const StrList *p) {
  Md5 ctx;
  char zDigest[33];
  md5Init(&ctx);
  for (int i = 0; i < p->n; i++) {
    md5Update(&ctx, p->az[i], strlen(p->az[i]));
    md5Update(&ctx, "\n", 1);
  }
  md5Final(&ctx, zDigest);
  return xprintf("%d values hashing to %s", p->n, zDigest);
}

/*
** Test-only SQL functions for tests that create, damage and remove files.
*/

/* readfile(PATH [, OFFSET [, LENGTH]]): bytes of a regular file, or NULL. */
static void readfileFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *zPath = (const char *)sqlite3_value_text(argv[0]);
  sqlite3_int64 iOff = argc > 1 ? sqlite3_value_int64(argv[1]) : 0;
  sqlite3_int64 nWant = argc > 2 ? sqlite3_value_int64(argv[2]) : -1;
  sqlite3_int64 nGot = 0;
  unsigned char *aBuf;
  struct stat st;
  int fd;
  if (iOff < 0 || (argc > 2 && nWant < 0)) {
    sqlite3_result_error(ctx, "readfile: negative offset or length", -1);
    return;
  }
  if (zPath == 0 || (fd = open(zPath, O_RDONLY)) < 0)
    return;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return;
  }
  if (iOff > st.st_size)
    iOff = st.st_size;
  if (nWant < 0 || nWant > st.st_size - iOff)
    nWant = st.st_size - iOff;
  aBuf = sqlite3_malloc64(nWant ? (sqlite3_uint64)nWant : 1);
  if (aBuf == 0) {
    close(fd);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  while (nGot < nWant) {
    ssize_t n = pread(fd, aBuf + nGot, (size_t)(nWant - nGot), (off_t)(iOff + nGot));
    if (n <= 0)
      break;
    nGot += n;
  }
  close(fd);
  sqlite3_result_blob64(ctx, aBuf, (sqlite3_uint64)nGot, sqlite3_free);
}

/* writefile(PATH, DATA): write DATA (blob or text) to PATH; bytes written. */
static void writefileFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *zPath = (const char *)sqlite3_value_text(argv[0]);
  const char *aData;
  sqlite3_int64 nData, nDone = 0;
  int fd, bOk;
  (void)argc;
  if (sqlite3_value_type(argv[1]) == SQLITE_BLOB)
    aData = sqlite3_value_blob(argv[1]);
  else
    aData = (const char *)sqlite3_value_text(argv[1]);
  nData = aData ? sqlite3_value_bytes(argv[1]) : 0;
  if (zPath == 0)
    return;
  fd = open(zPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  bOk = fd >= 0;
  while (bOk && nDone < nData) {
    ssize_t n = write(fd, aData + nDone, (size_t)(nData - nDone));
    bOk = n > 0;
    nDone += bOk ? n : 0;
  }
  if (fd >= 0 && close(fd) != 0)
    bOk = 0;
  if (bOk) {
    sqlite3_result_int64(ctx, nDone);
  } else {
    char *zErr = sqlite3_mprintf("writefile: %s: %s", zPath, strerror(errno));
    sqlite3_result_error(ctx, zErr, -1);
    sqlite3_free(zErr);
  }
}

/* truncatefile(PATH, SIZE): 1 if truncate(2) succeeds, else 0. */
static void truncatefileFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *zPath = (const char *)sqlite3_value_text(argv[0]);
  (void)argc;
  sqlite3_result_int(ctx, zPath && truncate(zPath, (off_t)sqlite3_value_int64(argv[1])) == 0);
}

/* removefile(PATH): 1 if unlink(2) succeeds, else 0. */
static void removefileFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *zPath = (const char *)sqlite3_value_text(argv[0]);
  (void)argc;
  sqlite3_result_int(ctx, zPath && unlink(zPath) == 0);
}

/* makefifo(PATH): 1 if mkfifo(3) succeeds, else 0. */
static void makefifoFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *zPath = (const char *)sqlite3_value_text(argv[0]);
  (void)argc;
  sqlite3_result_int(ctx, zPath && mkfifo(zPath, 0600) == 0);
}

/* renamefile(FROM, TO): 1 if rename(2) succeeds, else 0. */
static void renamefileFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *zFrom = (const char *)sqlite3_value_text(argv[0]);
  const char *zTo = (const char *)sqlite3_value_text(argv[1]);
  (void)argc;
  sqlite3_result_int(ctx, zFrom && zTo && rename(zFrom, zTo) == 0);
}

/* Register the helper functions on db.  Returns an SQLite result code. */
static int registerHelpers(sqlite3 *db) {
  static const struct {
    const char *zName;
    int nArg;
    void (*xFunc)(sqlite3_context *, int, sqlite3_value **);
  } aFunc[] = {
      {"readfile", 1, readfileFunc},         {"readfile", 2, readfileFunc},
      {"readfile", 3, readfileFunc},         {"writefile", 2, writefileFunc},
      {"truncatefile", 2, truncatefileFunc}, {"removefile", 1, removefileFunc},
      {"makefifo", 1, makefifoFunc},         {"renamefile", 2, renamefileFunc},
  };
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof(aFunc) / sizeof(aFunc[0]); i++) {
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                 0, aFunc[i].xFunc, 0, 0);
  }
  return rc;
}

/*
** The temporary directory.
*/

/* nftw() callback: remove one entry (children come first, FTW_DEPTH). */
static int removeEntry(const char *zPath, const struct stat *pSt, int eType, struct FTW *pFtw) {
  (void)pSt;
  (void)pFtw;
  return eType == FTW_DP ? rmdir(zPath) : unlink(zPath);
}

/* Remove the run's temporary directory and everything in it. */
static void removeTestDir(Runner *p) {
  if (p->zTestDir) {
    nftw(p->zTestDir, removeEntry, 16, FTW_DEPTH | FTW_PHYS);
    free(p->zTestDir);
    p->zTestDir = 0;
  }
  free(p->zFileDir);
  p->zFileDir = 0;
}

/*
** Reading test files.
*/

/* Read zFile into a list of records.  Returns 0, or -1 with errno set. */
static int readScript(Runner *p, const char *zFile, Record **paRec, int *pnRec) {
  FILE *in = fopen(zFile, "r");
  Record *aRec = 0;
  int nRec = 0, iLine = 0, bInRecord = 0;
  char *zBuf = 0;
  size_t nBuf = 0;
  ssize_t n;
  if (in == 0)
    return -1;
  while ((n = getline(&zBuf, &nBuf, in)) >= 0) {
    Record *pRec;
    int bBlank = 1;
    iLine++;
    while (n > 0 && (zBuf[n - 1] == '\n' || zBuf[n - 1] == '\r'))
      zBuf[--n] = 0;
    if (zBuf[0] == '#')
      continue;
    for (ssize_t i = 0; i < n; i++)
      bBlank = bBlank && isspace((unsigned char)zBuf[i]);
    if (bBlank) {
      bInRecord = 0;
      continue;
    }
    if (!bInRecord) {
      aRec = xrealloc(aRec, (nRec + 1) * sizeof(Record));
      memset(&aRec[nRec++], 0, sizeof(Record));
      bInRecord = 1;
    }
    pRec = &aRec[nRec - 1];
    if (pRec->nLine == pRec->nAlloc) {
      pRec->nAlloc = pRec->nAlloc ? 2 * pRec->nAlloc : 8;
      pRec->aLine = xrealloc(pRec->aLine, pRec->nAlloc * sizeof(Line));
    }
    pRec->aLine[pRec->nLine].iLine = iLine;
    pRec->aLine[pRec->nLine++].z = substitute(zBuf, p->zFileDir);
  }
  free(zBuf);
  *paRec = aRec;
  *pnRec = nRec;
  if (ferror(in)) {
    int e = errno;
    fclose(in);
    errno = e;
    return -1;
  }
  fclose(in);
  return 0;
}

/* Free the records read by readScript(). */
static void freeScript(Record *aRec, int nRec) {
  for (int i = 0; i < nRec; i++) {
    for (int j = 0; j < aRec[i].nLine; j++)
      free(aRec[i].aLine[j].z);
    free(aRec[i].aLine);
  }
  free(aRec);
}

/* Split a copy of z into whitespace-separated tokens, at most SLT_MAX_TOKEN. */
static int tokenize(const char *z, char **pzCopy, char **az) {
  char *zCopy = xstrdup(z), *zSave = 0, *zTok;
  int n = 0;
  for (zTok = strtok_r(zCopy, SLT_SPACE, &zSave); zTok && n < SLT_MAX_TOKEN;
       zTok = strtok_r(0, SLT_SPACE, &zSave)) {
    az[n++] = zTok;
  }
  *pzCopy = zCopy;
  return n;
}

/* Return a copy of the text of z after its first nWord whitespace-separated
** words, without surrounding whitespace. */
static char *restOfLine(const char *z, int nWord) {
  char *zRest;
  size_t n;
  for (int i = 0; i <= nWord; i++) {
    while (i > 0 && *z && !isspace((unsigned char)*z))
      z++;
    while (isspace((unsigned char)*z))
      z++;
  }
  zRest = xstrdup(z);
  n = strlen(zRest);
  while (n > 0 && isspace((unsigned char)zRest[n - 1]))
    zRest[--n] = 0;
  return zRest;
}

/*
** Reporting.
*/

/* A growable string, for the details of a failure. */
typedef struct Str {
  char *z;
  size_t n, nAlloc;
} Str;

/* Append printf-formatted text to p. */
static void strAppendf(Str *p, const char *zFmt, ...) {
  va_list ap;
  int n;
  va_start(ap, zFmt);
  n = vsnprintf(0, 0, zFmt, ap);
  va_end(ap);
  if (p->n + (size_t)n + 1 > p->nAlloc) {
    p->nAlloc = 2 * (p->n + (size_t)n + 1);
    p->z = xrealloc(p->z, p->nAlloc);
  }
  va_start(ap, zFmt);
  vsnprintf(p->z + p->n, (size_t)n + 1, zFmt, ap);
  va_end(ap);
  p->n += (size_t)n;
}

/* Print a failure: "FILE:LINE: KIND" (or "FILE: KIND" if iLine is 0), then
** the SQL and the details when there are any, and count it. */
static void printFailure(FileRun *f, int iLine, const char *zKind, const char *zSql,
                         const char *zDetail) {
  if (iLine > 0)
    printf("%s:%d: %s\n", f->zFile, iLine, zKind);
  else
    printf("%s: %s\n", f->zFile, zKind);
  if (zSql && zSql[0]) {
    const char *z = zSql;
    printf("  sql:\n");
    while (*z) {
      int n = (int)strcspn(z, "\n");
      printf("    %.*s\n", n, z);
      z += n + (z[n] == '\n');
    }
  }
  if (zDetail)
    printf("%s", zDetail);
  f->nErr++;
  f->pRunner->nFail++;
}

/* Count a record that failed, and print why. */
static void reportFailure(FileRun *f, const Record *pRec, const char *zKind, const char *zSql,
                          const char *zDetail) {
  printFailure(f, pRec->aLine[0].iLine, zKind, zSql, zDetail);
  f->nRun++;
}

/* Count a record that passed. */
static void reportPass(FileRun *f, const Record *pRec) {
  if (f->pRunner->bVerbose)
    printf("%s:%d: ok\n", f->zFile, pRec->aLine[0].iLine);
  f->nRun++;
  f->pRunner->nPass++;
}

/* Count a record that was skipped. */
static void reportSkip(FileRun *f, const Record *pRec) {
  if (f->pRunner->bVerbose)
    printf("%s:%d: skipped\n", f->zFile, pRec->aLine[0].iLine);
  f->nSkip++;
  f->pRunner->nSkip++;
}

/* Append an SQLite error message and its codes to p. */
static void appendError(Str *p, const char *zMsg, int eCode) {
  strAppendf(p, "  error: %s\n  code: %d (%s), extended code %d\n", zMsg, eCode & 0xff,
             sqlite3_errstr(eCode), eCode);
}

/* Append to pOut up to SLT_MAX_SHOWN values of p, from a little before index
** iDiff, and mark index iDiff with '>'. */
static void appendListing(Str *pOut, const char *zTitle, const StrList *p, int iDiff) {
  int iFirst = iDiff > 5 ? iDiff - 5 : 0, iEnd = iFirst + SLT_MAX_SHOWN;
  strAppendf(pOut, "  %s (%d values):\n", zTitle, p->n);
  if (iFirst > 0)
    strAppendf(pOut, "      ... %d before\n", iFirst);
  for (int i = iFirst; i < p->n && i < iEnd; i++)
    strAppendf(pOut, "    %c %d: %s\n", i == iDiff ? '>' : ' ', i, p->az[i]);
  if (p->n > iEnd)
    strAppendf(pOut, "      ... %d more\n", p->n - iEnd);
}

/*
** Running SQL.
*/

/* Prepare exactly one statement.  Returns SQLITE_OK with *ppStmt set, an
** SQLite error code (message in sqlite3_errmsg()), SLT_EMPTY or SLT_MULTI. */
static int prepareOne(sqlite3 *db, const char *zSql, sqlite3_stmt **ppStmt) {
  sqlite3_stmt *pStmt = 0, *pNext = 0;
  const char *zTail = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, &zTail);
  *ppStmt = 0;
  if (rc != SQLITE_OK)
    return rc;
  if (pStmt == 0)
    return SLT_EMPTY;
  /* Only whitespace, comments and ';' prepare to no statement at all. */
  rc = sqlite3_prepare_v2(db, zTail, -1, &pNext, 0);
  if (rc != SQLITE_OK || pNext != 0) {
    sqlite3_finalize(pNext);
    sqlite3_finalize(pStmt);
    return SLT_MULTI;
  }
  *ppStmt = pStmt;
  return SQLITE_OK;
}

/* Return lines iFirst..iEnd-1 of a record joined with newlines. */
static char *joinLines(const Record *pRec, int iFirst, int iEnd) {
  Str s = {0};
  strAppendf(&s, "%s", "");
  for (int i = iFirst; i < iEnd; i++)
    strAppendf(&s, "%s%s", i > iFirst ? "\n" : "", pRec->aLine[i].z);
  return s.z;
}

/* Render column i of row iRow (from 1) for type letter cType and append it
** to pOut.  Returns NULL, or the kind of problem after appending a
** description of it to pDetail. */
static const char *renderValue(sqlite3_stmt *pStmt, int iRow, int i, char cType, StrList *pOut,
                               Str *pDetail) {
  static const char *azType[] = {"?", "INTEGER", "FLOAT", "TEXT", "BLOB", "NULL"};
  int eType = sqlite3_column_type(pStmt, i);
  Str s = {0};
  if (eType == SQLITE_BLOB) {
    strAppendf(pDetail,
               "  row %d, column %d is a BLOB of %d bytes: wrap blobs in hex() or length()\n", iRow,
               i + 1, sqlite3_column_bytes(pStmt, i));
    return "blob in result";
  } else if (eType == SQLITE_NULL) {
    strAppendf(&s, "NULL");
  } else if (cType == 'I' && eType == SQLITE_INTEGER) {
    strAppendf(&s, "%lld", (long long)sqlite3_column_int64(pStmt, i));
  } else if (cType == 'R' && (eType == SQLITE_INTEGER || eType == SQLITE_FLOAT)) {
    strAppendf(&s, "%.3f", sqlite3_column_double(pStmt, i));
  } else if (cType == 'T' && eType == SQLITE_TEXT) {
    const unsigned char *z = sqlite3_column_text(pStmt, i);
    int n = sqlite3_column_bytes(pStmt, i);
    s.z = xrealloc(0, (size_t)n + sizeof("(empty)"));
    for (int j = 0; j < n; j++)
      s.z[j] = z[j] < 0x20 || z[j] > 0x7e ? '@' : (char)z[j];
    s.z[n] = 0;
    if (n == 0)
      strcpy(s.z, "(empty)");
  } else {
    strAppendf(pDetail, "  row %d, column %d has type letter '%c' but holds %s '%s'\n", iRow, i + 1,
               cType, azType[eType], (const char *)sqlite3_column_text(pStmt, i));
    return "wrong column type";
  }
  listAdd(pOut, s.z);
  free(s.z);
  return 0;
}

/* The number of columns of a row, for compareRows(): qsort() passes no
** context, and the runner is single-threaded. */
static int nSortColumn;

/* qsort() comparisons: strings, and rows of nSortColumn strings. */
static int compareValues(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}
static int compareRows(const void *a, const void *b) {
  char *const *azA = *(char **const *)a, *const *azB = *(char **const *)b;
  for (int i = 0; i < nSortColumn; i++) {
    int c = strcmp(azA[i], azB[i]);
    if (c)
      return c;
  }
  return 0;
}

/* Sort a list of values in place as zMode says ("rowsort" or "valuesort"). */
static void sortValues(StrList *p, const char *zMode, int nCol) {
  if (strcmp(zMode, "valuesort") == 0) {
    qsort(p->az, (size_t)p->n, sizeof(char *), compareValues);
  } else if (strcmp(zMode, "rowsort") == 0 && p->n % nCol == 0) {
    int nRow = p->n / nCol;
    char ***aRow = xrealloc(0, (size_t)nRow * sizeof(char **));
    char **azNew = xrealloc(0, (size_t)p->n * sizeof(char *));
    for (int i = 0; i < nRow; i++)
      aRow[i] = &p->az[i * nCol];
    nSortColumn = nCol;
    qsort(aRow, (size_t)nRow, sizeof(char **), compareRows);
    for (int i = 0; i < nRow; i++)
      memcpy(&azNew[i * nCol], aRow[i], (size_t)nCol * sizeof(char *));
    free(aRow);
    free(p->az);
    p->az = azNew;
    p->nAlloc = p->n;
  }
}

/* Run "statement ok" or "statement error ERE" (header at line iHead). */
static void runStatement(FileRun *f, const Record *pRec, int iHead, char **azTok, int nTok) {
  char *zPattern = restOfLine(pRec->aLine[iHead].z, 2);
  char *zSql = joinLines(pRec, iHead + 1, pRec->nLine), *zErr = 0;
  int bError = nTok >= 2 && strcmp(azTok[1], "error") == 0;
  int rc, eCode = 0, bRegex = 0;
  const char *zKind = 0;
  sqlite3_stmt *pStmt = 0;
  Str detail = {0};
  regex_t re;

  for (int i = iHead + 1; i < pRec->nLine && zKind == 0; i++) {
    if (strcmp(pRec->aLine[i].z, "----") == 0)
      zKind = "bad record: \"----\" in a statement record";
  }
  if (zKind) {
    /* reported below */
  } else if (nTok < 2 || (!bError && (strcmp(azTok[1], "ok") != 0 || nTok > 2))) {
    zKind = "bad record: expected \"statement ok\" or \"statement error ERE\"";
  } else if (bError && zPattern[0] == 0) {
    zKind = "bad record: \"statement error\" needs a pattern (POSIX ERE)";
  } else if (bError && (rc = regcomp(&re, zPattern, REG_EXTENDED | REG_NOSUB)) != 0) {
    char zMsg[200];
    regerror(rc, &re, zMsg, sizeof(zMsg));
    strAppendf(&detail, "  pattern: %s\n  regcomp: %s\n", zPattern, zMsg);
    zKind = "bad record: invalid pattern";
  }
  if (zKind)
    goto done;
  bRegex = bError;

  rc = prepareOne(f->db, zSql, &pStmt);
  if (rc == SLT_EMPTY) {
    zKind = "no SQL statement in record";
    goto done;
  }
  if (rc == SLT_MULTI) {
    zKind = "more than one SQL statement in record";
    goto done;
  }
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    }
    if (rc == SQLITE_DONE)
      rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) {
    zErr = xstrdup(sqlite3_errmsg(f->db));
    eCode = sqlite3_extended_errcode(f->db);
  }
  sqlite3_finalize(pStmt);

  if (!bError && rc != SQLITE_OK) {
    appendError(&detail, zErr, eCode);
    zKind = "statement failed";
  } else if (bError && rc == SQLITE_OK) {
    strAppendf(&detail, "  expected an error matching: %s\n", zPattern);
    zKind = "statement succeeded but an error was expected";
  } else if (bError && regexec(&re, zErr, 0, 0, 0) != 0) {
    strAppendf(&detail, "  pattern: %s\n", zPattern);
    appendError(&detail, zErr, eCode);
    zKind = "error message does not match";
  }

done:
  if (zKind)
    reportFailure(f, pRec, zKind, zSql, detail.z);
  else
    reportPass(f, pRec);
  if (bRegex)
    regfree(&re);
  free(zPattern);
  free(zSql);
  free(zErr);
  free(detail.z);
}

/* Run a query and render its values into pOut.  Returns NULL on success, or
** the kind of problem after appending a description of it to pDetail. */
static const char *runQuerySql(FileRun *f, const char *zSql, const char *zTypes, StrList *pOut,
                               Str *pDetail) {
  int nCol = (int)strlen(zTypes), rc, iRow = 0;
  const char *zKind = 0;
  sqlite3_stmt *pStmt = 0;

  rc = prepareOne(f->db, zSql, &pStmt);
  if (rc == SLT_EMPTY)
    return "no SQL statement in record";
  if (rc == SLT_MULTI)
    return "more than one SQL statement in record";
  if (rc == SQLITE_OK && sqlite3_column_count(pStmt) != nCol) {
    strAppendf(pDetail, "  the type string \"%s\" has %d letters, the query returns %d columns\n",
               zTypes, nCol, sqlite3_column_count(pStmt));
    sqlite3_finalize(pStmt);
    return "wrong number of result columns";
  }
  if (rc == SQLITE_OK) {
    while (zKind == 0 && (rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
      iRow++;
      for (int i = 0; i < nCol && zKind == 0; i++)
        zKind = renderValue(pStmt, iRow, i, zTypes[i], pOut, pDetail);
    }
    if (rc == SQLITE_DONE)
      rc = SQLITE_OK;
  }
  if (zKind == 0 && rc != SQLITE_OK) {
    appendError(pDetail, sqlite3_errmsg(f->db), sqlite3_extended_errcode(f->db));
    zKind = "query failed";
  }
  sqlite3_finalize(pStmt);
  return zKind;
}

/* Return 1 if z is a hash line "N values hashing to MD5". */
static int isHashLine(const char *z) {
  int n = 0, nDigit = 0;
  if (sscanf(z, "%*d values hashing to %n", &n) != 0 || n == 0)
    return 0;
  while (isxdigit((unsigned char)z[n + nDigit]))
    nDigit++;
  return nDigit == 32 && z[n + nDigit] == 0;
}

/* Compare the actual values of a query with the expected ones.  Returns NULL
** if they agree, else the kind of failure after describing it in pDetail. */
static const char *compareResult(FileRun *f, StrList *pActual, StrList *pExpected,
                                 const char *zSort, int nCol, const char *zHash, Str *pDetail) {
  int iDiff = -1;
  if (pExpected->n == 1 && isHashLine(pExpected->az[0])) {
    if (strcmp(pExpected->az[0], zHash) == 0)
      return 0;
    strAppendf(pDetail, "  expected: %s\n  actual:   %s\n", pExpected->az[0], zHash);
    return "wrong result hash";
  }
  if (f->nHashThreshold > 0 && pActual->n > f->nHashThreshold) {
    strAppendf(pDetail, "  %d values are above hash-threshold %d: expected the line\n    %s\n",
               pActual->n, f->nHashThreshold, zHash);
    return "wrong result hash";
  }
  sortValues(pExpected, zSort, nCol);
  for (int i = 0; iDiff < 0 && (i < pActual->n || i < pExpected->n); i++) {
    if (i >= pActual->n || i >= pExpected->n || strcmp(pActual->az[i], pExpected->az[i]) != 0)
      iDiff = i;
  }
  if (iDiff < 0)
    return 0;
  strAppendf(pDetail, "  first difference at value %d (row %d, column %d)\n", iDiff,
             iDiff / nCol + 1, iDiff % nCol + 1);
  appendListing(pDetail, "expected", pExpected, iDiff);
  appendListing(pDetail, "actual", pActual, iDiff);
  return "wrong result";
}

/* Check a result against the one stored under zLabel, or store it.  Returns
** 0 if they agree (or this is the first), else 1 after describing it. */
static int checkLabel(FileRun *f, const char *zLabel, const char *zHash, Str *pDetail) {
  Label *p = f->pLabel;
  while (p && strcmp(p->zName, zLabel) != 0)
    p = p->pNext;
  if (p == 0) {
    p = xrealloc(0, sizeof(Label));
    p->zName = xstrdup(zLabel);
    p->zHash = xstrdup(zHash);
    p->pNext = f->pLabel;
    f->pLabel = p;
    return 0;
  }
  if (strcmp(p->zHash, zHash) == 0)
    return 0;
  strAppendf(pDetail, "  earlier: %s\n  now:     %s\n", p->zHash, zHash);
  return 1;
}

/* Run "query TYPES [SORT] [LABEL]" (header at line iHead). */
static void runQuery(FileRun *f, const Record *pRec, int iHead, char **azTok, int nTok) {
  const char *zTypes = nTok > 1 ? azTok[1] : "", *zSort = nTok > 2 ? azTok[2] : "nosort";
  const char *zLabel = nTok > 3 ? azTok[3] : 0, *zKind = 0;
  int iSep = iHead + 1, nCol = (int)strlen(zTypes);
  StrList actual = {0}, expected = {0};
  Str detail = {0};
  char *zSql, *zHash = 0, *zLabelKind = 0;

  while (iSep < pRec->nLine && strcmp(pRec->aLine[iSep].z, "----") != 0)
    iSep++;
  zSql = joinLines(pRec, iHead + 1, iSep);
  for (int i = iSep + 1; i < pRec->nLine; i++) {
    char *zCopy = xstrdup(pRec->aLine[i].z), *zRest = zCopy;
    for (char *z = strsep(&zRest, "\t"); z; z = strsep(&zRest, "\t"))
      listAdd(&expected, z);
    free(zCopy);
  }

  if (nTok < 2 || nTok > 4 || nCol == 0 || strspn(zTypes, "ITR") != (size_t)nCol) {
    zKind = "bad record: expected \"query TYPES [SORT] [LABEL]\", TYPES made of I, T and R";
  } else if (strcmp(zSort, "nosort") && strcmp(zSort, "rowsort") && strcmp(zSort, "valuesort")) {
    zKind = "bad record: the sort mode must be nosort, rowsort or valuesort";
  } else {
    zKind = runQuerySql(f, zSql, zTypes, &actual, &detail);
  }
  if (zKind == 0) {
    sortValues(&actual, zSort, nCol);
    zHash = hashValues(&actual);
    zKind = compareResult(f, &actual, &expected, zSort, nCol, zHash, &detail);
  }
  if (zKind == 0 && zLabel && checkLabel(f, zLabel, zHash, &detail)) {
    zLabelKind = xprintf("labeled result [%s] does not agree with previous values", zLabel);
    zKind = zLabelKind;
  }

  if (zKind)
    reportFailure(f, pRec, zKind, zSql, detail.z);
  else
    reportPass(f, pRec);
  listFree(&actual);
  listFree(&expected);
  free(zSql);
  free(zHash);
  free(zLabelKind);
  free(detail.z);
}

/* Return 1 if zType names a control record (it counts as no record). */
static int isControl(const char *zType) {
  return strcmp(zType, "hash-threshold") == 0 || strcmp(zType, "halt") == 0 ||
         strcmp(zType, "require") == 0;
}

/* Run one record. */
static void runRecord(FileRun *f, const Record *pRec) {
  char *azTok[SLT_MAX_TOKEN] = {0}, *zCopy = 0;
  int iHead, nTok = 0, bSkip = 0, bBadCondition = 0;

  /* Find the header line, after the skipif/onlyif lines. */
  for (iHead = 0; iHead < pRec->nLine; iHead++) {
    free(zCopy);
    nTok = tokenize(pRec->aLine[iHead].z, &zCopy, azTok);
    if (strcmp(azTok[0], "skipif") != 0 && strcmp(azTok[0], "onlyif") != 0)
      break;
    if (nTok != 2)
      bBadCondition = 1;
    else if ((strcasecmp(azTok[1], f->pRunner->zEngine) == 0) == (azTok[0][0] == 's'))
      bSkip = 1;
  }

  if (f->bSkipRest) {
    if (iHead == pRec->nLine || !isControl(azTok[0]))
      reportSkip(f, pRec);
  } else if (bBadCondition) {
    reportFailure(f, pRec, "bad record: expected \"skipif NAME\" or \"onlyif NAME\"", 0, 0);
  } else if (iHead == pRec->nLine) {
    reportFailure(f, pRec, "bad record: skipif/onlyif without a record", 0, 0);
  } else if (bSkip) {
    if (!isControl(azTok[0]))
      reportSkip(f, pRec);
  } else if (strcmp(azTok[0], "statement") == 0) {
    runStatement(f, pRec, iHead, azTok, nTok);
  } else if (strcmp(azTok[0], "query") == 0) {
    runQuery(f, pRec, iHead, azTok, nTok);
  } else if (isControl(azTok[0]) && iHead + 1 < pRec->nLine) {
    reportFailure(f, pRec, "bad record: extra lines after a control record", 0, 0);
  } else if (strcmp(azTok[0], "hash-threshold") == 0) {
    char *zEnd = 0;
    long n = nTok == 2 ? strtol(azTok[1], &zEnd, 10) : -1;
    if (n < 0 || n > 1000000000 || zEnd == azTok[1] || *zEnd != 0)
      reportFailure(f, pRec, "bad record: expected \"hash-threshold N\"", 0, 0);
    else
      f->nHashThreshold = (int)n;
  } else if (strcmp(azTok[0], "halt") == 0) {
    printf("%s:%d: halt\n", f->zFile, pRec->aLine[0].iLine);
    f->bSkipRest = 1;
  } else if (strcmp(azTok[0], "require") == 0) {
    char *zPath = restOfLine(pRec->aLine[iHead].z, 2);
    struct stat st;
    if (nTok < 3 || strcmp(azTok[1], "file") != 0) {
      reportFailure(f, pRec, "bad record: expected \"require file PATH\"", 0, 0);
    } else if (stat(zPath, &st) != 0) {
      printf("%s:%d: skipped: %s not found\n", f->zFile, pRec->aLine[0].iLine, zPath);
      f->bSkipRest = f->bRequireSkip = 1;
    }
    free(zPath);
  } else {
    char *zKind = xprintf("unknown record type: '%s'", azTok[0]);
    reportFailure(f, pRec, zKind, 0, "  (the rest of the file is skipped)\n");
    free(zKind);
    f->bSkipRest = 1;
  }
  free(zCopy);
}

/* Open a connection for one file: helpers and extensions.  Returns 0, or 2
** after printing an error (the run must stop). */
static int openDatabase(Runner *p, const char *zFile, sqlite3 **pDb) {
  int rc = sqlite3_open_v2(":memory:", pDb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_db_config(*pDb, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int *)0);
  if (rc == SQLITE_OK)
    rc = registerHelpers(*pDb);
  if (rc != SQLITE_OK) {
    fprintf(stderr, "slt: %s: cannot set up a connection: %s\n", zFile,
            *pDb ? sqlite3_errmsg(*pDb) : sqlite3_errstr(rc));
    return 2;
  }
  for (int i = 0; i < p->nExt; i++) {
    char *zErr = 0;
    if (sqlite3_load_extension(*pDb, p->azExt[i], 0, &zErr) != SQLITE_OK) {
      fprintf(stderr, "slt: cannot load extension %s: %s\n", p->azExt[i],
              zErr ? zErr : sqlite3_errmsg(*pDb));
      sqlite3_free(zErr);
      return 2;
    }
  }
  return 0;
}

/* Close the connection and check that nothing was left behind. */
static void closeDatabase(FileRun *f, sqlite3_int64 nMemBefore) {
  sqlite3_int64 nLeak;
  if (sqlite3_close(f->db) != SQLITE_OK) {
    sqlite3_stmt *pStmt;
    char *zDetail = xprintf("  %s\n", sqlite3_errmsg(f->db));
    printFailure(f, 0, "unfinalized statements when closing the connection", 0, zDetail);
    free(zDetail);
    while ((pStmt = sqlite3_next_stmt(f->db, 0)) != 0)
      sqlite3_finalize(pStmt);
    sqlite3_close(f->db);
  }
  f->db = 0;
  /* With memory statistics on (Debian's default), closing the last connection
  ** brings this back to 0, loaded extensions included (checked on 3.40.1), so
  ** any growth is a leak made through sqlite3_malloc() and friends. */
  nLeak = sqlite3_memory_used() - nMemBefore;
  if (nLeak != 0) {
    char *zKind = xprintf("leaked %lld bytes", (long long)nLeak);
    printFailure(f, 0, zKind, 0, "  (sqlite3_memory_used() after sqlite3_close())\n");
    free(zKind);
  }
}

/* Run one test file.  Returns 0, or 2 if the run must stop. */
static int runFile(Runner *p, const char *zFile) {
  FileRun f = {0};
  Record *aRec = 0;
  int nRec = 0;
  sqlite3_int64 nMemBefore = sqlite3_memory_used();

  f.pRunner = p;
  f.zFile = zFile;
  free(p->zFileDir);
  p->zFileDir = xprintf("%s/%d", p->zTestDir, p->nFileDir++);
  if (mkdir(p->zFileDir, 0700) != 0) {
    fprintf(stderr, "slt: cannot create a directory %s: %s\n", p->zFileDir, strerror(errno));
    p->bHardError = 1;
    return 0;
  }
  if (readScript(p, zFile, &aRec, &nRec) != 0) {
    fprintf(stderr, "slt: cannot read %s: %s\n", zFile, strerror(errno));
    freeScript(aRec, nRec);
    p->bHardError = 1;
    return 0;
  }
  if (openDatabase(p, zFile, &f.db) != 0) {
    sqlite3_close(f.db);
    freeScript(aRec, nRec);
    return 2;
  }
  p->nFile++;
  for (int i = 0; i < nRec; i++)
    runRecord(&f, &aRec[i]);
  if (f.nRun == 0 && !f.bRequireSkip)
    printFailure(&f, 0, "no records were run", 0, 0);
  closeDatabase(&f, nMemBefore);
  while (f.pLabel) {
    Label *pNext = f.pLabel->pNext;
    free(f.pLabel->zName);
    free(f.pLabel->zHash);
    free(f.pLabel);
    f.pLabel = pNext;
  }
  printf("%s: %d errors out of %d records. %d skipped.\n", zFile, f.nErr, f.nRun, f.nSkip);
  p->nRecord += f.nRun;
  freeScript(aRec, nRec);
  return 0;
}

int main(int argc, char **argv) {
  Runner r = {0};
  const char *zTmp = getenv("TMPDIR");
  const char **azFile = xrealloc(0, (size_t)argc * sizeof(char *));
  int nFile = 0, rc = 0;

  setvbuf(stdout, 0, _IOLBF, 0);
  r.zEngine = "sqlite";
  r.azExt = xrealloc(0, (size_t)argc * sizeof(char *));
  for (int i = 1; i < argc && rc == 0; i++) {
    const char *z = argv[i];
    if ((strcmp(z, "-e") == 0 || strcmp(z, "--extension") == 0) && i + 1 < argc)
      r.azExt[r.nExt++] = argv[++i];
    else if (strcmp(z, "--engine") == 0 && i + 1 < argc)
      r.zEngine = argv[++i];
    else if (strcmp(z, "-v") == 0)
      r.bVerbose = 1;
    else if (z[0] == '-')
      rc = 2;
    else
      azFile[nFile++] = z;
  }
  if (rc != 0 || nFile == 0) {
    fprintf(stderr, "usage: slt [-e PATH]... [--engine NAME] [-v] FILE.test...\n");
    rc = 2;
    goto done;
  }

  r.zTestDir = xprintf("%s/slt-XXXXXX", zTmp && zTmp[0] ? zTmp : "/tmp");
  if (mkdtemp(r.zTestDir) == 0) {
    fprintf(stderr, "slt: cannot create a directory %s: %s\n", r.zTestDir, strerror(errno));
    free(r.zTestDir);
    r.zTestDir = 0;
    rc = 2;
    goto done;
  }
  for (int i = 0; i < nFile && rc == 0; i++)
    rc = runFile(&r, azFile[i]);
  if (rc == 0) {
    if (r.nPass == 0)
      printf("no record passed\n");
    printf("%d files, %d records run.\n", r.nFile, r.nRecord);
    printf("TOTAL: %d passed, %d failed, %d skipped\n", r.nPass, r.nFail, r.nSkip);
    if (r.bHardError)
      rc = 2;
    else if (r.nFail > 0 || r.nPass == 0)
      rc = 1;
  }

done:
  removeTestDir(&r);
  free(r.azExt);
  free(azFile);
  return rc;
}
