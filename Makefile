# lanes: the README's two commands are `make demo` and `make test`.
PYTHON ?= python3
CARGO ?= cargo
PREFIX ?= $(HOME)/.local
VENV := .venv
VPY := $(VENV)/bin/python
BIN := target/release
TOOLS := lane-scan lane-lock freeze-ledger lane-tally lane-gate

# Profile-guided optimization: on x86-64 Linux every cargo build below (the release
# binaries, the tests' builds, the wheel's) reads pgo/lanes.profdata, which scripts/pgo-profile
# writes (`make pgo-profile`). A function changed since the profile was written is compiled
# without it, never wrongly. The records are named by symbols that carry the compiler's version
# and the packages' metadata, so pgo/lanes.profdata.key names the rustc and the Cargo.lock the
# profile was written with, and a build with others warns that the profile may no longer apply.
# `make PGO_PROFILE=` builds without a profile. RUSTFLAGS of one's own (environment or command
# line) are kept and the profile's flags added after them, unless they name a profile already
# (-Cprofile-use, -Cprofile-generate). A make started by a recipe (the end-to-end tests run
# `make install`) inherits the flags and adds nothing, so cargo rebuilds nothing.
ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
PGO_PROFILE ?= $(if $(filter x86_64-Linux,$(shell uname -m)-$(shell uname -s)),$(wildcard $(ROOT)/pgo/lanes.profdata))
ifneq ($(PGO_PROFILE),)
ifneq ($(findstring profile-,$(RUSTFLAGS) $(CARGO_ENCODED_RUSTFLAGS)),)
# A profile of one's own, or the flags of the make above: as they are.
else ifneq ($(CARGO_ENCODED_RUSTFLAGS),)
$(warning CARGO_ENCODED_RUSTFLAGS is set, and cargo reads it instead of RUSTFLAGS: building without $(PGO_PROFILE))
else ifneq ($(words $(PGO_PROFILE)),1)
$(warning RUSTFLAGS cannot carry a path with spaces: building without the profile at "$(PGO_PROFILE)")
else
ifneq ($(shell cat "$(PGO_PROFILE).key" 2>/dev/null),$(shell $${RUSTC:-rustc} -V 2>/dev/null; sha256sum <"$(ROOT)/Cargo.lock" 2>/dev/null | cut -d' ' -f1))
$(warning $(PGO_PROFILE) was written with another rustc or Cargo.lock (see its .key) and may no longer apply: `make pgo-profile` writes one for this build)
endif
override RUSTFLAGS := $(strip $(RUSTFLAGS) -Cprofile-use=$(PGO_PROFILE) -Cllvm-args=-no-pgo-warn-mismatch)
export RUSTFLAGS
endif
endif

.PHONY: all build venv test lint fmt test-rust test-e2e demo demo-venv demo-patch docs install wheel pgo-profile rustflags clean

all: build

build:
	$(CARGO) build --release --workspace

# A venv with the pinned pytest and hypothesis (and the plugins the end-to-end tests drive).
# pytest-lanes-gate is built from python/pytest-lanes-gate with the pinned flit_core (no index)
# into target/wheels; the end-to-end tests install it into throwaway venvs of their own, so the
# suites they run without it stay as they are.
PLUGIN := python/pytest-lanes-gate
venv: $(VENV)/.installed
$(VENV)/.installed: requirements-dev.txt $(PLUGIN)/pyproject.toml $(PLUGIN)/pytest_lanes_gate.py
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(VPY) -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
		--no-index -w target/wheels $(PLUGIN)
	touch $@

test: venv build lint test-rust test-e2e

# The house's own rules: formatted, clippy clean (warnings are errors), no production function
# over 100 lines (clippy.toml; test code is exempt), and names a reader can look up
# (scripts/check-names). The rule files are modules of a generated table (lane-build), which
# `cargo fmt` does not reach: rustfmt is given them by name.
RULE_FILES = $(wildcard crates/*/src/rules/*.rs)
lint:
	$(CARGO) fmt --all -- --check
	@echo 'rustfmt --edition 2024 --check crates/*/src/rules/*.rs'
	@rustfmt --edition 2024 --check $(RULE_FILES)
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings
	$(CARGO) clippy --workspace --lib --bins --quiet -- -D warnings -D clippy::too_many_lines
	scripts/check-names

# Formats the workspace, the rule files included.
fmt:
	$(CARGO) fmt --all
	@echo 'rustfmt --edition 2024 crates/*/src/rules/*.rs'
	@rustfmt --edition 2024 $(RULE_FILES)

test-rust:
	LANES_PYTHON=$(CURDIR)/$(VPY) $(CARGO) test --workspace --release

# The wheels are built first (from the release build above: only the five binaries relink) and
# the end-to-end tests install them into a fresh venv (tests/e2e/test_wheels.py).
test-e2e: venv build wheel demo-venv
	LANES_BIN_DIR=$(CURDIR)/$(BIN) LANES_WHEEL_DIR=$(CURDIR)/$(WHEELS) \
		LANES_DEMO_PYTHON=$(CURDIR)/$(DEMO_VENV)/bin/python \
		$(VPY) -m pytest -p no:cacheprovider -q -n auto tests/e2e

# The bundled example, gated with a pinned clock and, first on PATH, a venv of its own built as
# the README's adoption steps say: the example's own manifest (examples/invoice/requirements.txt)
# and pytest-lanes-gate (the gate's tracer, with coverage pinned as the dev venv pins it):
# APPROVE, with no warning about plugins the example never uses.
DEMO_TODAY := 2026-12-01
DEMO_VENV := target/demo-venv
DEMO_ENV := PATH="$(abspath $(DEMO_VENV))/bin:$$PATH" LANES_TODAY=$(DEMO_TODAY)
GATE := "$(abspath $(BIN))/lane-gate"

demo-venv: $(DEMO_VENV)/.installed
$(DEMO_VENV)/.installed: examples/invoice/requirements.txt $(VENV)/.installed
	rm -rf $(DEMO_VENV)
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		-r examples/invoice/requirements.txt -c requirements-dev.txt \
		--find-links target/wheels pytest-lanes-gate
	touch $@

demo: demo-venv build
	cd examples/invoice && $(DEMO_ENV) $(GATE)

# An agent's patch to the example (examples/agent-patch/agent.patch) in a throwaway git repo,
# gated against the base commit: REJECT (the status 1 is the expected outcome, not a failure).
demo-patch: demo-venv build
	@set -e; dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; \
	cp -R examples/invoice/. "$$dir"; rm -rf "$$dir/out" "$$dir/.hypothesis" "$$dir/.pytest_cache"; \
	find "$$dir" -name __pycache__ -prune -exec rm -rf {} +; \
	cd "$$dir"; git init -q; git add -A; \
	git -c commit.gpgsign=false -c user.name=lanes -c user.email=lanes@example.invalid commit -q -m base; \
	git apply "$(CURDIR)/examples/agent-patch/agent.patch"; git add -A; \
	git -c commit.gpgsign=false -c user.name=agent -c user.email=agent@example.invalid commit -q -m "agent: early-payment bonus"; \
	st=0; $(DEMO_ENV) $(GATE) --base HEAD~1 || st=$$?; \
	rm -rf "$(CURDIR)/target/demo-patch"; cp -R out/lanes "$(CURDIR)/target/demo-patch"; \
	if [ $$st -eq 1 ]; then echo "demo-patch: rejected, as it should be"; else echo "demo-patch: expected a rejection (exit 1), got exit $$st" >&2; exit 1; fi

# Rewrites pgo/lanes.profdata from instrumented binaries run on a training workload (needs
# llvm-profdata; see the script).
pgo-profile: venv
	scripts/pgo-profile

# The RUSTFLAGS every cargo build above gets (the bench scripts name the build they measure by
# them; the end-to-end tests give them to the builds they start, which then reuse the crates).
rustflags:
	@printf '%s\n' "$$RUSTFLAGS"

# Shell completions and man pages from each binary's hidden --generate flag.
DOCS ?= target/docs
docs: build
	mkdir -p $(DOCS)/man
	for t in $(TOOLS); do \
		$(BIN)/$$t --generate bash > $(DOCS)/$$t.bash || exit 1; \
		$(BIN)/$$t --generate zsh > $(DOCS)/_$$t || exit 1; \
		$(BIN)/$$t --generate fish > $(DOCS)/$$t.fish || exit 1; \
		$(BIN)/$$t --generate man > $(DOCS)/man/$$t.1 || exit 1; \
	done

# The lanes-gate wheel (the five binaries, built by maturin from crates/lanes-gate in the release
# profile, with the same profile-guided optimization) and, when python/pytest-lanes-gate exists,
# the plugin's pure-Python wheel, into target/wheels. On Linux the binaries are linked by zig
# against glibc 2.17's symbols (scripts/zig-cc), so the wheel is manylinux2014 and installs on
# older CI images; a linker is part of every compiled unit's fingerprint, so that build has a
# target folder of its own (target/manylinux) and `make build`'s is left as it is.
WHEELS ?= target/wheels
PLUGIN := python/pytest-lanes-gate
ifeq ($(shell uname -s),Linux)
WHEEL_BUILD = CARGO_TARGET_DIR=$(CURDIR)/target/manylinux \
	CARGO_TARGET_$(shell uname -m | tr a-z A-Z)_UNKNOWN_LINUX_GNU_LINKER=$(CURDIR)/scripts/zig-cc \
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VPY) -m maturin build --compatibility manylinux2014
else
WHEEL_BUILD = $(VPY) -m maturin build
endif
wheel: venv
	mkdir -p $(WHEELS)
	rm -f $(WHEELS)/lanes_gate-*.whl $(WHEELS)/pytest_lanes_gate-*.whl
	$(WHEEL_BUILD) --release --quiet --out $(WHEELS)
	if [ -d $(PLUGIN) ]; then \
		$(VPY) -m pip wheel --quiet --disable-pip-version-check --no-deps -w $(WHEELS) ./$(PLUGIN) || exit 1; \
	fi
	ls $(WHEELS)

# The five binaries from the release build, their man pages and shell completions, under
# $(DESTDIR)$(PREFIX) (default ~/.local): bin/, share/man/man1/, and the folders bash-completion,
# zsh and fish load completions from.
install: build docs
	for t in $(TOOLS); do \
		install -D -m 0755 $(BIN)/$$t "$(DESTDIR)$(PREFIX)/bin/$$t" || exit 1; \
		install -D -m 0644 $(DOCS)/man/$$t.1 "$(DESTDIR)$(PREFIX)/share/man/man1/$$t.1" || exit 1; \
		install -D -m 0644 $(DOCS)/$$t.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t" || exit 1; \
		install -D -m 0644 $(DOCS)/_$$t "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$t" || exit 1; \
		install -D -m 0644 $(DOCS)/$$t.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$t.fish" || exit 1; \
	done

clean:
	$(CARGO) clean
	rm -rf $(VENV)
