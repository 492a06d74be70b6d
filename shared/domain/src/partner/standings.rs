//! The partner event's standings: points, then fewest VP conceded, then most VP scored.

use super::{ByeVp, PartnerGame, PartnerSettings, TeamId};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;

/// One team's line of the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartnerRow {
    /// 1 is first; teams equal on points, VP against and VP share a rank (1, 2, 2, 4).
    pub rank: u32,
    pub team: TeamId,
    pub points: u32,
    /// VP the team's players scored, byes credited per the bye rule.
    pub vp: u32,
    /// VP the opposing teams scored against it, byes credited per the bye rule.
    pub vp_against: u32,
    pub games: u32,
    pub byes: u32,
    /// The team left the event: its games stand, it is no longer paired nor given a prize.
    pub dropped: bool,
    /// 1, 2 or 3 (up to the settings' prize places) for the prize winners.
    pub prize: Option<u8>,
}

impl PartnerRow {
    /// What the ranking compares, best first when sorted ascending.
    fn ranking_key(&self) -> (Reverse<u32>, u32, Reverse<u32>) {
        (Reverse(self.points), self.vp_against, Reverse(self.vp))
    }
}

/// Standings of a partner event: points (most first), then VP against (fewest first), then
/// VP scored (most first); teams equal on all three share a rank and are listed by team id.
/// `byes` holds one entry per bye given. The best `prize_places` teams are marked with their
/// prize; a shared place shares its prize.
pub fn partner_standings(
    teams: &[TeamId],
    games: &[PartnerGame],
    byes: &[TeamId],
    settings: &PartnerSettings,
) -> Vec<PartnerRow> {
    partner_standings_with_drops(teams, games, byes, &[], settings)
}

/// [`partner_standings`] when teams have dropped out: they keep their place in the list
/// with their results, and the prizes go to the best teams still in the event.
pub fn partner_standings_with_drops(
    teams: &[TeamId],
    games: &[PartnerGame],
    byes: &[TeamId],
    dropped: &[TeamId],
    settings: &PartnerSettings,
) -> Vec<PartnerRow> {
    let field_average = field_average_vp(games);
    let mut rows: Vec<PartnerRow> = Vec::with_capacity(teams.len());
    for &team in teams {
        if rows.iter().any(|row| row.team == team) {
            continue;
        }
        rows.push(team_row(
            team,
            games,
            byes,
            dropped,
            settings,
            field_average,
        ));
    }
    rows.sort_by_key(|row| (row.ranking_key(), row.team));

    for (index, place) in (0..rows.len()).zip(1u32..) {
        rows[index].rank =
            if index > 0 && rows[index - 1].ranking_key() == rows[index].ranking_key() {
                rows[index - 1].rank
            } else {
                place
            };
    }
    let eligible: Vec<usize> = (0..rows.len()).filter(|&i| !rows[i].dropped).collect();
    for ((position, &index), own_place) in eligible.iter().enumerate().zip(1u32..) {
        let shares_place =
            position > 0 && rows[eligible[position - 1]].ranking_key() == rows[index].ranking_key();
        let place = if shares_place {
            rows[eligible[position - 1]]
                .prize
                .map_or(u32::MAX, u32::from)
        } else {
            own_place
        };
        // A place within `prize_places` (a u8) always fits in u8.
        rows[index].prize = u8::try_from(place)
            .ok()
            .filter(|&place| place <= settings.prize_places);
    }
    rows
}

fn team_row(
    team: TeamId,
    games: &[PartnerGame],
    byes: &[TeamId],
    dropped: &[TeamId],
    settings: &PartnerSettings,
    field_average: u32,
) -> PartnerRow {
    let (mut points, mut vp, mut vp_against, mut played) = (0, 0, 0, 0);
    for game in games {
        if let (Some(own), Some(opponent)) = (game.result_of(team), game.opponent_of(team)) {
            points += own.points;
            vp += own.vp;
            vp_against += opponent.vp;
            played += 1;
        }
    }
    let bye_count: u32 = byes.iter().map(|&b| u32::from(b == team)).sum();
    let (bye_vp, bye_vp_against) = match settings.bye_rule.vp {
        ByeVp::Fixed { vp, vp_against } => (vp, vp_against),
        ByeVp::OwnAverage if played > 0 => (
            rounded_average(vp, played),
            rounded_average(vp_against, played),
        ),
        ByeVp::OwnAverage => (field_average, field_average),
    };
    PartnerRow {
        rank: 0,
        team,
        points: points + bye_count * settings.bye_rule.points,
        vp: vp + bye_count * bye_vp,
        vp_against: vp_against + bye_count * bye_vp_against,
        games: played,
        byes: bye_count,
        dropped: dropped.contains(&team),
        prize: None,
    }
}

/// A team's VP in an average game of the event (each game counts both teams); 0 before any.
fn field_average_vp(games: &[PartnerGame]) -> u32 {
    // Two teams' VP per game.
    let (total, count) = games.iter().fold((0, 0), |(total, count), g| {
        (total + g.home.vp + g.away.vp, count + 2)
    });
    rounded_average(total, count)
}

/// `total / count` rounded half up; 0 when there is nothing to average.
fn rounded_average(total: u32, count: u32) -> u32 {
    if count == 0 {
        0
    } else {
        (2 * total + count) / (2 * count)
    }
}
