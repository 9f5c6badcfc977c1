#!/bin/sh
# seeds_remote.sh CORPUS TESTDATA DEMO: seed inputs of the remote targets
# fuzz_http, fuzz_hf_tree and fuzz_remote (tests/fuzz/fuzz_*.c give the
# layouts), written into CORPUS/<target>/; fuzz_remote's are the generated
# files of TESTDATA and the demo models of DEMO.
set -eu
h=$1/fuzz_http
t=$1/fuzz_hf_tree
r=$1/fuzz_remote
mkdir -p "$h" "$t" "$r"
z8='\000\000\000\000\000\000\000\000'

# fuzz_http: flags, off, want, size (8 bytes each, little-endian), the
# ETag at open, header lines, an empty line, 2-byte body piece sizes.
# The first request of an open: 2 MiB asked, a 6724-byte file.
printf '\001'"$z8"'\000\000\040\000\000\000\000\000'"$z8"'\nHTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-6723/6724\r\nETag: "abc"\r\n\n\100\032\004\000' > "$h/open-206"
# A later read: 100 bytes at 4096 of the same file, same ETag.
printf '\000\000\020\000\000\000\000\000\000\144\000\000\000\000\000\000\000\104\032\000\000\000\000\000\000"abc"\nHTTP/1.1 302 Found\r\nContent-Range: bytes 0-1/2\r\nHTTP/1.1 206 Partial Content\r\nETag: "abc"\r\ncontent-range: bytes 4096-4195/6724\r\n\n\144\000' > "$h/read-206"
# A server that ignores Range (200), then an error page with a Link.
printf '\006'"$z8"'\144\000\000\000\000\000\000\000'"$z8"'\nHTTP/1.1 200 OK\r\n\n\377\377' > "$h/ignored-200"
printf '\012'"$z8"'\001\000\000\000\000\000\000\000'"$z8"'W/"e"\nHTTP/1.1 404 Not Found\r\nLink: <https://h/api/models/o/r/tree/main?cursor=x>; rel="next"\r\n\n\377\377\377\377' > "$h/error-link"

# fuzz_hf_tree: a format-and-prefix byte, then a page.
printf '\000[{"type":"file","oid":"1","size":1,"path":"model.safetensors"},{"type":"directory","path":"sub"},{"type":"file","path":"sub/a.gguf","lfs":{"size":5}},{"type":"file","path":"model.safetensors.index.json"},{"type":"file","path":"README.md"}]' > "$t/page"
printf '\006[{"type":"file","path":"x/../b.gguf"}]' > "$t/dotdot"
printf '\001[{"type":"file","path":"b.safetensors"},{"type":"file"}]' > "$t/no-path"

# fuzz_remote: a byte (format detected; bit 3: padded past the first
# range, 4 KiB body pieces), then a file.
for f in "$2"/gguf/*.gguf "$2"/safetensors/*.safetensors "$3"/*.gguf "$3"/*.safetensors; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  { printf '\300'; cat "$f"; } > "$r/plain-$b"
done
for f in "$3"/*.gguf "$3"/*.safetensors; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  { printf '\311'; cat "$f"; } > "$r/padded-$b"
done
