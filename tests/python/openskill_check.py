"""Checks ratings computed by the platform against openskill's Plackett-Luce model.

Reads JSON from standard input: {"games": [{"teams": [[[mu, sigma], ...], ...], "places": [...],
"rated": [[[mu, sigma], ...], ...], "chances": [...]}, ...]}, where "rated" and "chances" are what
the platform computed from "teams" and "places": the ratings after the game, and each team's
chance of winning it before. Rates and predicts every game with openskill's defaults and exits
non-zero if any number differs by more than 1e-9.
"""

import json
import sys

from openskill.models import PlackettLuce

TOLERANCE = 1e-9


def main() -> int:
    games = json.load(sys.stdin)["games"]
    model = PlackettLuce()
    largest = 0.0
    for number, game in enumerate(games):
        teams = [[model.create_rating([mu, sigma]) for mu, sigma in team] for team in game["teams"]]
        for chance, expected in zip(model.predict_win(teams), game["chances"]):
            difference = abs(chance - expected)
            largest = max(largest, difference)
            if difference > TOLERANCE:
                print(f"game {number}: openskill predicts {chance}, the platform {expected}")
                return 1
        rated = model.rate(teams, ranks=game["places"])
        for team, expected in zip(rated, game["rated"]):
            for player, (mu, sigma) in zip(team, expected):
                difference = max(abs(player.mu - mu), abs(player.sigma - sigma))
                largest = max(largest, difference)
                if difference > TOLERANCE:
                    print(f"game {number}: openskill gives ({player.mu}, {player.sigma}), the platform ({mu}, {sigma})")
                    return 1
    print(f"{len(games)} games agree with openskill; largest difference {largest:.3e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
