.DEFAULT_GOAL := help
# Python runs from the virtual environment VENV (.venv), which `make venv` (and so `make dev`,
# `make play` and `make test`) creates from SYSTEM_PYTHON when it is missing: Debian's and Ubuntu's
# own python3 refuse `pip install` outside one. Recipes see its bin/ first on PATH, as if it were
# activated. PYTHON=... runs another interpreter instead and creates nothing, e.g.
# `make test PYTHON=python3`.
SYSTEM_PYTHON ?= python3
VENV ?= .venv
VENV_PYTHON := $(abspath $(VENV))/bin/python
PYTHON ?= $(VENV_PYTHON)
ifeq ($(PYTHON),$(VENV_PYTHON))
PYTHON_READY := $(VENV_PYTHON)
export PATH := $(abspath $(VENV))/bin:$(PATH)
endif
SHELL := /bin/bash
# The notebooks' tablebase sections use these tables when no FERROCHESS_SYZYGY_PATH is set.
SHARED_SYZYGY := $(abspath $(wildcard ../shared/data/syzygy))

FUZZ_TARGETS := fen moves book uci
FUZZ_SECONDS ?= 30

.PHONY: help dev test-deps lint test test-fast test-rust test-python test-notebooks fuzz reliability bench \
	bench-tutorial book vendor wheel wheel-tools wheel-check wheel-smoke sdist-smoke

# Debian packages some tests use: gnuchess-book (a Polyglot book to check the reader against),
# polyglot (its make-book is the reference of the book builder), stockfish (the defender in the
# tablebase endgame games), chromium (the browser of the play-page and notebook-widget tests),
# scid-data (the ECO lines the opening names are checked against), nodejs (runs the widget's
# module loader) and postgresql (a throwaway server for the games archive's tests).
TEST_DEB_PACKAGES := gnuchess-book polyglot stockfish chromium scid-data nodejs postgresql

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

.PHONY: venv play
venv: $(PYTHON_READY) ## create .venv from SYSTEM_PYTHON (python3) if missing; every target uses it
	@$(PYTHON) -c 'import sys; print("venv: Python", sys.version.split()[0], "at", sys.executable)'

$(VENV_PYTHON):
	@echo "venv: $(SYSTEM_PYTHON) -m venv $(VENV)"
	@$(SYSTEM_PYTHON) -m venv $(VENV) || { rm -rf $(VENV); echo "venv: '$(SYSTEM_PYTHON) -m venv'" \
		"failed; on Debian or Ubuntu install the venv module: sudo apt-get install python3-venv" >&2; \
		exit 1; }

# Extra arguments of `ferrochess play`, e.g. PLAY_ARGS="--port 8000" (no --open: no browser).
PLAY_ARGS ?= --open

play: $(PYTHON_READY) ## install the package into .venv and serve the play page (PLAY_ARGS: --open)
	$(PYTHON) -m pip install -e .
	$(PYTHON) -m ferrochess play $(PLAY_ARGS)

dev: $(PYTHON_READY) ## install the package in editable mode with the test tools (into .venv)
	$(PYTHON) -m pip install -e ".[test]" -e ./tools

test-deps: ## the Debian packages some tests use (installed with apt-get when root)
	@missing=$$(for package in $(TEST_DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'ok installed' \
			|| echo $$package; done); \
	if [ -z "$$missing" ]; then echo "test-deps: installed: $(TEST_DEB_PACKAGES)"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "test-deps: apt-get install" $$missing; \
		apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q $$missing >/dev/null; \
	else \
		echo "test-deps: not installed:" $$missing "(tests that need them are skipped;" \
			"run 'make test-deps' as root, or 'sudo apt-get install'" $$missing")"; \
	fi

lint: ## rustfmt, clippy -D warnings, ruff, mypy
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo clippy --features python -- -D warnings
	$(PYTHON) -m ruff check python tests benches tools src/book/openings .ci
	$(PYTHON) -m mypy

test: test-deps dev test-rust test-python test-notebooks ## install what tests need, run every test

test-rust: ## cargo tests, engine and tools (debug assertions on: the search's invariants), then the UCI binary test_uci drives
	cargo test --workspace
	cargo build --release --bin ferrochess-uci

test-python: ## pytest (needs `make dev` first)
	MPLBACKEND=Agg $(PYTHON) -m pytest -q

test-fast: ## under 3 min: Rust unit tests, pytest without browser/notebook/games/slow (after `make dev`)
	cargo test --lib
	MPLBACKEND=Agg $(PYTHON) -m pytest -q -m "not browser and not notebook and not games and not slow"

test-notebooks: ## run every notebook top to bottom (needs `make dev` first)
	MPLBACKEND=Agg FERROCHESS_SYZYGY_PATH="$${FERROCHESS_SYZYGY_PATH:-$(SHARED_SYZYGY)}" \
		$(PYTHON) -m pytest -q --nbval-lax notebooks

fuzz: ## run every fuzz target FUZZ_SECONDS (30) s each; needs `cargo install cargo-fuzz`
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p tests/fuzz/corpus/$$target; \
		echo "fuzz $$target for $(FUZZ_SECONDS) s"; \
		cargo fuzz run --fuzz-dir tests/fuzz -s none $$target tests/fuzz/corpus/$$target \
			tests/fuzz/seeds/$$target -- -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-rss_limit_mb=4096 2>&1 | grep -E '^(stat::number_of_executed_units|Done)|ERROR|panicked' \
			; test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

reliability: ## the full stress and resource runs of RELIABILITY.md (about 5 minutes)
	$(PYTHON) -m ferrochess_tools.reliability stress --seconds 60 --threads 8
	$(PYTHON) -m ferrochess_tools.reliability resources --calls 10000

# Every speed benchmark writes its results into BENCH_RESULTS (the Python ones with --json PATH, the
# cargo benches' output kept as text), then ferrochess_tools.bench_summary rewrites BENCHMARKS.md's
# summary from them. A failing benchmark does not stop the others (the leading '-'): the summary
# marks its row and then fails the target. One whose peer or data is absent says why in its row.
BENCH_RESULTS ?= target/bench

bench: ## every speed benchmark (2 to 4 min), then BENCHMARKS.md's summary; after `make dev`
	mkdir -p $(BENCH_RESULTS) && rm -f $(BENCH_RESULTS)/*.json $(BENCH_RESULTS)/*.txt
	date +%s > $(BENCH_RESULTS)/started
	-set -o pipefail; cargo bench --bench search_bench | tee $(BENCH_RESULTS)/search_bench.txt
	-set -o pipefail; cargo bench --bench perft_vs_shakmaty | tee $(BENCH_RESULTS)/perft_vs_shakmaty.txt
	-$(PYTHON) benches/compare_python.py --peer optimized --json $(BENCH_RESULTS)/compare_python.json
	-$(PYTHON) benches/compare_stockfish.py --json $(BENCH_RESULTS)/compare_stockfish.json
	-$(PYTHON) benches/perft_speed.py --json $(BENCH_RESULTS)/perft_speed.json
	-$(PYTHON) benches/time_overrun.py --json $(BENCH_RESULTS)/time_overrun.json
	-$(PYTHON) benches/book_speed.py --json $(BENCH_RESULTS)/book_speed.json
	-$(PYTHON) benches/load_play.py --json $(BENCH_RESULTS)/load_play.json
	-$(PYTHON) benches/analyse_speed.py --json $(BENCH_RESULTS)/analyse_speed.json
	-$(PYTHON) benches/smp_speed.py --json $(BENCH_RESULTS)/smp_speed.json
	-$(PYTHON) benches/match_speed.py --json $(BENCH_RESULTS)/match_speed.json
	$(PYTHON) -m ferrochess_tools.bench_summary --results $(BENCH_RESULTS)

bench-tutorial: ## ferrochess vs the tutorial-style pure-Python engine (about 7 minutes)
	$(PYTHON) benches/compare_python.py --peer both --tutorial-budget 60

# Self-play training positions for the network (tools/src/datagen/): resumable, so run it again to go on
# (Ctrl-C loses only the games in progress). More options in DATAGEN_ARGS, e.g. "--threads 2 --seed 3".
DATAGEN_DIR ?= target/datagen
DATAGEN_POSITIONS ?= 2000000
DATAGEN_ARGS ?=

.PHONY: datagen
datagen: ## self-play training data into DATAGEN_DIR (target/datagen) up to DATAGEN_POSITIONS (2,000,000)
	cargo run --release -p ferrochess-tools --bin datagen -- --output $(DATAGEN_DIR) \
		--positions $(DATAGEN_POSITIONS) $(DATAGEN_ARGS)

# Trains a network (tools/src/train/) on TRAIN_DATA: the shared self-play positions and what
# `make datagen` wrote. docs/nnue.md records the data and settings of the compiled-in network.
TRAIN_DATA ?= $(wildcard ../shared/data/selfplay/*.txt.gz) $(wildcard $(DATAGEN_DIR)/*.txt)
TRAIN_OUTPUT ?= target/nnue/trained.nnue
TRAIN_ARGS ?= --king-layout mirrored --hidden 128 --epochs 16 --batch 4096 --lr 0.003 \
	--weight-decay 0.05 --wdl 0.0 --validation 20

.PHONY: train
train: ## train a network on TRAIN_DATA into TRAIN_OUTPUT (target/nnue/trained.nnue)
	@mkdir -p $(dir $(TRAIN_OUTPUT))
	cargo run --release -p ferrochess-tools --bin train -- $(TRAIN_DATA) --output $(TRAIN_OUTPUT) $(TRAIN_ARGS)

# SPSA tuning of the search's tunables in games (tools/ferrochess_tools/spsa.py, docs/tuning.md):
# builds the tune binary (target/tune, apart from target/release), then runs or resumes the tune
# in target/spsa/state.json. SPSA_ARGS, e.g. "--iterations 2000 --tc 8+0.08"; a game per core.
SPSA_ARGS ?= --concurrency $(shell nproc 2>/dev/null || echo 1)

.PHONY: spsa
spsa: ## SPSA-tune the search's parameters in games (SPSA_ARGS; resumable; docs/tuning.md)
	cargo build --release --features tune --bin ferrochess-uci --target-dir target/tune
	$(PYTHON) -m ferrochess_tools.spsa run $(SPSA_ARGS)

# Full strength against one opponent, the way BENCHMARKS measures it (issue 53): 10 s + 0.1 s, one
# thread each, OwnBook off, 200 games on the ECO openings and 200 on benches/data/openings-2300.epd
# (100 openings each, both colours), two games at a time (about 2 h each half on two cores; run
# nothing else). STRENGTH_OPPONENT is the opponent's -engine keys (`apt-get install ethereal-chess
# fairy-stockfish stockfish`), e.g. "cmd=/usr/games/stockfish name=SF-2850
# option.UCI_LimitStrength=true option.UCI_Elo=2850 option.Threads=1". Results and PGN in
# target/strength/. The game count is fixed here, before the first game, so a score is never
# chosen by stopping when it looks good.
STRENGTH_OPPONENT ?= cmd=/usr/games/ethereal-chess name=Ethereal-12 option.Threads=1
STRENGTH_ARGS ?= -each tc=10+0.1 timemargin=100 option.Hash=16 -rounds 100 -concurrency 2
STRENGTH_SEED ?= 1

.PHONY: strength
strength: ## full strength vs STRENGTH_OPPONENT (Ethereal 12): 200 games on each of two opening sets
	cargo build --release --bin ferrochess-uci
	@mkdir -p target/strength
	$(PYTHON) -m ferrochess match -engine cmd=target/release/ferrochess-uci name=ferrochess \
		option.OwnBook=false option.Threads=1 -engine $(STRENGTH_OPPONENT) $(STRENGTH_ARGS) \
		-srand $(STRENGTH_SEED) -pgnout file=target/strength/eco.pgn -progress > target/strength/eco.txt
	@cat target/strength/eco.txt
	$(PYTHON) -m ferrochess match -engine cmd=target/release/ferrochess-uci name=ferrochess \
		option.OwnBook=false option.Threads=1 -engine $(STRENGTH_OPPONENT) $(STRENGTH_ARGS) \
		-openings file=benches/data/openings-2300.epd format=epd order=sequential \
		-srand $(STRENGTH_SEED) -pgnout file=target/strength/2300.pgn -progress > target/strength/2300.txt
	@cat target/strength/2300.txt

# The levels' Elo (ferrochess_tools.calibrate): games of each level against Stockfish 15.1 UCI_Elo anchors
# and its neighbours at 10+0.1, fitted together; then UCI_Elo CALIBRATE_CHECK is measured with the
# rebuilt binary. 1 h 40 min of games measured here (BENCHMARKS.md, "Level calibration"), two at a
# time; run it again after an interruption to resume. CALIBRATE_ARGS goes to both steps: 100 games a
# level by default (the committed table's; with the script's 60 the intervals, about +-85, are
# wider than some steps), e.g. "--games 100 --tc 5+0.05 --results target/calibration-5s";
# `python -m ferrochess_tools.calibrate --dry-run` shows the schedule.
CALIBRATE_ARGS ?= --games 100
CALIBRATE_CHECK ?= 1500,2000

.PHONY: calibrate
calibrate: ## measure the levels in games; writes src/level/table.rs, docs/levels.md and BENCHMARKS tables, docs/levels.png
	cargo build --release --bin ferrochess-uci
	MPLBACKEND=Agg $(PYTHON) -m ferrochess_tools.calibrate $(CALIBRATE_ARGS)
	cargo build --release --bin ferrochess-uci
	MPLBACKEND=Agg $(PYTHON) -m ferrochess_tools.calibrate --check-elo $(CALIBRATE_CHECK) $(CALIBRATE_ARGS)
	cargo build --release --bin ferrochess-uci
	@echo "calibrate: now 'make dev' (the Python module reads the new table) and commit the table"

book: ## rebuild the compiled-in default book from src/book/openings/eco_lines.pgn (then `make dev`)
	$(PYTHON) -m ferrochess book build src/book/openings/eco_lines.pgn -o src/book/default.bin \
		--max-ply 12 --min-games 1

# chessground, lichess's board, vendored for the play page and the notebook widget (GPL-3.0-or-later).
CHESSGROUND_VERSION ?= 10.4.1
CHESSGROUND_DIR := python/ferrochess/web/static/vendor/chessground

vendor: ## refresh the vendored chessground (CHESSGROUND_VERSION) from npm
	@set -euo pipefail; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	(cd "$$tmp" && npm pack --json --loglevel=error \
		@lichess-org/chessground@$(CHESSGROUND_VERSION) > pack.json); \
	tar -xzf "$$tmp"/lichess-org-chessground-*.tgz -C "$$tmp"; \
	integrity=$$($(PYTHON) -c 'import json, sys; print(json.load(open(sys.argv[1]))[0]["integrity"])' \
		"$$tmp/pack.json"); \
	mkdir -p $(CHESSGROUND_DIR); \
	cp "$$tmp/package/dist/chessground.min.js" "$$tmp/package/LICENSE" $(CHESSGROUND_DIR)/; \
	cp "$$tmp"/package/assets/chessground.{base,brown,cburnett}.css $(CHESSGROUND_DIR)/; \
	printf 'package: @lichess-org/chessground\nversion: %s\nintegrity: %s\nlicense: GPL-3.0-or-later\nfiles: dist/chessground.min.js, assets/chessground.base.css, assets/chessground.brown.css, assets/chessground.cburnett.css, LICENSE\n' \
		"$(CHESSGROUND_VERSION)" "$$integrity" > $(CHESSGROUND_DIR)/VERSION; \
	echo "chessground $(CHESSGROUND_VERSION) ($$integrity) -> $(CHESSGROUND_DIR)"

# Release builds: the sdist and one abi3 wheel per platform (cp39-abi3: every CPython from 3.9 on),
# here manylinux2014 through maturin's zig linker (glibc 2.17 symbols, no manylinux container).
# Their tools live in their own virtual environment, pinned in .ci/wheel-tools.txt.
DIST ?= dist
WHEEL_TOOLS ?= target/wheel-tools
WHEEL_BUILD_ARGS ?= --release --zig --compatibility manylinux2014

wheel-tools: $(WHEEL_TOOLS)/.installed

$(WHEEL_TOOLS)/.installed: .ci/wheel-tools.txt
	$(SYSTEM_PYTHON) -m venv $(WHEEL_TOOLS)
	$(WHEEL_TOOLS)/bin/python -m pip install -q -r .ci/wheel-tools.txt
	touch $@

wheel: wheel-tools ## build the release wheel (abi3, manylinux2014) and the sdist into dist/
	rm -f $(DIST)/ferrochess-*.whl $(DIST)/ferrochess-*.tar.gz
	$(WHEEL_TOOLS)/bin/maturin sdist --out $(DIST)
	PATH="$(abspath $(WHEEL_TOOLS))/bin:$$PATH" maturin build $(WHEEL_BUILD_ARGS) --out $(DIST)
	@ls -l $(DIST)/ferrochess-*

wheel-check: wheel-tools ## check dist/: auditwheel show, abi3audit, twine check, file list, size
	$(WHEEL_TOOLS)/bin/python .ci/check_wheel.py $(DIST)

wheel-smoke: ## install dist/'s wheel in a new venv without Rust on PATH and smoke-test it
	PYTHON=$(SYSTEM_PYTHON) .ci/wheel-smoke wheel $(DIST)

sdist-smoke: ## build and install dist/'s sdist in a new venv (needs Rust) and smoke-test it
	PYTHON=$(SYSTEM_PYTHON) .ci/wheel-smoke sdist $(DIST)
