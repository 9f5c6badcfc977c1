/*
** park_test.c: a parked source (bytes/source.h wt_source_park(): its header
** and description kept, its descriptor closed) reads its tensor's bytes
** only from the file it parsed.
**
**   build/park_test DIR
**
** In DIR it writes a 4-byte safetensors tensor by hand, opens it, parks
** it, and reads it after each change a writer can make: none (the bytes,
** "wxyz"), rewritten in place with other bytes of the same length and a
** later modification time (an error: "file changed while in use"),
** replaced by rename (an error: "another file"), deleted (an error:
** "cannot open").  While parked its header still answers (the tensor is
** found) and it holds no descriptor (the lowest free one is unchanged).
**
** And the settled identity of an open (bytes/fd.h wt_fd_settled_stat()):
** a file whose modification time is this second with no nanoseconds (a
** file system that stamps seconds) opens only once the clock is past
** that time's 2-second grain; one stamped with the coarse clock's now
** opens once the clock has ticked past it; one stamped an hour ahead
** opens without waiting for it.
**
** Prints "park: N passed, M failed"; exit status 1 on a failure.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bytes/fd.h"
#include "bytes/file.h"
#include "bytes/source.h"

static int passed, failed;

/* Count one check. */
static void check(int ok, const char *what, const char *detail) {
  if (ok) {
    passed++;
    return;
  }
  failed++;
  printf("FAILED: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

/* Write the file: an 8-byte length, the JSON header, the 4 bytes. */
static void write_file(const char *path, const char *bytes) {
  static const char hdr[] = "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}";
  unsigned char len[8] = {0};
  FILE *f = fopen(path, "wb");
  len[0] = (unsigned char)(sizeof(hdr) - 1);
  if (f == NULL || fwrite(len, 1, 8, f) != 8 ||
      fwrite(hdr, 1, sizeof(hdr) - 1, f) != sizeof(hdr) - 1 || fwrite(bytes, 1, 4, f) != 4 ||
      fclose(f) != 0) {
    perror(path);
    exit(2);
  }
}

/* The lowest free descriptor (what open would return). */
static int lowest_fd(void) {
  int fd = open("/dev/null", O_RDONLY), r = fd;
  close(fd);
  return r;
}

/* Open path, park it, apply change, read tensor a: 0 with buf set, or -1
** with err set. */
static int park_and_read(const char *path, const char *change, char *buf, wt_error *err) {
  wt_source *s;
  const wt_tensor *t;
  char other[4096];
  int rc, fd_before;
  err->msg[0] = 0;
  write_file(path, "wxyz");
  if (wt_source_open(path, strlen(path), 0, &s, err) != 0)
    return -1;
  fd_before = lowest_fd();
  check(wt_source_park(s) == 1 && wt_source_parked(s), "a local file's source parks", change);
  check(lowest_fd() < fd_before, "a parked source holds no descriptor", change);
  t = wt_source_find_tensor(s, "a", 1);
  check(t != NULL && t->nbytes == 4, "a parked source's header still answers", change);
  if (strcmp(change, "inplace") == 0) {
    struct timespec ts[2] = {{0, UTIME_OMIT}, {0, 0}};
    struct stat st;
    write_file(path, "WXYZ");
    stat(path, &st);
    ts[1].tv_sec = st.st_mtim.tv_sec + 2; /* a later time, whatever the clock's resolution */
    utimensat(AT_FDCWD, path, ts, 0);
  } else if (strcmp(change, "replace") == 0) {
    snprintf(other, sizeof(other), "%s.new", path);
    write_file(other, "WXYZ");
    rename(other, path);
  } else if (strcmp(change, "delete") == 0) {
    unlink(path);
  }
  rc = t != NULL ? wt_tensor_read(s, t, 0, 4, buf, err) : -1;
  check(rc != 0 || !wt_source_parked(s), "a parked source that read is open again", change);
  wt_source_release(s);
  return rc;
}

/* Nanoseconds on clock c now. */
static int64_t now_ns(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (int64_t)t.tv_sec * WT_NS_PER_S + t.tv_nsec;
}

/* Stamp path with mtime (ns), open it with wt_file_open(), and check what
** the coarse clock says after the open returned: past mtime + grain, or,
** when grain is 0, that the open took under a second. */
static void open_stamped(const char *path, int64_t mtime, int64_t grain, const char *what) {
  struct timespec ts[2] = {{0, UTIME_OMIT}, {mtime / WT_NS_PER_S, mtime % WT_NS_PER_S}};
  int64_t start = now_ns(CLOCK_MONOTONIC), after;
  wt_error e;
  wt_file f;
  write_file(path, "wxyz");
  if (utimensat(AT_FDCWD, path, ts, 0) != 0) {
    perror(path);
    exit(2);
  }
  check(wt_file_open(&f, path, strlen(path), &e) == 0, what, e.msg);
  after = now_ns(CLOCK_REALTIME_COARSE);
  if (grain > 0)
    check(after >= mtime + grain, what, "it opened before the grain was over");
  else
    check(now_ns(CLOCK_MONOTONIC) - start < WT_NS_PER_S, what, "it waited");
  check(f.mtime_ns == mtime, what, "the identity is not the time stamped");
  wt_file_close(&f);
}

/* The settled identity's waits, on the file at path. */
static void settle_checks(const char *path) {
  struct timespec tick;
  int64_t now = now_ns(CLOCK_REALTIME_COARSE), t;
  clock_getres(CLOCK_REALTIME_COARSE, &tick);
  open_stamped(path, now - now % WT_NS_PER_S, 2LL * WT_NS_PER_S,
               "a time of this second without nanoseconds: waited out (2 s)");
  t = now_ns(CLOCK_REALTIME_COARSE);
  if (t % WT_NS_PER_S == 0)
    t += 1; /* a time with nanoseconds */
  open_stamped(path, t, 1, "a time of the coarse clock's now: waited past");
  open_stamped(path, now_ns(CLOCK_REALTIME) + 3600LL * WT_NS_PER_S, 0,
               "a time an hour ahead: not waited for");
}

int main(int argc, char **argv) {
  char path[4096], buf[5] = {0};
  wt_error e;
  if (argc != 2) {
    fprintf(stderr, "usage: park_test DIR\n");
    return 2;
  }
  snprintf(path, sizeof(path), "%s/park.safetensors", argv[1]);
  check(park_and_read(path, "none", buf, &e) == 0 && memcmp(buf, "wxyz", 4) == 0,
        "unchanged: the bytes", buf);
  check(park_and_read(path, "inplace", buf, &e) != 0 && strstr(e.msg, "file changed while in use"),
        "rewritten in place: an error", e.msg);
  check(park_and_read(path, "replace", buf, &e) != 0 && strstr(e.msg, "another file"),
        "replaced by rename: an error", e.msg);
  check(park_and_read(path, "delete", buf, &e) != 0 && strstr(e.msg, "cannot open"),
        "deleted: an error", e.msg);
  settle_checks(path);
  unlink(path);
  printf("park: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
