#!/usr/bin/env bash
# Makes (once) the virtualenv with the pinned versions of deploy/check/requirements.txt from
# PyPI, at $1 or target/deploy-venv (under CARGO_TARGET_DIR if set), and prints its python:
# tests/python/venv.sh does it, with this folder's requirements.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
exec "$repo/tests/python/venv.sh" "${1:-${CARGO_TARGET_DIR:-$repo/target}/deploy-venv}" "$here/requirements.txt"
