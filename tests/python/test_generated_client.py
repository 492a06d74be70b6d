"""The committed OpenAPI document, seen by a third party.

Generates a Python client from ``openapi/openapi.json`` with openapi-python-client (into a temp
dir, never into the repo) and plays one classic table through the running suite with that client
alone.

Environment:
    CATAN_BASE_URL   the suite's base URL, e.g. http://127.0.0.1:18090 (required)
    CATAN_ADMIN_KEY  an admin API key (required)
    CATAN_SPEC       the OpenAPI document to generate from (default: the committed one)

Two tests:
    test_committed_spec_generates_a_complete_client
        strict: the committed document, unchanged, must generate without errors or warnings.
    test_classic_table_with_generated_client
        the flow, through the generated client as generated: no patching of the spec, no raw
        requests.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import uuid
from http import HTTPStatus
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SPEC = Path(os.environ.get("CATAN_SPEC", REPO / "openapi" / "openapi.json"))
PACKAGE = "catan_generated_client"


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set")
    return value


def _generate(spec: dict, workdir: Path) -> subprocess.CompletedProcess:
    """Run openapi-python-client on `spec`; the package lands in workdir/client/PACKAGE."""
    spec_path = workdir / "openapi.json"
    spec_path.write_text(json.dumps(spec))
    config = workdir / "config.json"
    # No post hooks: the generator would otherwise try to run ruff, which is not our concern.
    config.write_text(json.dumps({"package_name_override": PACKAGE, "post_hooks": []}))
    exe = Path(sys.executable).with_name("openapi-python-client")
    cmd = [str(exe) if exe.exists() else "openapi-python-client"]
    return subprocess.run(
        cmd
        + [
            "generate",
            "--path", str(spec_path),
            "--output-path", str(workdir / "client"),
            "--config", str(config),
            "--meta", "none",
            "--overwrite",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _missing_response_descriptions(spec: dict) -> list[str]:
    return [
        f"{method.upper()} {path} -> {status}"
        for path, item in spec.get("paths", {}).items()
        for method, op in item.items()
        if isinstance(op, dict)
        for status, response in op.get("responses", {}).items()
        if "description" not in response
    ]


def _import_client(workdir: Path):
    # --meta none writes the package itself at --output-path.
    sys.path.insert(0, str(workdir))
    (workdir / "client").rename(workdir / PACKAGE)
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    return importlib.import_module(PACKAGE)


def _generate_and_import(workdir: Path):
    """Generates the client of the committed spec in `workdir` and makes it importable."""
    out = _generate(json.loads(SPEC.read_text()), workdir)
    assert out.returncode == 0, out.stdout + out.stderr
    _import_client(workdir)


def test_committed_spec_generates_a_complete_client(tmp_path):
    spec = json.loads(SPEC.read_text())
    out = _generate(spec, tmp_path)
    log = out.stdout + out.stderr
    assert out.returncode == 0 and "client was not created" not in log, (
        "openapi-python-client cannot generate a client from the committed spec "
        f"(responses without the required `description`: {_missing_response_descriptions(spec)}):\n"
        + log[-4000:]
    )
    assert "Warning" not in log, "generation warnings (parts of the API left out):\n" + log[-4000:]


def test_classic_table_with_generated_client(tmp_path):
    base_url = _env("CATAN_BASE_URL")
    admin_key = _env("CATAN_ADMIN_KEY")

    _generate_and_import(tmp_path)

    from catan_generated_client import AuthenticatedClient, Client
    from catan_generated_client.api.auth import create_api_key, issue_token
    from catan_generated_client.api.pairing import draw_round
    from catan_generated_client.api.ranking import standings
    from catan_generated_client.api.registration import create_entry, create_event, create_player
    from catan_generated_client.api.results import get_result, submit_result
    from catan_generated_client.models import (
        ApiKeyCreated,
        ClassicFormat,
        CreateApiKey,
        CreateEntry,
        CreateEvent,
        CreatePlayer,
        DrawRound,
        Entry,
        Event,
        EventFormat,
        OutcomeKind,
        Player,
        Role,
        Round,
        ScoreInput,
        Standings,
        SubmitResult,
        TableResult,
        TokenRequest,
        TokenResponse,
    )

    def ok(value, cls):
        assert isinstance(value, cls), f"expected {cls.__name__}, got {value!r}"
        return value

    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)

    def login(api_key: str) -> AuthenticatedClient:
        token = ok(issue_token.sync(client=anonymous, body=TokenRequest(api_key=api_key)), TokenResponse)
        assert token.token_type.lower() == "bearer"
        return AuthenticatedClient(base_url=base_url, token=token.access_token, raise_on_unexpected_status=True)

    admin = login(admin_key)
    tag = uuid.uuid4().hex[:8]

    event = ok(
        create_event.sync(
            client=admin,
            # A practice event: only one takes the chosen seed of the draw below.
            body=CreateEvent(name=f"pytest {tag}", format_=EventFormat.CLASSIC, practice=True),
        ),
        Event,
    )
    assert event.format_ == EventFormat.CLASSIC

    def key(role: Role) -> AuthenticatedClient:
        created = ok(
            create_api_key.sync(
                client=admin, body=CreateApiKey(name=f"{role.value} {tag}", role=role, event_ids=[event.id])
            ),
            ApiKeyCreated,
        )
        return login(created.api_key)

    director = key(Role.DIRECTOR)
    scorer = key(Role.SCORER)

    players = [
        ok(create_player.sync(client=director, body=CreatePlayer(name=f"Player {i} {tag}")), Player)
        for i in range(4)
    ]
    for p in players:
        entry = ok(create_entry.sync(event.id, client=director, body=CreateEntry(player_id=p.id)), Entry)
        assert entry.player_id == p.id

    round_ = ok(draw_round.sync(event.id, client=director, body=DrawRound(seed=42)), Round)
    assert round_.number == 1 and len(round_.tables) == 1
    assert round_.seed == 42 and round_.seed_chosen
    table = round_.tables[0]
    seated = [seat.player_id for seat in table.seats]
    assert sorted(map(str, seated)) == sorted(str(p.id) for p in players)

    winner = seated[0]
    posted = {winner: 10}
    for player_id, vp in zip(seated[1:], (9, 5, 2)):
        posted[player_id] = vp
    sheet = SubmitResult(
        outcome=OutcomeKind.WON,
        winner_player_id=winner,
        scores=[ScoreInput(player_id=pid, vp=vp) for pid, vp in posted.items()],
    )
    response = submit_result.sync_detailed(event.id, round_.number, table.number, client=scorer, body=sheet)
    assert response.status_code in (HTTPStatus.OK, HTTPStatus.CREATED), response.content
    recorded = ok(response.parsed, TableResult)
    # Where the write is in the feeds ranking follows: a read that sends it back includes it.
    positions = [response.headers["Catan-Position"]]
    assert {s.player_id: s.vp for s in recorded.scores} == posted
    assert recorded.winner_player_id == winner

    again = ok(get_result.sync(event.id, round_.number, table.number, client=anonymous), TableResult)
    assert again.version == recorded.version

    # The director confirms for each seated player, and reissues a player's PIN (issue 10, item 1).
    from catan_generated_client.api.registration import reissue_pin
    from catan_generated_client.api.results import confirm_result
    from catan_generated_client.models import ConfirmResult, PlayerPin

    for player_id in seated:
        answer = confirm_result.sync_detailed(
            event.id, round_.number, table.number, client=director, body=ConfirmResult(player_id=player_id)
        )
        confirmed = ok(answer.parsed, TableResult)
        positions.append(answer.headers["Catan-Position"])
    assert confirmed.status.value == "confirmed"
    assert {c.player_id for c in confirmed.confirmed_by_director} == set(seated)
    pin = ok(reissue_pin.sync(event.id, seated[0], client=director), PlayerPin)
    assert len(pin.pin) == 8 and not set(pin.pin) & set("01OIL"), pin.pin

    # Ranking is a read model: a read that carries the writes' positions answers once it includes
    # them (several positions, separated by commas, ask for all of them).
    table_standings = ok(
        standings.sync(event.id, client=anonymous, catan_position=", ".join(positions)), Standings
    )
    assert table_standings.format_ == ClassicFormat.CLASSIC
    assert table_standings.after_round == 1
    assert table_standings.results_counted == 1
    by_player = {row.player_id: row for row in table_standings.rows}
    assert set(by_player) == set(posted)
    for player_id, vp in posted.items():
        assert by_player[player_id].vp == vp, (player_id, by_player[player_id].vp, vp)
        assert by_player[player_id].games == 1
    assert by_player[winner].wins == 1
    assert by_player[winner].rank == 1


def test_an_organiser_and_the_audit_trail_with_generated_client(tmp_path):
    """The admin issues an organiser key for a region; the organiser creates an event there, and
    the audit trail shows that change, made with its key, and no secret (issue 14)."""
    base_url = _env("CATAN_BASE_URL")
    admin_key = _env("CATAN_ADMIN_KEY")

    _generate_and_import(tmp_path)

    from catan_generated_client import AuthenticatedClient, Client
    from catan_generated_client.api.audit import list_audit
    from catan_generated_client.api.auth import create_api_key, issue_token
    from catan_generated_client.api.registration import create_event, create_region
    from catan_generated_client.models import (
        ApiKeyCreated,
        AuditRecord,
        CreateApiKey,
        CreateEvent,
        CreateRegion,
        Event,
        EventFormat,
        Region,
        Role,
        TokenRequest,
        TokenResponse,
    )

    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)

    def login(api_key: str) -> AuthenticatedClient:
        token = issue_token.sync(client=anonymous, body=TokenRequest(api_key=api_key))
        assert isinstance(token, TokenResponse), token
        return AuthenticatedClient(base_url=base_url, token=token.access_token, raise_on_unexpected_status=True)

    admin = login(admin_key)
    tag = uuid.uuid4().hex[:8]
    region = create_region.sync(client=admin, body=CreateRegion(name=f"pytest region {tag}"))
    assert isinstance(region, Region), region
    key = create_api_key.sync(
        client=admin,
        body=CreateApiKey(name=f"organiser {tag}", role=Role.ORGANISER, region_ids=[region.id]),
    )
    assert isinstance(key, ApiKeyCreated), key
    organiser = login(key.api_key)
    event = create_event.sync(
        client=organiser,
        body=CreateEvent(name=f"pytest regional {tag}", format_=EventFormat.CLASSIC, region_id=region.id),
    )
    assert isinstance(event, Event), event

    trail = list_audit.sync(client=organiser, key_id=key.id)
    assert isinstance(trail, list) and all(isinstance(r, AuditRecord) for r in trail), trail
    assert [(r.method, r.route, r.status) for r in trail] == [("POST", "/v1/events", 201)]
    assert trail[0].role == Role.ORGANISER and trail[0].key_id == key.id
    assert event.id in trail[0].event_ids
    assert key.api_key not in json.dumps([r.to_dict() for r in trail])
