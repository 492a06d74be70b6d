#!/usr/bin/env bash
# Probes a running suite with third-party tooling: the generated-client pytest, then schemathesis.
#
#   CATAN_BASE_URL=http://127.0.0.1:18090 CATAN_ADMIN_KEY=... tests/python/run.sh
#
# `cargo test --workspace` runs it against a suite of its own (tests/e2e/tests/third_party.rs).
#
# CATAN_PY_VENV      virtualenv to use/create, with requirements.txt from PyPI
#                    (default: target/python-venv, under CARGO_TARGET_DIR if set)
# CATAN_REPORT_DIR   where schemathesis writes its reports (default /tmp/catan-schemathesis-report)
# CATAN_SPEC         OpenAPI document (default: the committed openapi/openapi.json)
# CATAN_ST_SEED      schemathesis seed (default 42); CATAN_ST_WORKERS (default 1: one worker keeps a seeded run repeatable);
# CATAN_ST_MAX_EXAMPLES  test cases per operation and phase (default 40)
# Only the virtualenv is written inside the repository, under target/ (never committed).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
: "${CATAN_BASE_URL:?set CATAN_BASE_URL, e.g. http://127.0.0.1:18090}"
: "${CATAN_ADMIN_KEY:?set CATAN_ADMIN_KEY}"
venv="${CATAN_PY_VENV:-${CARGO_TARGET_DIR:-$repo/target}/python-venv}"
reports="${CATAN_REPORT_DIR:-/tmp/catan-schemathesis-report}"
spec="${CATAN_SPEC:-$repo/openapi/openapi.json}"
export CATAN_BASE_URL CATAN_ADMIN_KEY CATAN_SPEC="$spec" PYTHONDONTWRITEBYTECODE=1

"$here/venv.sh" "$venv" >/dev/null || exit 1

status=0

echo "== pytest (generated client) =="
(cd "$here" && "$venv/bin/python" -m pytest -p no:cacheprovider -q -rA "$here") || status=1

echo "== schemathesis =="
token="$("$venv/bin/python" - <<'PY'
import json, os, urllib.request
req = urllib.request.Request(
    os.environ["CATAN_BASE_URL"].rstrip("/") + "/v1/auth/token",
    data=json.dumps({"api_key": os.environ["CATAN_ADMIN_KEY"]}).encode(),
    headers={"content-type": "application/json"},
)
print(json.load(urllib.request.urlopen(req, timeout=30))["access_token"])
PY
)" || { echo "could not get an admin token" >&2; exit 1; }
mkdir -p "$reports"
(cd "$reports" && "$venv/bin/schemathesis" --config-file "$here/schemathesis.toml" run "$spec" \
    --url "$CATAN_BASE_URL" \
    -H "Authorization: Bearer $token" \
    --phases examples,coverage,fuzzing,stateful \
    --seed "${CATAN_ST_SEED:-42}" \
    --max-examples "${CATAN_ST_MAX_EXAMPLES:-40}" \
    --workers "${CATAN_ST_WORKERS:-1}" \
    --generation-database none \
    --report junit,json \
    --report-dir "$reports" \
    --no-color) || status=1
echo "schemathesis reports: $reports"

exit $status
