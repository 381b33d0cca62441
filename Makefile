# Thin wrapper over CMake for the README's quick start: `make demo` and `make test`.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS       ?= $(shell nproc)
QUESTION   ?= What is 12 * 7 + 3?

.PHONY: all setup setup-test build build-asan demo test test-release test-asan bench fuzz install deb clean

all: build

setup:
	@./scripts/setup.sh

# What only the tests need beyond the build: Debian's chromium, for the viewer's test in a real browser.
setup-test:
	@./scripts/setup.sh test

# Both builds compile in batches of files (a unity build: the shared headers, nlohmann/json above all, are parsed,
# instantiated and optimised once per batch of eight, not once per file): the engine alone builds in 3 min 46 s on
# 2 cores instead of 8 min 43 s (docs/performance.md, "Building"). `make fuzz` compiles each file alone, with clang,
# so a file that misses an include its batch happened to provide still fails there.
$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON

$(ASAN_BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DENGINE_SANITIZE=ON -DCMAKE_UNITY_BUILD=ON

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

build-asan: setup $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The engine alone: the tests (half of a first build) are `make test`'s.
demo: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target engine
	$(BUILD)/engine run workflows/calculator.yaml --input "$(QUESTION)"

# Every test twice: the release build, then the ASan+UBSan build.
test: test-release test-asan

test-release: build setup-test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan setup-test
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	cmake --build $(BUILD) -j $(JOBS) --target engine_bench http_bench loop_bench input_memory_bench workflow_bench mcp_bench trace_bench
	./bench/run.sh $(BUILD)

# Every fuzz target for FUZZ_SECONDS each (two at a time), built with clang and libFuzzer (tests/fuzz/README.md).
fuzz:
	@./scripts/setup.sh fuzz
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENGINE_FUZZ=ON -DENGINE_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all
	./tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The engine alone, as `make demo`: installing needs no test built.
install: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target engine
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

# A Debian package of what `make install` installs, under /usr: apt install ./$(BUILD)/engine_*.deb
deb: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target engine
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
