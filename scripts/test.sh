#!/usr/bin/env bash
# The test suite. `pnpm test`: everything; starts the real PostgreSQL and Kafka through infra/local, builds,
# runs every test file with Node's test runner, stops the servers. `pnpm test:unit` (--unit): the tests that
# need no server (not *.postgres.test.*, *.kafka.test.*, *.browser.test.*, *.fuzz.test.* or
# test/src/distributed/). The full run also installs Debian's chromium for the browser tests
# (infra/local/chromium.sh), the API fuzzer (infra/local/schemathesis.sh), Debian's prometheus for promtool
# and the scrape test (infra/local/prometheus.sh), all cached, and starts the schema registry
# (infra/local/schema-registry.sh; down.sh stops it). The runner's
# summary is the last thing printed.
set -euo pipefail
cd "$(dirname "$0")/.."

unit=false
[ "${1:-}" = "--unit" ] && unit=true

if ! $unit; then
  mkdir -p .infra
  echo "starting PostgreSQL and Kafka (log: .infra/up.log)"
  if ! bash infra/local/up.sh > .infra/up.log 2>&1; then
    cat .infra/up.log
    exit 1
  fi
  trap 'bash infra/local/down.sh > .infra/down.log 2>&1' EXIT
  echo "installing the API fuzzer (log: .infra/schemathesis.log)"
  if ! bash infra/local/schemathesis.sh install > .infra/schemathesis.log 2>&1; then
    cat .infra/schemathesis.log
    exit 1
  fi
  echo "installing chromium for the browser tests when missing (log: .infra/chromium.log)"
  if ! bash infra/local/chromium.sh > .infra/chromium.log 2>&1; then
    cat .infra/chromium.log
    exit 1
  fi
  echo "installing Debian's prometheus and promtool when missing (log: .infra/prometheus.log)"
  if ! bash infra/local/prometheus.sh install > .infra/prometheus.log 2>&1; then
    cat .infra/prometheus.log
    exit 1
  fi
  echo "starting the schema registry (log: .infra/schema-registry.log)"
  if ! bash infra/local/schema-registry.sh start > .infra/schema-registry.log 2>&1; then
    cat .infra/schema-registry.log
    exit 1
  fi
  export VOP_TEST_DATABASE_URL="$(bash infra/local/postgres.sh url)"
  export VOP_TEST_KAFKA_BROKERS="$(bash infra/local/kafka.sh brokers)"
  export VOP_TEST_SCHEMA_REGISTRY_URL="$(bash infra/local/schema-registry.sh url)"
fi

pnpm exec tsc -b

mapfile -t files < <(find packages services test bench -path '*/node_modules' -prune -o -path '*/dist/*' -name '*.test.js' -print | sort)
if $unit; then
  mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -vE '\.(postgres|kafka|browser|fuzz)\.test\.js$|^test/dist/distributed/')
fi
# The unit tests share no server, so two files run at once (one per core); the whole suite runs one at a time.
concurrency=1
$unit && concurrency=2
node --test --test-reporter=spec --test-concurrency=$concurrency "${files[@]}"
