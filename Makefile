# sqlite-weights: a loadable SQLite extension that reads model-weight files
# (safetensors, GGUF) as SQL tables.
#
#   make          build build/weights.so
#   make demo     install what is missing, build, make a sample model, run example queries
#   make test     install what is missing, build, run every test
#                 (FIXTURES=DIR: where the real files of other tools are,
#                 default ../shared/fixtures; tests that need them are
#                 skipped, and counted, when it is absent)
#   make deps     install what is missing (apt-get as root), or say what to install

VERSION := 0.1.0
# (also in bindings/node/package.json, which tests/node_pkg_test.sh compares;
# setup.py reads it from here)

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
# -Werror in make test and CI; the Python and Node installs build with
# WERROR= so that a newer compiler's new warning cannot break a user's install.
WERROR  ?= -Werror
WARN    := -Wall -Wextra $(WERROR)
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
BYTES_SRC   := $(sort $(wildcard ext/bytes/*.c))
REMOTE_SRC  := $(sort $(wildcard ext/remote/*.c))
PATHS_SRC   := $(sort $(wildcard ext/paths/*.c))
REPORT_SRC  := $(sort $(wildcard ext/report/*.c))
PLAN_SRC    := $(sort $(wildcard ext/plan/*.c))
WRITE_SRC   := $(sort $(wildcard ext/write/*.c))
CONVERT_SRC := $(sort $(wildcard ext/convert/*.c))
SQL_SRC     := $(sort $(wildcard ext/sql/*.c)) ext/weights.c
PARSER_SRC  := $(BASE_SRC) $(FORMATS_SRC)
EXT_SRC     := $(PARSER_SRC) $(DECODE_SRC) $(BYTES_SRC) $(REMOTE_SRC) $(PATHS_SRC) $(PLAN_SRC) $(REPORT_SRC) $(WRITE_SRC) $(CONVERT_SRC) $(SQL_SRC)
EXT_HDR     := $(wildcard ext/*/*.h)

# One object per source, with its header dependencies (-MMD), so that
# `make -j` compiles in parallel and a change rebuilds what it touches.
EXT_OBJ     := $(EXT_SRC:ext/%.c=$(BUILD)/obj/%.o)
EXT_CFLAGS   = $(WARN) $(STD) -fPIC -fvisibility=hidden -Iext -DWEIGHTS_VERSION='"$(VERSION)"' $(CJSON_CFLAGS) -MMD -MP
# libcurl and libcrypto are not linked: the module opens them the first time
# a remote path or a SHA is asked for (ext/bytes/dynlib.h), so that a
# `.load` does not pull in the three dozen libraries they bring; their
# headers are needed to build.
EXT_LIBS     = $(CJSON_LIBS) -lxxhash -lm -ldl

# Remote files over http(s):// and hf:// (ext/remote/http.c) need libcurl;
# `make REMOTE=0` builds without it (remote paths then give an error).
REMOTE ?= 1
ifeq ($(REMOTE),1)
EXT_CFLAGS  += -DWT_REMOTE
endif

# How a connection reads tensor bytes unless it says (weights_mmap(0 or 1)):
# 0, pread (the default: faster for a tensor read once, docs/guarantees.md has
# the numbers), or 1, through a mapping of the file under a SIGBUS guard
# (ext/bytes/mapping.h).
MMAP ?= 0
EXT_CFLAGS  += -DWT_MMAP_DEFAULT=$(MMAP)

# Debian packages the build and the tests need.
# python3-venv, -setuptools, -wheel and -apsw: the Python package's tests
# (tests/python_pkg_test.py: a venv, an sdist, a wheel, apsw), offline.
# python3-sentencepiece and python3-numpy: the independent reader
# tests/vocab_spm_check.py compares the converter's SentencePiece reading
# with, and llama.cpp's own set_vocab() that tests/vocab_oracle.py runs.
DEPS_PKGS := gcc libc6-dev make pkg-config libsqlite3-dev sqlite3 libcjson-dev valgrind python3 libxxhash-dev libssl-dev xxhash \
             python3-venv python3-setuptools python3-wheel python3-apsw libcurl4-openssl-dev \
             python3-sentencepiece python3-numpy

.PHONY: all deps demo demo-run test test-run testdata clean format install uninstall print-sources docs

all: $(MODULE)

$(BUILD):
	mkdir -p $(BUILD)

$(BUILD)/obj/%.o: ext/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXT_CFLAGS) -c -o $@ $<

$(MODULE): $(EXT_OBJ)
	$(CC) $(CFLAGS) -shared -o $@ $(EXT_OBJ) $(EXT_LIBS) -Wl,-z,defs

# The module's sources and headers, one a line (tests/python_pkg_test.py checks
# that the Python sdist carries them all).
print-sources:
	@printf '%s\n' $(EXT_SRC) $(EXT_HDR)

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

# Unit tests of the Hugging Face cache module, against what
# tests/gen_hf_cache.py wrote (build/testdata/hf/manifest.tsv).
HF_TEST_OBJ := $(BASE_SRC:ext/%.c=$(BUILD)/obj/%.o) $(addprefix $(BUILD)/obj/,paths/hf_locate.o paths/hf_scan.o bytes/file_sha256.o bytes/fd.o bytes/crypto_load.o bytes/dynlib.o)
$(BUILD)/hf_cache_test: tests/hf_cache_test.c $(HF_TEST_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -Iext -o $@ tests/hf_cache_test.c $(HF_TEST_OBJ) -ldl

# Unit tests of the report writer (ext/report/), linked without SQLite:
# the layers it uses (base, formats' name map, decode's statistics) and no
# other.
REPORT_TEST_OBJ := $(patsubst ext/%.c,$(BUILD)/obj/%.o,$(REPORT_SRC) $(PARSER_SRC) $(DECODE_SRC))
$(BUILD)/report_test: tests/report_test.c $(REPORT_TEST_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -Iext -o $@ tests/report_test.c $(REPORT_TEST_OBJ) $(EXT_LIBS)

# Unit tests of remote path resolution (ext/remote/url.c), worked out by hand.
$(BUILD)/url_test: tests/url_test.c ext/remote/url.c ext/remote/url.h $(BASE_SRC) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext -o $@ tests/url_test.c ext/remote/url.c $(BASE_SRC)

# Unit tests of the checks of a range response (ext/remote/http_parse.c), by hand.
$(BUILD)/http_parse_test: tests/http_parse_test.c ext/remote/http_parse.c ext/remote/http_parse.h | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext -o $@ tests/http_parse_test.c ext/remote/http_parse.c

# The parsers given a file's first bytes a piece at a time say what they say
# given all of it (tests/prefix_test.c), under AddressSanitizer + UBSan.
$(BUILD)/prefix_test: tests/prefix_test.c $(PARSER_SRC) $(EXT_HDR) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext $(CJSON_CFLAGS) -o $@ tests/prefix_test.c $(PARSER_SRC) $(EXT_LIBS)

# Unit tests of a parked source (bytes/source.h): bytes only from the file parsed.
PARK_TEST_OBJ := $(patsubst ext/%.c,$(BUILD)/obj/%.o,$(PARSER_SRC) $(BYTES_SRC) $(REMOTE_SRC) $(PATHS_SRC))
$(BUILD)/park_test: tests/park_test.c $(PARK_TEST_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -Iext -o $@ tests/park_test.c $(PARK_TEST_OBJ) $(EXT_LIBS)

# Tensor bytes read through a mapping while the file is truncated, and the
# SIGBUS handler's manners toward the process's own (tests/mmap_test.c).
$(BUILD)/mmap_test: tests/mmap_test.c tests/ext_conn.h | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3 -lpthread

# A GGUF header parsed in its mapping while the file is cut short under it
# (tests/header_map_test.c).
$(BUILD)/header_map_test: tests/header_map_test.c tests/ext_conn.h | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3 -lpthread

# A file rewritten in place by one write(2) while statements open and read
# it: never a mix of the two versions (tests/read_while_written_test.c).
$(BUILD)/read_while_written_test: tests/read_while_written_test.c tests/ext_conn.h | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3 -lpthread

# sqlite3_interrupt() made at the writers' read-back, by the test's own
# pread(2) (-rdynamic: the module's calls reach it): the statement fails
# with the target as it was, or succeeds (tests/write_interrupt_test.c).
$(BUILD)/write_interrupt_test: tests/write_interrupt_test.c tests/check.h tests/ext_conn.h | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -rdynamic -o $@ $< -lsqlite3 -ldl

# A scratch dump of what the GGUF parser makes of files (tests/gguf_dump.c).
PARSER_OBJ := $(PARSER_SRC:ext/%.c=$(BUILD)/obj/%.o)

# Unit tests of the header encoders (ext/write/), without SQLite, under
# AddressSanitizer + UBSan: hand-worked bytes, and the generated files
# re-encoded and parsed back (tests/write_test.c).
WRITE_ENC_SRC  := ext/write/gguf_writer.c ext/write/safetensors_writer.c ext/write/write_buf.c ext/write/edit_list.c \
                  ext/write/byte_swap.c
WRITE_TEST_SRC := $(PARSER_SRC) $(WRITE_ENC_SRC)
$(BUILD)/write_test: tests/write_test.c tests/check.h $(WRITE_TEST_SRC) $(EXT_HDR) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext $(CJSON_CFLAGS) -o $@ tests/write_test.c $(WRITE_TEST_SRC) $(EXT_LIBS)

# A model card's front matter read on hand-written cards (tests/model_card_test.c),
# under AddressSanitizer + UBSan.
$(BUILD)/model_card_test: tests/model_card_test.c ext/formats/model_card.c ext/formats/model_card.h $(BASE_SRC) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext -o $@ tests/model_card_test.c ext/formats/model_card.c $(BASE_SRC)

# Unit tests of the converter's pure parts (ext/convert/), without SQLite,
# under AddressSanitizer + UBSan (tests/convert_test.c).
CONVERT_TEST_SRC := $(PARSER_SRC) $(DECODE_SRC) $(WRITE_ENC_SRC) \
  $(addprefix ext/convert/,numbers.c config_values.c kv_list.c general.c hparams.c arch.c plan.c)
$(BUILD)/convert_test: tests/convert_test.c tests/convert_test_numbers.c tests/convert_test.h $(CONVERT_TEST_SRC) $(EXT_HDR) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext $(CJSON_CFLAGS) -o $@ tests/convert_test.c tests/convert_test_numbers.c $(CONVERT_TEST_SRC) $(EXT_LIBS)

# Unit tests of the writers' pipeline (ext/write/write_job.h: a file written
# from memory, a copy by reference and an encoder, read back and compared;
# jobs that fail leave the target as it was), without SQLite, under
# AddressSanitizer + UBSan (tests/write_job_test.c).
WRITE_JOB_TEST_SRC := $(PARSER_SRC) $(BYTES_SRC) $(WRITE_SRC)
$(BUILD)/write_job_test: tests/write_job_test.c tests/check.h $(WRITE_JOB_TEST_SRC) $(EXT_HDR) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext $(CJSON_CFLAGS) -o $@ tests/write_job_test.c $(WRITE_JOB_TEST_SRC) $(EXT_LIBS)

# Unit tests of the converter's vocabulary code (ext/convert/vocab*.c), without
# SQLite, under AddressSanitizer + UBSan: hand-worked cases, then
# tests/vocab_test.sh compares with llama.cpp's converter's own outputs
# (../shared/reference/convert, llama.cpp's ggml-vocab-*.gguf, real
# tokenizer files from npm) and with python3-sentencepiece.
VOCAB_TEST_SRC := $(PARSER_SRC) ext/write/write_buf.c $(sort $(wildcard ext/convert/vocab*.c))
$(BUILD)/vocab_test: tests/vocab_test.c tests/vocab_test_cases.h tests/check.h $(VOCAB_TEST_SRC) $(EXT_HDR) | $(BUILD)
	$(CC) $(SAN_FLAGS) $(WARN) $(STD) -Iext $(CJSON_CFLAGS) -o $@ tests/vocab_test.c $(VOCAB_TEST_SRC) $(EXT_LIBS)

# Unit tests of the Hugging Face <-> GGUF name map.
$(BUILD)/name_map_test: tests/name_map_test.c $(PARSER_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -Iext -o $@ tests/name_map_test.c $(PARSER_OBJ) $(EXT_LIBS)
$(BUILD)/gguf_dump: tests/gguf_dump.c $(PARSER_OBJ) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -Iext -o $@ tests/gguf_dump.c $(PARSER_OBJ) $(EXT_LIBS)

# The sample model of the demo and the cookbook.
$(BUILD)/demo/.stamp: $(BUILD)/gen_model
	mkdir -p $(BUILD)/demo
	$(BUILD)/gen_model $(BUILD)/demo
	touch $@

# Generated test files: rewritten whenever a generator changes.
testdata: $(BUILD)/testdata/.stamp

# The memory planner's models, one per architecture (tests/memory*.test),
# and checkpoint/conversion pairs for the diff report (tests/report.test).
$(BUILD)/arch/.stamp: tests/gen_arch_gguf.py tests/gen_pairs.py
	/usr/bin/python3 tests/gen_arch_gguf.py $(BUILD)/arch
	/usr/bin/python3 tests/gen_pairs.py $(BUILD)/arch/pairs
	touch $@

# Tiny Hugging Face checkpoints, good and broken, for gguf_convert's tests
# (tests/convert_cases.test, tests/convert_errors.test).
$(BUILD)/convert/.stamp: tests/gen_convert.py
	rm -rf $(BUILD)/convert
	/usr/bin/python3 tests/gen_convert.py $(BUILD)/convert
	touch $@

# Models with real shapes and no tensor data (sparse files) for the compute
# buffer at scale (tests/memory_big.test).
$(BUILD)/big/.stamp: tests/gen_big_gguf.py
	/usr/bin/python3 tests/gen_big_gguf.py $(BUILD)/big
	touch $@

$(BUILD)/testdata/.stamp: $(BUILD)/gen_safetensors $(BUILD)/gen_gguf tests/gen_trees.sh tests/gen_hf_cache.py tests/gen_values.py tests/gen_catalog.py
	rm -rf $(BUILD)/testdata
	mkdir -p $(BUILD)/testdata/safetensors $(BUILD)/testdata/gguf
	$(BUILD)/gen_safetensors $(BUILD)/testdata/safetensors
	$(BUILD)/gen_gguf $(BUILD)/testdata/gguf
	/usr/bin/python3 tests/gen_values.py $(BUILD)/testdata/values
	sh tests/gen_trees.sh $(BUILD)/testdata/trees
	/usr/bin/python3 tests/gen_hf_cache.py $(BUILD)/testdata/hf
	/usr/bin/python3 tests/gen_catalog.py $(BUILD)/testdata/catalog
	touch $@

deps:
	@sh tests/deps.sh $(DEPS_PKGS)

demo: deps
	@$(MAKE) --no-print-directory demo-run

# The reports go beside build/demo, not in it: an HTML page in a folder is
# listed as a look-alike model file, and the recipes read the folder.
demo-run: $(MODULE) $(BUILD)/demo/.stamp $(BUILD)/arch/.stamp
	sqlite3 -bail -cmd '.load ./$(BUILD)/weights' :memory: < sql/demo.sql
	mkdir -p $(BUILD)/reports
	sqlite3 -bail -cmd '.load ./$(BUILD)/weights' :memory: \
	  "SELECT weights_report('$(BUILD)/demo/tiny-llama.gguf')" > $(BUILD)/reports/report.html
	sqlite3 -bail -cmd '.load ./$(BUILD)/weights' :memory: \
	  "SELECT weights_report('$(BUILD)/demo/tiny-llama.safetensors', '$(BUILD)/demo/tiny-llama.gguf')" \
	  > $(BUILD)/reports/diff.html
	@echo "demo: open $(BUILD)/reports/report.html and $(BUILD)/reports/diff.html in a browser (weights_report())"

test: deps
	@$(MAKE) --no-print-directory test-run

# The real files of other tools that some tests read (skipped, and counted,
# when the folder is absent).  FIXTURES=/nonexistent make test-run runs the
# suite as a clone without ../shared would; the tests name
# ../shared/fixtures, replaced by $(FIXTURES) in copies when it differs.
FIXTURES ?= ../shared/fixtures
export FIXTURES
# llama.cpp's CUDA buffers measured on a GPU (tests/gpu_records_test.py;
# skipped, and counted, when absent).
GPU_RECORDS ?= ../shared/reference/gpu-memory
ifeq ($(FIXTURES),../shared/fixtures)
SLT_TESTS = $(sort $(wildcard tests/*.test))
else
SLT_TESTS = $(patsubst tests/%,$(BUILD)/slt-tests/%,$(sort $(wildcard tests/*.test)))
endif

$(BUILD)/slt-tests/%.test: tests/%.test Makefile
	@mkdir -p $(dir $@)
	sed 's|\.\./shared/fixtures|$(FIXTURES)|g' $< > $@

VALGRIND_REMOTE := valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
                   --show-leak-kinds=definite
VALGRIND := valgrind -q --error-exitcode=9 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect

# The last line printed is the runner's "TOTAL: N passed, M failed, K skipped";
# the line before the last run says how many checks a missing $(FIXTURES)
# skipped (tests/fixture_skips.sh, from the logs in build/logs).
LOGS := $(BUILD)/logs
test-run: $(MODULE) $(BUILD)/slt $(BUILD)/asan/weights.so $(BUILD)/asan/slt testdata $(BUILD)/demo/.stamp \
          $(BUILD)/decode_test $(BUILD)/hf_cache_test $(BUILD)/report_test $(BUILD)/prefix_test $(BUILD)/name_map_test $(BUILD)/model_card_test $(BUILD)/convert_test $(BUILD)/url_test $(BUILD)/http_parse_test $(BUILD)/park_test $(BUILD)/mmap_test $(BUILD)/header_map_test $(BUILD)/read_while_written_test $(BUILD)/write_test $(BUILD)/write_job_test $(BUILD)/write_interrupt_test $(BUILD)/vocab_test $(BUILD)/arch/.stamp $(BUILD)/big/.stamp $(BUILD)/convert/.stamp $(SLT_TESTS)
	rm -rf $(LOGS)
	sh tests/run_runner_selftest.sh $(BUILD)/slt
	sh tests/exports_test.sh $(MODULE)
	/usr/bin/python3 tests/lazy_libs_test.py $(MODULE)
	/usr/bin/python3 tests/check_layers.py $(BUILD)/obj
	/usr/bin/python3 tests/check_layers.py --self-test $(BUILD)/obj
	$(BUILD)/decode_test > $(BUILD)/decode_test.log || { cat $(BUILD)/decode_test.log; exit 1; }
	tail -1 $(BUILD)/decode_test.log
	$(VALGRIND) $(BUILD)/hf_cache_test $(BUILD)/testdata/hf > $(BUILD)/hf_cache_test.log || \
	  { cat $(BUILD)/hf_cache_test.log; exit 1; }
	tail -1 $(BUILD)/hf_cache_test.log
	$(BUILD)/report_test
	$(BUILD)/name_map_test > $(BUILD)/name_map_test.log || { cat $(BUILD)/name_map_test.log; exit 1; }
	tail -1 $(BUILD)/name_map_test.log
	$(BUILD)/model_card_test
	$(BUILD)/convert_test > $(BUILD)/convert_test.log || { cat $(BUILD)/convert_test.log; exit 1; }
	tail -1 $(BUILD)/convert_test.log
	$(BUILD)/prefix_test $(BUILD)/testdata/gguf/*.gguf $(BUILD)/testdata/safetensors/*.safetensors \
	  $(BUILD)/demo/*.gguf $(BUILD)/demo/*.safetensors > $(BUILD)/prefix_test.log || \
	  { cat $(BUILD)/prefix_test.log; exit 1; }
	tail -1 $(BUILD)/prefix_test.log
	$(BUILD)/url_test
	$(BUILD)/http_parse_test
	sh tests/write_test.sh $(BUILD)/write_test
	rm -rf $(BUILD)/write_job && mkdir -p $(BUILD)/write_job && $(BUILD)/write_job_test $(BUILD)/write_job
	rm -rf $(BUILD)/wint && mkdir -p $(BUILD)/wint && $(BUILD)/write_interrupt_test $(MODULE) $(BUILD)/wint
	sh tests/vocab_test.sh $(BUILD)/vocab_test
	rm -rf $(BUILD)/park && mkdir -p $(BUILD)/park
	$(VALGRIND) $(BUILD)/park_test $(BUILD)/park > $(BUILD)/park_test.log || { cat $(BUILD)/park_test.log; exit 1; }
	tail -1 $(BUILD)/park_test.log
	rm -rf $(BUILD)/mmap && $(BUILD)/mmap_test $(MODULE) $(BUILD)/mmap
	LD_PRELOAD=$$($(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	  $(BUILD)/mmap_test $(BUILD)/asan/weights.so $(BUILD)/mmap > $(BUILD)/mmap_test_asan.log || \
	  { cat $(BUILD)/mmap_test_asan.log; exit 1; }
	tail -1 $(BUILD)/mmap_test_asan.log
	rm -rf $(BUILD)/hmap && mkdir -p $(BUILD)/hmap && $(BUILD)/header_map_test $(MODULE) $(BUILD)/hmap
	LD_PRELOAD=$$($(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  $(BUILD)/header_map_test $(BUILD)/asan/weights.so $(BUILD)/hmap > $(BUILD)/header_map_asan.log || \
	  { cat $(BUILD)/header_map_asan.log; exit 1; }
	tail -1 $(BUILD)/header_map_asan.log
	rm -rf $(BUILD)/hmap
	rm -rf $(BUILD)/rww && $(BUILD)/read_while_written_test $(MODULE) $(BUILD)/rww
	LD_PRELOAD=$$($(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	  $(BUILD)/read_while_written_test $(BUILD)/asan/weights.so $(BUILD)/rww
	rm -rf $(BUILD)/rww
	@echo "== make demo's queries, then every recipe on what it leaves (sql/ must run after make demo)"
	$(MAKE) --no-print-directory demo-run > $(BUILD)/demo-run.log 2>&1 || { cat $(BUILD)/demo-run.log; exit 1; }
	sh tests/logged.sh $(LOGS)/sql.log sh tests/run_sql_examples.sh $(MODULE)
	sh tests/logged.sh $(LOGS)/python.log /usr/bin/python3 tests/python_test.py $(MODULE)
	/usr/bin/python3 tests/hash_test.py $(MODULE)
	/usr/bin/python3 tests/model_config_test.py $(MODULE)
	/usr/bin/python3 tests/catalog_test.py $(MODULE)
	/usr/bin/python3 tests/gpu_records_test.py $(MODULE) $(GPU_RECORDS)
	/usr/bin/python3 tests/remote_test.py $(MODULE)
	/usr/bin/python3 tests/write_fail_test.py $(MODULE)
	/usr/bin/python3 tests/write_endian_test.py $(MODULE)
	@echo "== the remote tests under AddressSanitizer + UBSan, and under valgrind (the Python interpreter's own"
	@echo "   leaks are not ours: only definite leaks count)"
	LD_PRELOAD=$$($(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	  /usr/bin/python3 tests/remote_test.py $(BUILD)/asan/weights.so
	$(VALGRIND_REMOTE) /usr/bin/python3 tests/remote_test.py $(MODULE)
	sh tests/node_test.sh $(MODULE)
	sh tests/interrupt_test.sh $(MODULE)
	/usr/bin/python3 tests/python_pkg_test.py
	sh tests/node_pkg_test.sh
	sh tests/report_test.sh $(MODULE)
	/usr/bin/python3 tests/check_readme.py README.md docs/*.md tests/README.md tests/fuzz/README.md
	MAKE='$(MAKE)' sh tests/install_test.sh $(MODULE)
	sh tests/llama_oracle.sh --check
	sh tests/llama_rss_test.sh $(MODULE)
	sh tests/llama_amx_test.sh $(MODULE)
	sh tests/convert_logits.sh $(MODULE)
	sh tests/write_others_test.sh $(MODULE)
	@echo "== every test under AddressSanitizer + UBSan"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 sh tests/logged.sh $(LOGS)/slt-asan.log \
	  $(BUILD)/asan/slt -e $(BUILD)/asan/weights.so $(SLT_TESTS)
	@echo "== every test under valgrind"
	sh tests/logged.sh $(LOGS)/slt-valgrind.log $(VALGRIND) $(BUILD)/slt -e $(MODULE) $(SLT_TESTS)
	@echo "== the suite on modules with planted faults (tests/mutation_smoke.sh): each must fail"
	MAKE='$(MAKE)' sh tests/mutation_smoke.sh $(BUILD)/slt $(SLT_TESTS)
	@sh tests/fixture_skips.sh $(LOGS)
	@echo "== every test"
	$(BUILD)/slt -e $(MODULE) $(SLT_TESTS)

# The screenshots of README (docs/report.png, docs/diff.png): the demo
# model's report and the diff of its checkpoint against its conversion, in
# headless Chromium (Debian's chromium, installed here when missing).
CHROMIUM_FLAGS := --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars

docs: $(MODULE) $(BUILD)/demo/.stamp
	@sh tests/deps.sh chromium
	mkdir -p $(BUILD)/docs docs
	sqlite3 -bail -cmd '.load ./$(BUILD)/weights' :memory: \
	  "SELECT weights_report('$(BUILD)/demo/tiny-llama.gguf')" > $(BUILD)/docs/report.html
	sqlite3 -bail -cmd '.load ./$(BUILD)/weights' :memory: \
	  "SELECT weights_report('$(BUILD)/demo/tiny-llama.safetensors', '$(BUILD)/demo/tiny-llama.gguf')" \
	  > $(BUILD)/docs/diff.html
	rm -rf $(BUILD)/docs/profile
	chromium $(CHROMIUM_FLAGS) --user-data-dir=$(BUILD)/docs/profile --window-size=1200,1250 \
	  --screenshot=docs/report.png file://$(CURDIR)/$(BUILD)/docs/report.html 2>/dev/null
	chromium $(CHROMIUM_FLAGS) --user-data-dir=$(BUILD)/docs/profile --window-size=1200,900 \
	  --screenshot=docs/diff.png file://$(CURDIR)/$(BUILD)/docs/diff.html 2>/dev/null

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
	rm -rf $(BUILD) python/sqlite_weights.egg-info

format:
	clang-format -i $(EXT_SRC) $(EXT_HDR) tests/*.c tests/fuzz/*.c tests/bench/*.c tests/bench/*.h tests/bench/lister/*.c

# Benchmark against the physical floor (not part of `make test`).  Generates
# its inputs once into build/bench-cache (about 570 MB of disk; the 4.9 GB
# GGUF is sparse) and writes tests/bench/RESULTS.md.
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))

$(BUILD)/bench: $(BENCH_SRC) tests/bench/bench.h Makefile $(BUILD)/bench-gguf-list $(BUILD)/bench-ggml-list | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $(BENCH_SRC) -lsqlite3

# The benchmark's baseline GGUF lister (its whole-process rows), its own program.
$(BUILD)/bench-gguf-list: tests/bench/lister/gguf_list.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $<

# ggml's own GGUF parser as a lister (libggml-base.so opened at run time).
$(BUILD)/bench-ggml-list: tests/bench/lister/ggml_list.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $< -ldl

.PHONY: bench bench-run
bench: deps
	@$(MAKE) --no-print-directory bench-run

bench-run: $(MODULE) $(BUILD)/bench
	$(BUILD)/bench --ext $(MODULE) --cache $(BUILD)/bench-cache --out tests/bench/RESULTS.md

# The extension under load (tests/concurrency_test.c): 8 threads on 8
# connections list, decode and hash the demo files while a ninth replaces
# files underneath (by rename and, TSAN_INPLACE=1 the default, rewritten in
# place), all built with ThreadSanitizer (clang), once with tensor bytes read
# with pread and once through the guarded mapping (WT_MMAP=0, 1); then
# tests/mmap_test.c (files truncated under mapped reads),
# tests/header_map_test.c (a GGUF header cut under its parse in a mapping)
# and tests/read_while_written_test.c (a rewrite in place by one write(2)) in the
# same build.
TSAN_CC    ?= clang
TSAN_FLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
TSAN_OBJ   := $(EXT_SRC:ext/%.c=$(BUILD)/tsan/obj/%.o)
TSAN_ITERATIONS ?= 10
TSAN_INPLACE    ?= 1

$(BUILD)/tsan/obj/%.o: ext/%.c Makefile
	@mkdir -p $(dir $@)
	$(TSAN_CC) $(TSAN_FLAGS) $(EXT_CFLAGS) -c -o $@ $<

$(BUILD)/tsan/weights.so: $(TSAN_OBJ)
	$(TSAN_CC) $(TSAN_FLAGS) -shared -o $@ $(TSAN_OBJ) $(EXT_LIBS)

$(BUILD)/tsan/concurrency_test: tests/concurrency_test.c Makefile
	@mkdir -p $(dir $@)
	$(TSAN_CC) $(TSAN_FLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3 -lpthread

$(BUILD)/tsan/mmap_test: tests/mmap_test.c tests/ext_conn.h Makefile
	@mkdir -p $(dir $@)
	$(TSAN_CC) $(TSAN_FLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3 -lpthread

$(BUILD)/tsan/header_map_test: tests/header_map_test.c tests/ext_conn.h Makefile
	@mkdir -p $(dir $@)
	$(TSAN_CC) $(TSAN_FLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3 -lpthread

$(BUILD)/tsan/read_while_written_test: tests/read_while_written_test.c tests/ext_conn.h Makefile
	@mkdir -p $(dir $@)
	$(TSAN_CC) $(TSAN_FLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3 -lpthread

.PHONY: tsan
tsan: fuzz-deps
	@$(MAKE) --no-print-directory $(BUILD)/tsan/weights.so $(BUILD)/tsan/concurrency_test $(BUILD)/tsan/mmap_test $(BUILD)/tsan/header_map_test $(BUILD)/tsan/read_while_written_test $(BUILD)/demo/.stamp
	rm -rf $(BUILD)/tsan/work $(BUILD)/tsan/mmap
	for mmap in 0 1; do \
	  rm -rf $(BUILD)/tsan/work && \
	  WT_MMAP=$$mmap WT_INPLACE=$(TSAN_INPLACE) TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=tests/tsan.supp \
	    $(BUILD)/tsan/concurrency_test $(BUILD)/tsan/weights.so $(BUILD)/demo $(BUILD)/tsan/work $(TSAN_ITERATIONS) || exit 1; \
	done
	TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=tests/tsan.supp \
	  $(BUILD)/tsan/mmap_test $(BUILD)/tsan/weights.so $(BUILD)/tsan/mmap
	rm -rf $(BUILD)/tsan/hmap && mkdir -p $(BUILD)/tsan/hmap && \
	  TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=tests/tsan.supp \
	  $(BUILD)/tsan/header_map_test $(BUILD)/tsan/weights.so $(BUILD)/tsan/hmap
	rm -rf $(BUILD)/tsan/rww && TSAN_OPTIONS=halt_on_error=1:exitcode=66:suppressions=tests/tsan.supp \
	  $(BUILD)/tsan/read_while_written_test $(BUILD)/tsan/weights.so $(BUILD)/tsan/rww

# Fuzzing.  FUZZ_SECONDS per target; seeds come from the
# fixtures (when ../shared is there) and the generated test files.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := fuzz_safetensors fuzz_gguf fuzz_gguf_values fuzz_decode fuzz_report fuzz_hf_names \
                fuzz_paths_index fuzz_url fuzz_hf_config fuzz_memory fuzz_paths_names
FUZZ_TARGETS += fuzz_http fuzz_hf_tree fuzz_remote fuzz_paths_arg fuzz_write fuzz_model_card fuzz_edit_json \
                fuzz_vocab_spm fuzz_vocab_json
FUZZ_TARGETS += fuzz_convert_config fuzz_settings

# The sources each target links (a thin harness over pure functions).
FUZZ_SRC_fuzz_safetensors := $(PARSER_SRC)
FUZZ_SRC_fuzz_gguf        := $(PARSER_SRC)
FUZZ_SRC_fuzz_gguf_values := $(PARSER_SRC)
FUZZ_SRC_fuzz_decode      := $(PARSER_SRC) $(DECODE_SRC)
FUZZ_SRC_fuzz_report      := $(PARSER_SRC) $(DECODE_SRC) $(REPORT_SRC)
FUZZ_SRC_fuzz_hf_names    := $(BASE_SRC) ext/paths/hf_locate.c ext/paths/hf_scan.c ext/bytes/fd.c
FUZZ_SRC_fuzz_paths_index := $(PARSER_SRC) $(BYTES_SRC) $(REMOTE_SRC) \
                             $(filter ext/paths/paths%.c ext/paths/hf_%.c,$(PATHS_SRC))
FUZZ_SRC_fuzz_url         := $(BASE_SRC) ext/remote/url.c
FUZZ_SRC_fuzz_hf_config   := $(PARSER_SRC)
FUZZ_SRC_fuzz_model_card  := $(BASE_SRC) ext/formats/model_card.c
FUZZ_SRC_fuzz_http        := ext/remote/http_parse.c
FUZZ_SRC_fuzz_hf_tree     := $(PARSER_SRC) $(BYTES_SRC) $(REMOTE_SRC)
# The real remote source (http.c built with WT_REMOTE) over tests/fuzz/fake_curl.c, not libcurl.
FUZZ_SRC_fuzz_remote      := $(PARSER_SRC) $(BYTES_SRC) $(REMOTE_SRC) tests/fuzz/fake_curl.c
FUZZ_FLAGS_fuzz_remote    := -DWT_REMOTE -DWT_CURL_LINKED -DWEIGHTS_VERSION='"fuzz"' -Itests/fuzz \
                             -DWT_HTTP_FIRST='((uint64_t)4 << 10)'
FUZZ_SRC_fuzz_memory      := $(PARSER_SRC) $(PLAN_SRC)
FUZZ_SRC_fuzz_settings    := $(PARSER_SRC) $(PLAN_SRC)
FUZZ_SRC_fuzz_write       := $(WRITE_TEST_SRC)
FUZZ_SRC_fuzz_edit_json   := $(PARSER_SRC) ext/write/edit_json.c ext/write/edit_list.c ext/write/gguf_writer.c \
                             ext/write/write_buf.c
FUZZ_SRC_fuzz_vocab_spm   := $(VOCAB_TEST_SRC)
FUZZ_SRC_fuzz_vocab_json  := $(VOCAB_TEST_SRC)
FUZZ_SRC_fuzz_convert_config := $(CONVERT_TEST_SRC)
# A tokenizer.json the table cannot name is named "fuzz" (vocab_pre.c): the
# fuzzer's few-KB vocabularies never match a real one, and the recipe's rest
# would go unfuzzed.
FUZZ_FLAGS_fuzz_vocab_json := -DCV_VOCAB_FUZZ
FUZZ_SRC_fuzz_paths_names := $(FUZZ_SRC_fuzz_paths_index)
FUZZ_SRC_fuzz_paths_arg   := $(FUZZ_SRC_fuzz_paths_index)
# The decoders' loops compare every value, the report's checks every
# byte written: tracing those comparisons (for the fuzzer's value profile)
# made each run several times slower.  (strcmp, strstr and memcmp are
# still intercepted for the fuzzer.)
FUZZ_FLAGS_fuzz_decode    := -fno-sanitize-coverage=trace-cmp
FUZZ_FLAGS_fuzz_report    := -fno-sanitize-coverage=trace-cmp

.SECONDEXPANSION:
$(BUILD)/fuzz/%: tests/fuzz/%.c $$(FUZZ_SRC_$$*) $(EXT_HDR) tests/fuzz/vocab_check.h
	mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_FLAGS_$*) -Iext $(CJSON_CFLAGS) -o $@ $< $(FUZZ_SRC_$*) $(EXT_LIBS)

$(BUILD)/fuzz/corpus/.stamp: testdata $(BUILD)/demo/.stamp $(BUILD)/arch/.stamp tests/fuzz/seeds.sh tests/fuzz/seeds_remote.sh tests/fuzz/seeds_vocab.sh tests/fuzz/seeds_convert.sh $(BUILD)/convert/.stamp $(wildcard tests/fuzz/regressions/*)
	rm -rf $(BUILD)/fuzz/corpus
	sh tests/fuzz/seeds.sh $(BUILD)/fuzz/corpus $(BUILD)/demo/tiny-llama.gguf $(BUILD)/arch
	sh tests/fuzz/seeds_remote.sh $(BUILD)/fuzz/corpus $(BUILD)/testdata $(BUILD)/demo
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
	mkdir -p $(BUILD)/fuzz/corpus/fuzz_write
	for f in $(BUILD)/testdata/gguf/ok-*.gguf $(BUILD)/testdata/safetensors/*.safetensors $(BUILD)/demo/*.gguf; do \
	  { printf '\003\001\005\011\007\002\000\002\003\003\002\010\005'; cat $$f; } \
	    > $(BUILD)/fuzz/corpus/fuzz_write/$$(basename $$f); done
	mkdir -p $(BUILD)/fuzz/corpus/fuzz_edit_json
	printf '{"general.name": "a\\u0000b", "x.n": {"type": "UINT8", "value": 7}, "x.a": ["c", "\\ud83d\\ude00"], "q": null}' \
	  > $(BUILD)/fuzz/corpus/fuzz_edit_json/edits
	printf '{"x": {"type": "INT64", "value": [-9223372036854775808, 1e3, 2.5]}, "y": true}' \
	  > $(BUILD)/fuzz/corpus/fuzz_edit_json/numbers
	sh tests/fuzz/seeds_vocab.sh $(BUILD)/fuzz/corpus $(FIXTURES)
	sh tests/fuzz/seeds_convert.sh $(BUILD)/fuzz/corpus $(FIXTURES) $(BUILD)
	mkdir -p $(BUILD)/fuzz/corpus/fuzz_hf_config $(BUILD)/fuzz/corpus/fuzz_model_card
	printf -- '---\nlicense: mit\nbase_model: org/name # the base\n---\n# Card\n' \
	  > $(BUILD)/fuzz/corpus/fuzz_model_card/string
	printf -- '---\nbase_model:\n  - "org/a"\n  - '"'"'org/b'"'"'\ntags: [x, y]\n...\n' \
	  > $(BUILD)/fuzz/corpus/fuzz_model_card/list
	printf -- '\357\273\277---\r\nbase_model: [org/a, "o\\"b"]\r\n---\r\n' \
	  > $(BUILD)/fuzz/corpus/fuzz_model_card/flow
	cp $(BUILD)/demo/config.json $(BUILD)/fuzz/corpus/fuzz_hf_config/demo-config.json
	for f in $$(find $(BUILD)/testdata/trees -name '*.json'); do \
	  cp $$f $(BUILD)/fuzz/corpus/fuzz_paths_index/$$(echo $$f | tr / _); done
	if [ -d $(FIXTURES) ]; then \
	  cp $(FIXTURES)/safetensors/sharded/*.index.json $(BUILD)/fuzz/corpus/fuzz_paths_index/; \
	  cp $(FIXTURES)/safetensors/*.safetensors $(FIXTURES)/safetensors/sharded/*.safetensors \
	     $(BUILD)/fuzz/corpus/fuzz_safetensors/; \
	  cp $(FIXTURES)/gguf/*.gguf $(BUILD)/fuzz/corpus/fuzz_gguf/; \
	  for f in $(FIXTURES)/gguf/*.gguf $(FIXTURES)/safetensors/*.safetensors; do \
	    { printf '\003\001\005\011\007\002\000\002\003\003\002\010\005'; cat $$f; } \
	      > $(BUILD)/fuzz/corpus/fuzz_write/$$(basename $$f); done; fi
	touch $@

.PHONY: fuzz fuzz-deps
fuzz-deps:
	@sh tests/deps.sh clang libclang-rt-14-dev

fuzz: fuzz-deps
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/fuzz/,$(FUZZ_TARGETS)) $(BUILD)/fuzz/corpus/.stamp
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz/work/$$t; \
	  $(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=25 -print_final_stats=1 \
	    -artifact_prefix=$(BUILD)/fuzz/$$t- $(BUILD)/fuzz/work/$$t $(BUILD)/fuzz/corpus/$$t \
	    > $(BUILD)/fuzz/$$t.log 2>&1; rc=$$?; \
	  grep -E '^(stat::number_of_executed_units|SUMMARY)|ERROR' $(BUILD)/fuzz/$$t.log; \
	  if [ $$rc -ne 0 ]; then echo "fuzz: $$t failed, see $(BUILD)/fuzz/$$t.log"; exit 1; fi; \
	done

-include $(EXT_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(TSAN_OBJ:.o=.d)
