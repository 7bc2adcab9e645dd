# Ensemble: the two commands of README.md and the rest of the developer
# loop. Everything goes through CMake; this file only sequences it.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_RUNS  ?= 1000000
FUZZ_SECONDS ?= 600

.PHONY: all build bootstrap test test-normal test-asan demo bench fuzz clean

all: build

bootstrap:
	@./scripts/bootstrap

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The demo's session is served to browsers too: it prints the page's
# address, and lasts long enough to open it (make demo DEMO_SECONDS=5).
DEMO_HTTP ?= 127.0.0.1:0
DEMO_SECONDS ?= 30
demo: bootstrap build
	./$(BUILD)/ensemble demo --http $(DEMO_HTTP) --seconds $(DEMO_SECONDS)

test: bootstrap test-normal test-asan

test-normal: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(BUILD_ASAN)/CMakeCache.txt:
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DENS_SANITIZE=ON

test-asan: $(BUILD_ASAN)/CMakeCache.txt
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

bench: bootstrap build
	./bench/run

$(BUILD_FUZZ)/CMakeCache.txt:
	CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENS_FUZZ=ON -DENS_SANITIZE=ON -DENS_TESTS=OFF

fuzz: bootstrap $(BUILD_FUZZ)/CMakeCache.txt
	cmake --build $(BUILD_FUZZ) -j $(JOBS)
	./tests/fuzz/run $(BUILD_FUZZ) $(FUZZ_RUNS) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
