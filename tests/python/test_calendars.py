"""The iCalendar feeds (issue 35), read by a real iCalendar parser.

`GET /v1/events.ics` (the filters of `GET /v1/events`) and `GET /v1/players/{id}/events.ics`
must parse with Python's `icalendar` as RFC 5545 feeds: one VEVENT per event, all-day, with its
days (DTEND the day after the last, as RFC 5545 reads it), venue, its page and a UID that stays
the same on every read.

Environment: CATAN_BASE_URL, CATAN_ADMIN_KEY (as test_generated_client.py).
"""

from __future__ import annotations

import datetime
import json
import os
import urllib.request
import uuid

import pytest
from icalendar import Calendar


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set")
    return value


def _call(method: str, path: str, body=None, token: str | None = None):
    base = _env("CATAN_BASE_URL").rstrip("/")
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, dict(response.headers), response.read()


def _json(method: str, path: str, body=None, token: str | None = None):
    return json.loads(_call(method, path, body, token)[2])


def _feed(path: str) -> Calendar:
    status, headers, body = _call("GET", path)
    assert status == 200
    assert headers["content-type"].startswith("text/calendar"), headers
    return Calendar.from_ical(body)


def test_event_and_player_feeds_parse_and_keep_their_uids():
    token = _json("POST", "/v1/auth/token", {"api_key": _env("CATAN_ADMIN_KEY")})["access_token"]
    tag = uuid.uuid4().hex[:8]
    spring = _json(
        "POST",
        "/v1/events",
        {
            "name": f"Calendar open; {tag}, day one",
            "format": "classic",
            "starts_on": "2027-04-17",
            "ends_on": "2027-04-18",
            "venue": "Casal de Gràcia, Barcelona",
        },
        token,
    )
    autumn = _json(
        "POST",
        "/v1/events",
        {"name": f"Calendar cup {tag}", "format": "classic", "starts_on": "2027-10-02"},
        token,
    )
    player = _json("POST", "/v1/players", {"name": f"Calendar player {tag}"}, token)
    _json("POST", f"/v1/events/{autumn['id']}/entries", {"player_id": player["id"]}, token)

    feed = _feed(f"/v1/events.ics?q={tag}")
    events = {str(e["UID"]): e for e in feed.walk("VEVENT")}
    assert set(events) == {f"{spring['id']}@catan-tournaments", f"{autumn['id']}@catan-tournaments"}
    first = events[f"{spring['id']}@catan-tournaments"]
    # Text with commas and semicolons reads back whole.
    assert str(first["SUMMARY"]) == spring["name"]
    assert str(first["LOCATION"]) == "Casal de Gràcia, Barcelona"
    assert first.decoded("DTSTART") == datetime.date(2027, 4, 17)
    assert first.decoded("DTEND") == datetime.date(2027, 4, 19), "DTEND is the day after the last"
    assert str(first["URL"]).endswith(f"/events/{spring['id']}")
    one_day = events[f"{autumn['id']}@catan-tournaments"]
    assert one_day.decoded("DTEND") - one_day.decoded("DTSTART") == datetime.timedelta(days=1)

    again = {str(e["UID"]) for e in _feed(f"/v1/events.ics?q={tag}").walk("VEVENT")}
    assert again == set(events), "UIDs stay the same across reads"

    mine = [str(e["UID"]) for e in _feed(f"/v1/players/{player['id']}/events.ics").walk("VEVENT")]
    assert mine == [f"{autumn['id']}@catan-tournaments"]
