#!/usr/bin/env bash
# Installs (cached) and starts the real PostgreSQL 15 and Kafka (KRaft) the distributed run and the tests use.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/postgres.sh" start
bash "$here/kafka.sh" start
echo "DATABASE_URL=$(bash "$here/postgres.sh" url)"
echo "KAFKA_BROKERS=$(bash "$here/kafka.sh" brokers)"
