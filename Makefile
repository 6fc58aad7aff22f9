# Portico: the two newcomer commands are `make run` and `make test` (see README.md).
SWIFT ?= swift
VENV  ?= .venv
PORT  ?= 8080
# Longest the Swift tests may run before they count as hung (GNU timeout's duration syntax).
SWIFT_TEST_TIMEOUT ?= 30m

.PHONY: run install test build release release-all bootstrap test-swift test-browser test-interop test-cluster test-fuzz test-asan fuzz bench lint format docs clean cluster
# How long `make fuzz` runs each fuzz target, and how long `make test` does (fuzz/README.md).
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 5

## run: install what is missing, build a release, and start the server on the SQLite default
run: bootstrap release
	.build/release/portico serve --port $(PORT) --demo --allow-loopback-callbacks

## install: copy the release binary to $(PREFIX)/bin/portico, so `portico` is on the PATH (make install PREFIX=~/.local)
PREFIX ?= /usr/local
install: release
	install -D -m 0755 .build/release/portico $(PREFIX)/bin/portico
	@echo "install: $(PREFIX)/bin/portico"

## cluster: 3 nodes behind nginx on a throwaway PostgreSQL primary with a synchronous standby, on loopback; prints the URL, the demo sign-in and the scripts/failover line
cluster: bootstrap build
	scripts/cluster

## test: everything CI checks (bootstrap, build, a release build of the whole package, Swift tests, fuzz smoke, interop, browser and cluster tests)
test: bootstrap build release-all test-swift test-fuzz test-interop test-browser test-cluster

bootstrap:
	scripts/bootstrap

build:
	$(SWIFT) build --build-tests

release:
	$(SWIFT) build -c release --product portico

# Every product and library in release mode, as a packager's first command builds it (the fuzz
# targets of internal parsers leave themselves out of it).
release-all:
	$(SWIFT) build -c release

# Serial: several suites run the real `portico` binary and wait for it synchronously, which
# holds one of the two cooperative threads of a 2-core machine; run side by side, they starved
# the HTTP suites' own requests. One at a time the whole suite takes about two minutes; a
# watchdog ends a hung run after SWIFT_TEST_TIMEOUT so CI reports the hang (the last test started
# is the culprit) instead of running out its own clock. `swift test` runs the test binary in a
# process group of its own and does not pass the signal on to a hung one, so that is killed too.
#
# The PostgreSQL backend's tests need a server: scripts/with-postgres starts a throwaway one
# (a temporary cluster on a free loopback port, stopped and removed afterwards, also when the
# tests fail or are interrupted) and names it in PORTICO_TEST_POSTGRES_URL. Without that variable
# (`swift test` run by hand) those suites are skipped and say so.
test-swift:
	scripts/with-postgres timeout --kill-after=30s $(SWIFT_TEST_TIMEOUT) $(SWIFT) test --skip-build --no-parallel || \
		{ rc=$$?; [ $$rc -eq 124 ] && { pkill -KILL -f '$(CURDIR)/.build/.*/[P]orticoPackageTests[.]xctest'; \
		printf '\ntest-swift: the Swift tests did not finish within $(SWIFT_TEST_TIMEOUT); the last test started above hung\n' >&2; }; \
		exit $$rc; }

# Real chromium through the demo app: sign-in, consent, callback; prints where the screenshots are.
test-browser:
	scripts/browser-tests

# Authlib, a standard OAuth/OIDC client, against portico serve with clients made by the CLI.
test-interop:
	scripts/interop-tests

# tests/cluster: 3 nodes on PostgreSQL behind nginx (deploy/), flows before and after a node is
# killed, a node killed during refresh rotations, the database away; everything stopped after.
test-cluster:
	scripts/cluster-tests

## test-asan: the Swift tests, browser tests and a 200-cycle shutdown loop on an AddressSanitizer
## build (.build-asan); not part of `make test`: a cold build and the run take the best part of an hour
test-asan:
	scripts/asan-tests

## fuzz: build the libFuzzer targets (.build-fuzz) and run each for FUZZ_SECONDS; prints executions and coverage
fuzz:
	fuzz/run $(FUZZ_SECONDS)

# Each target a few seconds, so that a regression crash fails CI (about two minutes with the build).
test-fuzz:
	fuzz/run $(FUZZ_TEST_SECONDS)

## bench: benchmarks that print figures (never run by tests)
bench: bootstrap
	bench/run

## lint: swift format in strict mode over every Swift file, and PorticoKit's Apple-only code
## type-checked against apple/stubs (scripts/apple-typecheck says what that cannot check)
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests bench Examples fuzz apple \
		.ci/PorticoKitAppleTests/Package.swift .ci/PorticoKitAppleTests/Tests/PorticoKitAppleTests/KeychainTokenStoreTests.swift
	scripts/apple-typecheck

format:
	$(SWIFT) format format -i --recursive Package.swift Sources Tests bench Examples fuzz apple

## docs: the PorticoKit DocC archive in docs-build/ (the toolchain's docc on the symbol graph)
docs:
	mkdir -p .build/symbol-graphs
	$(SWIFT) build --target PorticoKit -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir \
		-Xswiftc .build/symbol-graphs
	rm -rf .build/symbol-graphs-kit && mkdir -p docs-build .build/symbol-graphs-kit
	cp .build/symbol-graphs/PorticoKit*.symbols.json .build/symbol-graphs-kit/
	docc convert Sources/PorticoKit/PorticoKit.docc --additional-symbol-graph-dir .build/symbol-graphs-kit \
		--fallback-display-name PorticoKit --fallback-bundle-identifier org.portico.PorticoKit \
		--output-path docs-build/PorticoKit.doccarchive
	@echo "docs: docs-build/PorticoKit.doccarchive"

clean:
	rm -rf .build $(VENV)
