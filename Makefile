# Tasklife: every developer and CI entry point. `make run` and `make test` do all set-up themselves.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUF := tools/node_modules/.bin/buf

.PHONY: help install install-kafka run test lint generate docs clean clean-data bench console

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ./clients/python -e '.[dev]'
	touch $@

$(BUF): tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed ## create .venv and install the server, the Python client and dev tools

KAFKA_LIBS := .kafka/libs
$(KAFKA_LIBS)/.resolved: tools/kafka/pom.xml
	rm -rf $(KAFKA_LIBS)
	mvn -q -B -f tools/kafka/pom.xml dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=$(CURDIR)/$(KAFKA_LIBS)
	touch $@

install-kafka: $(KAFKA_LIBS)/.resolved ## resolve a Kafka broker's jars with Maven into .kafka/ (for the sink tests)

run: install ## start the server on 127.0.0.1:50051 (embedded PostgreSQL unless DATABASE_URL is set)
	$(PY) -m tasklife_server

generate: install ## regenerate every client from proto/ (Python, then each clients/*/generate.sh)
	$(PY) tools/generate.py
	@for script in clients/*/generate.sh; do echo "$$script"; bash "$$script" || exit 1; done

console: ## rebuild the web console (console/ -> server/tasklife_server/http/console/, committed)
	bash tools/ensure-node-modules.sh console
	cd console && npx tsc --noEmit && node build.mjs

docs: install ## regenerate the state diagrams in README.md and docs/ from the transition table
	$(PY) -m tasklife_server.domain.diagram --write README.md docs/state-machine.md

lint: install $(BUF) ## buf lint, and buf breaking against main when main has proto/
	$(BUF) lint
	@if git rev-parse --verify --quiet main:proto >/dev/null; then \
		echo "$(BUF) breaking --against '.git#branch=main'"; \
		$(BUF) breaking --against '.git#branch=main'; \
	else echo "buf breaking: main has no proto/ yet, nothing to compare against"; fi

# Patroni for the failover tests (tests/faults/patroni.py), in a venv of Debian's python3: it
# runs as the postgres user, who cannot execute .venv's interpreter. Skipped without it.
$(VENV)/patroni/bin/patroni:
	if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null; then \
		/usr/bin/python3 -m venv $(VENV)/patroni && \
		$(VENV)/patroni/bin/pip install --quiet 'patroni[etcd3,psycopg3]>=4,<5'; \
	else echo "no /usr/bin/python3 with venv: the Patroni failover tests will skip (fail under CI=true)"; fi

test: install install-kafka $(VENV)/patroni/bin/patroni ## run every test against a real PostgreSQL, a real gRPC server, a real Kafka broker and a Patroni cluster
	$(PY) -m pytest

bench: install ## measure transitions, lifecycles and the stream against their ceilings (ARGS=--quick: about 3 minutes)
	$(PY) -m bench $(ARGS)

clean: ## remove the venv and the node tools (the local database in .tasklife/ stays: see clean-data)
	rm -rf $(VENV) tools/node_modules console/node_modules

clean-data: ## delete the local database of `make run` (.tasklife/): every task and its history
	@if [ -d .tasklife ]; then echo "deleting .tasklife/: the embedded PostgreSQL of make run, with every task and event in it"; \
		rm -rf .tasklife; else echo ".tasklife/ does not exist: nothing to delete"; fi
