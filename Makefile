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
EXT_SRC := $(sort $(wildcard ext/*.c))
EXT_HDR := $(wildcard ext/*.h)
MODULE  := $(BUILD)/weights.so

# Debian packages the build and the tests need.
DEPS_PKGS := gcc libc6-dev make pkg-config libsqlite3-dev sqlite3 libcjson-dev

.PHONY: all deps demo test test-run testdata clean format

all: $(MODULE)

$(BUILD):
	mkdir -p $(BUILD)

$(MODULE): $(EXT_SRC) $(EXT_HDR) Makefile | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -fPIC -shared -DWEIGHTS_VERSION='"$(VERSION)"' \
	  $(CJSON_CFLAGS) -o $@ $(EXT_SRC) $(CJSON_LIBS) -Wl,-z,defs

$(BUILD)/slt: tests/slt.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $< -lsqlite3

$(BUILD)/gen_safetensors: tests/gen_safetensors.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $<

$(BUILD)/gen_gguf: tests/gen_gguf.c | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(STD) -o $@ $<

# Generated test files: rewritten whenever a generator changes.
testdata: $(BUILD)/testdata/.stamp

$(BUILD)/testdata/.stamp: $(BUILD)/gen_safetensors $(BUILD)/gen_gguf
	rm -rf $(BUILD)/testdata
	mkdir -p $(BUILD)/testdata/safetensors $(BUILD)/testdata/gguf
	$(BUILD)/gen_safetensors $(BUILD)/testdata/safetensors
	$(BUILD)/gen_gguf $(BUILD)/testdata/gguf
	touch $@

deps:
	@sh tests/deps.sh $(DEPS_PKGS)

test: deps
	@$(MAKE) --no-print-directory test-run

test-run: $(MODULE) $(BUILD)/slt testdata
	sh tests/run_runner_selftest.sh $(BUILD)/slt
	$(BUILD)/slt -e $(MODULE) tests/*.test

clean:
	rm -rf $(BUILD)

format:
	clang-format -i ext/*.c ext/*.h tests/*.c
