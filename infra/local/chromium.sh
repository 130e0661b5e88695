#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (*.browser.test.ts, driven by playwright-core with
# executablePath), once: a no-op when it is already there. Run as root (apt-get). `path` prints where it is.
set -euo pipefail

find_chromium() {
  for candidate in chromium chromium-browser; do
    if command -v "$candidate" > /dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

case "${1:-install}" in
  path)
    find_chromium || { echo "chromium is not installed (bash infra/local/chromium.sh)" >&2; exit 1; }
    ;;
  install)
    if find_chromium > /dev/null; then
      echo "chromium.sh: $(find_chromium) present"
      exit 0
    fi
    if [ "$(id -u)" != "0" ]; then
      echo "chromium.sh: chromium is missing and installing it needs root (apt-get)" >&2
      exit 1
    fi
    echo "chromium.sh: installing Debian's chromium (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core > /dev/null
    echo "chromium.sh: $(find_chromium) installed"
    ;;
  *)
    echo "usage: chromium.sh [install|path]" >&2
    exit 2
    ;;
esac
