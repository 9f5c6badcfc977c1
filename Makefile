# sqlite-weights: a loadable SQLite extension that reads model-weight files
# (safetensors, GGUF) as SQL tables.
#
#   make          build build/weights.so
#   make demo     install what is missing, build, make a sample model, run example queries
#   make test     install what is missing, build, run every test
#   make deps     install what is missing (apt-get as root), or say what to install

VERSION := 0.1.0

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -Werror
STD     := -std=gnu11
CJSON_CFLAGS = $(shell pkg-config --cflags libcjson 2>/dev/null || echo -I/usr/include/cjson)
CJSON_LIBS   = $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)

BUILD   := build
MODULE  := $(BUILD)/weights.so

# The sources, layer by layer (ext/README.md draws the layers).  Every build
# below takes its files from these lists: the module, the sanitizer build,
# the decode unit tests and the fuzzers.
BASE_SRC    := $(sort $(wildcard ext/base/*.c))
FORMATS_SRC := $(sort $(wildcard ext/formats/*.c))
DECODE_SRC  := $(sort $(wildcard ext/decode/*.c))
IO_SRC      := $(sort $(wildcard ext/io/*.c))
SQL_SRC     := $(sort $(wildcard ext/sql/*.c)) ext/weights.c
PARSER_SRC  := $(BASE_SRC) $(FORMATS_SRC)
EXT_SRC     := $(PARSER_SRC) $(DECODE_SRC) $(IO_SRC) $(SQL_SRC)
EXT_HDR     := $(wildcard ext/*/*.h)

# One object per source, with its header dependencies (-MMD), so that
# `make -j` compiles in parallel and a change rebuilds what it touches.
EXT_OBJ     := $(EXT_SRC:ext/%.c=$(BUILD)/obj/%.o)
EXT_CFLAGS   = $(WARN) $(STD) -fPIC -Iext -DWEIGHTS_VERSION='"$(VERSION)"' $(CJSON_CFLAGS) -MMD -MP
EXT_LIBS     = $(CJSON_LIBS) -lxxhash -lm

# Remote files over http(s):// and hf:// (ext/io/http.c) need libcurl;
# `make REMOTE=0` builds without it (remote paths then give an error).
REMOTE ?= 1
ifeq ($(REMOTE),1)
EXT_CFLAGS  += -DWT_REMOTE
EXT_LIBS    += -lcurl
endif

# Debian packages the build and the tests need.
DEPS_PKGS := gcc libc6-dev make pkg-config libsqlite3-dev sqlite3 libcjson-dev valgrind python3 libxxhash-dev xxhash libcurl4-openssl-dev

.PHONY: all deps demo demo-run test test-run testdata clean format install uninstall

all: $(MODULE)

$(BUILD):
	mkdir -p $(BUILD)

$(BUILD)/obj/%.o: ext/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXT_CFLAGS) -c -o $@ $<

$(MODULE): $(EXT_OBJ)
	$(CC) $(CFLAGS) -shared -o $@ $(EXT_OBJ) $(EXT_LIBS) -Wl,-z,defs

$(BUILD)/slt: tests/slt.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3

# The same module and runner built with AddressSanitizer and UBSan: make test
# runs the whole suite against them too (leaks included, via LeakSanitizer).
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

ASAN_OBJ := $(EXT_SRC:ext/%.c=$(BUILD)/asan/obj/%.o)

$(BUILD)/asan/obj/%.o: ext/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) $(EXT_CFLAGS) -c -o $@ $<

$(BUILD)/asan/weights.so: $(ASAN_OBJ)
	$(CC) $(SAN_FLAGS) -shared -o $@ $(ASAN_OBJ) $(EXT_LIBS)

$(BUILD)/asan/slt: tests/slt.c
	mkdir -p $(BUILD)/asan
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3

$(BUILD)/gen_safetensors: tests/gen_safetensors.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $<

$(BUILD)/gen_gguf: tests/gen_gguf.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $<

$(BUILD)/gen_model: tests/gen_model.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $< -lm

# Unit tests of the decoders, with values worked out by hand.
DECODE_TEST_OBJ := $(PARSER_SRC:ext/%.c=$(BUILD)/obj/%.o) $(DECODE_SRC:ext/%.c=$(BUILD)/obj/%.o)
$(BUILD)/decode_test: tests/decode_test.c $(DECODE_TEST_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -Iext -o $@ tests/decode_test.c $(DECODE_TEST_OBJ) $(EXT_LIBS)

# Unit tests of remote path resolution (ext/io/url.c), worked out by hand.
$(BUILD)/url_test: tests/url_test.c ext/io/url.c ext/io/url.h $(BASE_SRC) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext -o $@ tests/url_test.c ext/io/url.c $(BASE_SRC)

# The parsers given a file's first bytes a piece at a time say what they say
# given all of it (tests/prefix_test.c), under AddressSanitizer + UBSan.
$(BUILD)/prefix_test: tests/prefix_test.c $(PARSER_SRC) $(EXT_HDR) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext $(CJSON_CFLAGS) -o $@ tests/prefix_test.c $(PARSER_SRC) $(EXT_LIBS)

# A scratch dump of what the GGUF parser makes of files (tests/gguf_dump.c).
PARSER_OBJ := $(PARSER_SRC:ext/%.c=$(BUILD)/obj/%.o)
$(BUILD)/gguf_dump: tests/gguf_dump.c $(PARSER_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -Iext -o $@ tests/gguf_dump.c $(PARSER_OBJ) $(EXT_LIBS)

# The sample model of the demo and the cookbook.
$(BUILD)/demo/.stamp: $(BUILD)/gen_model
	mkdir -p $(BUILD)/demo
	$(BUILD)/gen_model $(BUILD)/demo
	touch $@

# Generated test files: rewritten whenever a generator changes.
testdata: $(BUILD)/testdata/.stamp

$(BUILD)/testdata/.stamp: $(BUILD)/gen_safetensors $(BUILD)/gen_gguf tests/gen_trees.sh
	rm -rf $(BUILD)/testdata
	mkdir -p $(BUILD)/testdata/safetensors $(BUILD)/testdata/gguf
	$(BUILD)/gen_safetensors $(BUILD)/testdata/safetensors
	$(BUILD)/gen_gguf $(BUILD)/testdata/gguf
	sh tests/gen_trees.sh $(BUILD)/testdata/trees
	touch $@

deps:
	@sh tests/deps.sh $(DEPS_PKGS)

demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run: $(MODULE) $(BUILD)/demo/.stamp
	sqlite3 -bail -cmd '.load ./$(BUILD)/weights' :memory: < sql/demo.sql

test: deps
	@$(MAKE) --no-print-directory test-run

VALGRIND := valgrind -q --error-exitcode=9 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect

# The last line printed is the runner's "TOTAL: N passed, M failed, K skipped".
test-run: $(MODULE) $(BUILD)/slt $(BUILD)/asan/weights.so $(BUILD)/asan/slt testdata $(BUILD)/demo/.stamp \
          $(BUILD)/decode_test $(BUILD)/prefix_test $(BUILD)/url_test
	sh tests/run_runner_selftest.sh $(BUILD)/slt
	$(BUILD)/decode_test > $(BUILD)/decode_test.log || { cat $(BUILD)/decode_test.log; exit 1; }
	tail -1 $(BUILD)/decode_test.log
	$(BUILD)/prefix_test $(BUILD)/testdata/gguf/*.gguf $(BUILD)/testdata/safetensors/*.safetensors \
	  $(BUILD)/demo/*.gguf $(BUILD)/demo/*.safetensors > $(BUILD)/prefix_test.log || \
	  { cat $(BUILD)/prefix_test.log; exit 1; }
	tail -1 $(BUILD)/prefix_test.log
	$(BUILD)/url_test
	sh tests/run_sql_examples.sh $(MODULE)
	/usr/bin/python3 tests/python_test.py $(MODULE)
	/usr/bin/python3 tests/remote_test.py $(MODULE)
	sh tests/node_test.sh $(MODULE)
	/usr/bin/python3 tests/check_readme.py README.md
	MAKE='$(MAKE)' sh tests/install_test.sh $(MODULE)
	@echo "== every test under AddressSanitizer + UBSan"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 $(BUILD)/asan/slt -e $(BUILD)/asan/weights.so tests/*.test
	@echo "== every test under valgrind"
	$(VALGRIND) $(BUILD)/slt -e $(MODULE) tests/*.test
	@echo "== every test"
	$(BUILD)/slt -e $(MODULE) tests/*.test

# make install puts the module at $(PREFIX)/lib/sqlite-weights/weights.so:
# SQLite searches no folder for extensions, so it gets a folder of its own
# and is loaded by absolute path; the name weights.so gives the entry point.
PREFIX  = /usr/local
LIBDIR  = $(PREFIX)/lib
EXTDIR  = $(LIBDIR)/sqlite-weights

install: $(MODULE)
	install -d '$(DESTDIR)$(EXTDIR)'
	install -m 644 $(MODULE) '$(DESTDIR)$(EXTDIR)/weights.so'

uninstall:
	rm -f '$(DESTDIR)$(EXTDIR)/weights.so'
	if [ -d '$(DESTDIR)$(EXTDIR)' ]; then rmdir --ignore-fail-on-non-empty '$(DESTDIR)$(EXTDIR)'; fi

clean:
	rm -rf $(BUILD)

format:
	clang-format -i $(EXT_SRC) $(EXT_HDR) tests/*.c tests/fuzz/*.c tests/bench/*.c tests/bench/*.h

# Benchmark against the physical floor (not part of `make test`).  Generates
# its inputs once into build/bench-cache (about 570 MB of disk; the 4.9 GB
# GGUF is sparse) and writes tests/bench/RESULTS.md.
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))

$(BUILD)/bench: $(BENCH_SRC) tests/bench/bench.h Makefile | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $(BENCH_SRC) -lsqlite3

.PHONY: bench bench-run
bench: deps
	@$(MAKE) --no-print-directory bench-run

bench-run: $(MODULE) $(BUILD)/bench
	$(BUILD)/bench --ext $(MODULE) --cache $(BUILD)/bench-cache --out tests/bench/RESULTS.md

# Fuzzing (issue: hardening).  FUZZ_SECONDS per target; seeds come from the
# fixtures (when ../shared is there) and the generated test files.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := fuzz_safetensors fuzz_gguf fuzz_gguf_values fuzz_url

# Remote path resolution is in the io layer: its own sources.
$(BUILD)/fuzz/fuzz_url: tests/fuzz/fuzz_url.c ext/io/url.c ext/io/url.h $(BASE_SRC)
	mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -Iext -o $@ $< ext/io/url.c $(BASE_SRC)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(PARSER_SRC) $(EXT_HDR)
	mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -Iext $(CJSON_CFLAGS) -o $@ $< $(PARSER_SRC) $(CJSON_LIBS)

$(BUILD)/fuzz/corpus/.stamp: testdata
	rm -rf $(BUILD)/fuzz/corpus
	mkdir -p $(BUILD)/fuzz/corpus/fuzz_safetensors $(BUILD)/fuzz/corpus/fuzz_gguf \
	  $(BUILD)/fuzz/corpus/fuzz_gguf_values $(BUILD)/fuzz/corpus/fuzz_url
	printf 'hf://org/repo@refs/pr/1/a b.gguf' > $(BUILD)/fuzz/corpus/fuzz_url/hf-pr
	printf 'hf://datasets/org/d@v1/sub/' > $(BUILD)/fuzz/corpus/fuzz_url/hf-folder
	printf 'https://user@[::1]:8443/x.gguf' > $(BUILD)/fuzz/corpus/fuzz_url/ipv6
	printf '\010\000\001\005\000\000\000hello' > $(BUILD)/fuzz/corpus/fuzz_gguf_values/string-v1
	printf '\011\010\000\002\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000a\001\000\000\000\000\000\000\000\377' \
	  > $(BUILD)/fuzz/corpus/fuzz_gguf_values/strings-v3
	printf '\006\000\002\177\300\000\000' > $(BUILD)/fuzz/corpus/fuzz_gguf_values/nan-be
	cp $(BUILD)/testdata/safetensors/*.safetensors $(BUILD)/fuzz/corpus/fuzz_safetensors/
	cp $(BUILD)/testdata/gguf/*.gguf $(BUILD)/fuzz/corpus/fuzz_gguf/
	if [ -d ../shared/fixtures ]; then \
	  cp ../shared/fixtures/safetensors/*.safetensors ../shared/fixtures/safetensors/sharded/*.safetensors \
	     $(BUILD)/fuzz/corpus/fuzz_safetensors/; \
	  cp ../shared/fixtures/gguf/*.gguf $(BUILD)/fuzz/corpus/fuzz_gguf/; fi
	touch $@

.PHONY: fuzz fuzz-deps
fuzz-deps:
	@sh tests/deps.sh clang libclang-rt-14-dev

fuzz: fuzz-deps
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/fuzz/,$(FUZZ_TARGETS)) $(BUILD)/fuzz/corpus/.stamp
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz/work/$$t; \
	  $(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix=$(BUILD)/fuzz/$$t- $(BUILD)/fuzz/work/$$t $(BUILD)/fuzz/corpus/$$t \
	    > $(BUILD)/fuzz/$$t.log 2>&1; rc=$$?; \
	  grep -E '^(stat::number_of_executed_units|SUMMARY)|ERROR' $(BUILD)/fuzz/$$t.log; \
	  if [ $$rc -ne 0 ]; then echo "fuzz: $$t failed, see $(BUILD)/fuzz/$$t.log"; exit 1; fi; \
	done

-include $(EXT_OBJ:.o=.d) $(ASAN_OBJ:.o=.d)
