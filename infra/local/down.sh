#!/usr/bin/env bash
# Stops what up.sh started; data stays under .infra/ for the next start.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/schema-registry.sh" stop
bash "$here/kafka.sh" stop
bash "$here/postgres.sh" stop
