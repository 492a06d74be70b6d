#!/usr/bin/env bash
# Makes (once) the virtualenv with the pinned versions of requirements file $2 (default
# tests/python/requirements.txt) from PyPI, at $1 or target/python-venv (under CARGO_TARGET_DIR
# if set), and prints its python.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${1:-${CATAN_PY_VENV:-${CARGO_TARGET_DIR:-$repo/target}/python-venv}}"
requirements="${2:-$here/requirements.txt}"

# A virtualenv's scripts name its python by absolute path: one moved from elsewhere (a target
# directory copied between checkouts) cannot run them, so it is made again.
if [ -d "$venv" ] && [ "$(cat "$venv/.catan-path" 2>/dev/null)" != "$venv" ]; then
    rm -rf "$venv"
fi
if [ ! -x "$venv/bin/python" ]; then
    if ! command -v python3 >/dev/null; then
        echo "python3 is missing: install Python 3.11 or newer with venv and pip (apt-get install python3 python3-venv python3-pip)" >&2
        exit 1
    fi
    python3 -m venv "$venv" || {
        echo "python3 cannot create a virtualenv at $venv: install venv and pip (apt-get install python3-venv python3-pip)" >&2
        rm -rf "$venv"
        exit 1
    }
    echo "$venv" > "$venv/.catan-path"
fi
# Installs the pinned versions once; later runs skip pip while requirements.txt is unchanged.
stamp="$venv/.catan-requirements"
if ! cmp -s "$requirements" "$stamp"; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" || {
        echo "pip could not install $requirements from PyPI into $venv" >&2
        exit 1
    }
    cp "$requirements" "$stamp"
fi
echo "$venv/bin/python"
