# lanes: the README's two commands are `make demo` and `make test`.
PYTHON ?= python3
CARGO ?= cargo
PREFIX ?= $(HOME)/.local
VENV := .venv
VPY := $(VENV)/bin/python
BIN := target/release
TOOLS := lane-scan lane-lock freeze-ledger lane-tally

.PHONY: all build venv test test-rust test-e2e demo install clean

all: build

build:
	$(CARGO) build --release --workspace

# A venv with the pinned pytest and hypothesis (and the plugins the end-to-end tests drive).
venv: $(VENV)/.installed
$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

test: venv build test-rust test-e2e

test-rust:
	LANES_PYTHON=$(CURDIR)/$(VPY) $(CARGO) test --workspace --release

test-e2e: venv build
	LANES_BIN_DIR=$(CURDIR)/$(BIN) $(VPY) -m pytest -p no:cacheprovider -q tests/e2e

demo: venv build
	cd examples/invoice && $(CURDIR)/$(BIN)/lane-scan --verbose > /dev/null

install:
	for t in $(TOOLS); do $(CARGO) install --locked --path crates/$$t --root $(PREFIX) || exit 1; done

clean:
	$(CARGO) clean
	rm -rf $(VENV)
