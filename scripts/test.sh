#!/usr/bin/env bash
# The whole test suite: starts the real PostgreSQL and Kafka through infra/local, builds, runs every test
# file with Node's test runner, stops the servers. The runner's summary is the last thing printed.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p .infra
echo "starting PostgreSQL and Kafka (log: .infra/up.log)"
if ! bash infra/local/up.sh > .infra/up.log 2>&1; then
  cat .infra/up.log
  exit 1
fi
trap 'bash infra/local/down.sh > .infra/down.log 2>&1' EXIT

export VOP_TEST_DATABASE_URL="$(bash infra/local/postgres.sh url)"
export VOP_TEST_KAFKA_BROKERS="$(bash infra/local/kafka.sh brokers)"

pnpm exec tsc -b

mapfile -t files < <(find packages services test bench -path '*/node_modules' -prune -o -path '*/dist/*' -name '*.test.js' -print | sort)
node --test --test-reporter=spec --test-concurrency=1 "${files[@]}"
