# Thin wrapper over CMake; see README for the commands.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
SHARED     ?= ../shared
SHLOC      := $(BUILD)/shloc

.PHONY: all build deps test test-asan demo conformance fuzz bench clean

all: build

build:
	@cmake -S . -B $(BUILD) -DSHLOC_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/deps.sh

test: deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan

# Unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSHLOC_WERROR=ON -DSHLOC_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -R '^test_'

demo: deps build
	@scripts/demo.sh $(SHLOC)

conformance: build
	@scripts/conformance.sh $(SHLOC) $(SHARED)/conformance

fuzz:
	@scripts/fuzz.sh

bench: build
	@bench/run

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
