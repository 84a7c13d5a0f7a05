# The two commands that matter: `make start` and `make test`. Both install what is missing first.
# pnpm comes from the npm registry through npx (corepack's signature check fails against some registries).
PNPM ?= npx -y pnpm@9.15.9

.PHONY: install build start test bench typecheck clean

node_modules/.modules.yaml: package.json pnpm-lock.yaml pnpm-workspace.yaml $(wildcard packages/*/package.json services/*/package.json bench/package.json)
	$(PNPM) install --frozen-lockfile
	@touch $@

install: node_modules/.modules.yaml

# The web app is rebuilt only when its sources changed: Vite's build is the slowest step of `make start`.
WEB_SOURCES := $(shell find services/web/src services/web/public packages/api-schemas/src -type f 2>/dev/null) services/web/index.html services/web/vite.config.ts services/web/package.json services/web/tsconfig.json

services/web/dist/index.html: node_modules/.modules.yaml $(WEB_SOURCES)
	$(PNPM) --filter @tlm/web build
	@touch $@

build: install services/web/dist/index.html
	$(PNPM) run build

## Runs every service in one process on PORT (default 8080) with data under DATA_DIR (default ./data). glibc's malloc
## gets two arenas instead of one per thread up to eight per core: with DuckDB's threads and libuv's pool each keeping
## freed memory in an arena of its own, resident memory grew without bound under steady ingest (docs/performance.md).
start: build
	MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2} exec node services/standalone/dist/main.js

## chDB, ClickHouse's engine as a library, for the live ClickHouse suites: pinned by deploy/clickhouse's lock and kept
## out of the workspace, so `make start` never downloads its 180 MB. Where it cannot be installed (no chDB build for
## the platform, no registry) the suites skip, saying why, unless CLICKHOUSE_URL names a server.
deploy/clickhouse/node_modules/.package-lock.json: deploy/clickhouse/package.json deploy/clickhouse/package-lock.json
	npm install --prefix deploy/clickhouse --no-save --no-audit --no-fund --ignore-scripts || echo "chDB was not installed: the live ClickHouse suites will be skipped"
	-@touch $@ 2>/dev/null

## Type-checks sources and tests, then runs every jest suite. The live Kafka suites run against one single-node broker
## started for the run (deploy/kafka, needs Java 17 and Maven) unless KAFKA_BROKERS names one; it stops afterwards.
## The live ClickHouse suites run on chDB unless CLICKHOUSE_URL names a server. Test data goes to a TMPDIR in memory
## (/dev/shm) where there is room for it (scripts/test-tmpdir.js).
test: build deploy/clickhouse/node_modules/.package-lock.json
	$(PNPM) run typecheck
	TMPDIR="$$(node scripts/test-tmpdir.js)" node deploy/kafka/broker.js run -- $(PNPM) run test

## Throughput and latency figures, each next to its baseline measured in the same run.
bench: build
	node bench/dist/main.js

clean:
	$(PNPM) run clean
