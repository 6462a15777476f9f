# Thin wrapper over CMake; see README for the commands.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
SHARED     ?= ../shared
SHLOC      := $(BUILD)/shloc
PREFIX     ?= /usr/local

.PHONY: all build deps test test-asan demo conformance conformance-compiled fuzz bench clean install uninstall

all: build

build:
	@cmake -S . -B $(BUILD) -DSHLOC_WERROR=ON -DSHLOC_CONFORMANCE_DIR=$(abspath $(SHARED))/conformance >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/deps.sh

# Each suite ends with "== DIR: N passed, S skipped, F failed (T s)"; a test whose tool
# or data (../shared/conformance) is missing is counted as skipped and named.
test: deps build
	@scripts/ctest.sh $(BUILD) $(JOBS)
	@$(MAKE) --no-print-directory test-asan

# The whole ctest suite again (unit, golden, CLI, corpus) against a build with
# AddressSanitizer + UndefinedBehaviorSanitizer, so `shloc run`/`test` paths and
# the CLI are covered too (optimised: the vectorised f32 kernels rely on FMA
# contraction to match XLA).
test-asan:
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHLOC_WERROR=ON -DSHLOC_SANITIZE=ON \
	  -DSHLOC_CONFORMANCE_DIR=$(abspath $(SHARED))/conformance >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1 scripts/ctest.sh $(ASAN_BUILD) $(JOBS)

demo: deps build
	@scripts/demo.sh $(SHLOC)

conformance: build
	@scripts/conformance.sh $(SHLOC) $(SHARED)/conformance

# Every static conformance program compiled by `shloc compile` into an
# executable and run (README, "shloc compile"); two at a time, ~15 min; not
# part of `make test`.  Programs the lowering refuses are counted by op.
conformance-compiled: build
	@scripts/conformance_compiled.sh $(SHLOC) $(SHARED)/conformance 2

fuzz:
	@scripts/fuzz.sh

# make install [PREFIX=DIR] [DESTDIR=STAGE]: CMake's install() of the CLI, both
# libraries, the headers, shloc.pc and the CMake package; the list of installed
# files is kept for make uninstall.
install: deps
	@cmake -S . -B $(BUILD) -DSHLOC_WERROR=ON -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	DESTDIR=$(DESTDIR) cmake --install $(BUILD)
	@cp $(BUILD)/install_manifest.txt $(BUILD)/installed-files.txt

uninstall:
	DESTDIR=$(DESTDIR) scripts/uninstall.sh $(BUILD)/installed-files.txt

# The PyTorch peer is the only extra package (scripts/deps.sh bench); `make
# test` does not install it.
bench: build
	@scripts/deps.sh bench
	@bench/run

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
