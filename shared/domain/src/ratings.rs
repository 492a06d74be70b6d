//! Player ratings: the Weng-Lin Bayesian approximation with the Plackett-Luce model (Weng & Lin,
//! JMLR 12, 2011, algorithm 4), computed exactly as the published openskill package (6.2) does
//! with its defaults: μ 25, σ 25/3, β 25/6, τ 25/300, κ 0.0001, no weights, no margin, σ not
//! limited. A rating is shown as its ordinal, μ − 3σ.
//!
//! A game is a list of teams (a classic table: one player each; a partner table: two teams of
//! two) with their places: 1 is first, and teams that share a place share its number.

use crate::PlayerId;
use crate::partner::PartnerGame;
use crate::results::TableResult;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A player's skill estimate: mean `mu` and uncertainty `sigma`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
}

impl Rating {
    /// What a rating is shown as: μ − 3σ, low while a player is still uncertain.
    pub fn ordinal(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// The model's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// A new player's μ and σ.
    pub mu: f64,
    pub sigma: f64,
    /// The spread of one game's performance around the skill.
    pub beta: f64,
    /// Added to every σ before a game, so that ratings keep moving.
    pub tau: f64,
    /// The least a variance may shrink to in one game, as a share of what it was.
    pub kappa: f64,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            mu: 25.0,
            sigma: 25.0 / 3.0,
            beta: 25.0 / 6.0,
            tau: 25.0 / 300.0,
            kappa: 0.0001,
        }
    }
}

impl Model {
    /// Each team's chance of winning a game against the others, as openskill's `predict_win`
    /// computes it: for two teams the normal probability that one outperforms the other; for
    /// more, each team's mean chance against each other team, scaled so that the chances add up
    /// to one.
    pub fn predict_win(&self, teams: &[Vec<Rating>]) -> Vec<f64> {
        let sums: Vec<TeamRating> = teams.iter().map(|team| team_rating(team, 0)).collect();
        let beats = |a: &TeamRating, b: &TeamRating| {
            let spread = (2.0 * self.beta * self.beta + a.sigma_squared + b.sigma_squared).sqrt();
            normal_cdf((a.mu - b.mu) / spread)
        };
        if let [a, b] = sums.as_slice() {
            let p = beats(a, b);
            return vec![p, 1.0 - p];
        }
        let others = f64::from(u32::try_from(sums.len().saturating_sub(1)).unwrap_or(u32::MAX));
        let chances: Vec<f64> = sums
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let total: f64 = sums
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, b)| beats(a, b))
                    .sum();
                total / others
            })
            .collect();
        let total: f64 = chances.iter().sum();
        chances.into_iter().map(|c| c / total).collect()
    }
}

/// The standard normal distribution function, as Python's `statistics.NormalDist().cdf`.
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + libm::erf(x / std::f64::consts::SQRT_2))
}

/// A team as the model sees it: its summed μ and σ², and its place.
struct TeamRating {
    mu: f64,
    sigma_squared: f64,
    place: u32,
}

impl Model {
    /// A new player's rating.
    pub fn new_rating(&self) -> Rating {
        Rating {
            mu: self.mu,
            sigma: self.sigma,
        }
    }

    /// The ratings after one game: `teams[i]` finished at `places[i]`. The answer has the shape of
    /// `teams`. Panics if `places` does not give every team a place.
    pub fn rate(&self, teams: &[Vec<Rating>], places: &[u32]) -> Vec<Vec<Rating>> {
        assert_eq!(teams.len(), places.len(), "every team has a place");
        // τ first: every σ grows a little before the game.
        let with_tau: Vec<Vec<Rating>> = teams
            .iter()
            .map(|team| {
                team.iter()
                    .map(|r| Rating {
                        mu: r.mu,
                        sigma: (r.sigma * r.sigma + self.tau * self.tau).sqrt(),
                    })
                    .collect()
            })
            .collect();
        // Teams in finishing order (a stable sort, as openskill's), then back to their own.
        let mut order: Vec<usize> = (0..teams.len()).collect();
        order.sort_by_key(|&i| places[i]);
        let sorted_teams: Vec<&Vec<Rating>> = order.iter().map(|&i| &with_tau[i]).collect();
        let sorted_places: Vec<u32> = order.iter().map(|&i| places[i]).collect();
        let rated = self.compute(&sorted_teams, &sorted_places);
        let mut answer = vec![Vec::new(); teams.len()];
        for (team, position) in rated.into_iter().zip(order) {
            answer[position] = team;
        }
        answer
    }

    /// Algorithm 4 over teams sorted by place.
    fn compute(&self, teams: &[&Vec<Rating>], places: &[u32]) -> Vec<Vec<Rating>> {
        let team_ratings: Vec<TeamRating> = teams
            .iter()
            .zip(places)
            .map(|(team, &place)| team_rating(team, place))
            .collect();
        let c = team_ratings
            .iter()
            .map(|t| t.sigma_squared + self.beta * self.beta)
            .sum::<f64>()
            .sqrt();
        // sum_q[q]: Σ exp(μ_i / c) over the teams i placed at or after team q.
        let mut sum_q = vec![0.0; team_ratings.len()];
        for team_i in &team_ratings {
            let summed = (team_i.mu / c).exp();
            for (q, team_q) in team_ratings.iter().enumerate() {
                if team_i.place >= team_q.place {
                    sum_q[q] += summed;
                }
            }
        }
        // a[q]: how many teams share team q's place.
        let a: Vec<f64> = team_ratings
            .iter()
            .map(|i| {
                let sharing = team_ratings.iter().filter(|q| q.place == i.place).count();
                f64::from(u32::try_from(sharing).unwrap_or(u32::MAX))
            })
            .collect();
        team_ratings
            .iter()
            .zip(teams)
            .enumerate()
            .map(|(i, (team_i, players))| {
                let mut omega = 0.0;
                let mut delta = 0.0;
                let i_mu_over_c = (team_i.mu / c).exp();
                for (q, team_q) in team_ratings.iter().enumerate() {
                    let quotient = i_mu_over_c / sum_q[q];
                    if team_q.place <= team_i.place {
                        delta += quotient * (1.0 - quotient) / a[q];
                        if q == i {
                            omega += (1.0 - quotient) / a[q];
                        } else {
                            omega -= quotient / a[q];
                        }
                    }
                }
                omega *= team_i.sigma_squared / c;
                delta *= team_i.sigma_squared / (c * c);
                // γ = σ_i / c, the model's default.
                delta *= team_i.sigma_squared.sqrt() / c;
                players
                    .iter()
                    .map(|player| {
                        let share = player.sigma * player.sigma / team_i.sigma_squared;
                        Rating {
                            mu: player.mu + share * omega,
                            sigma: player.sigma * (1.0 - share * delta).max(self.kappa).sqrt(),
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// A team's summed μ and σ², adding its players from the highest ordinal down, as openskill does
/// (the order matters to the last bit of a float sum).
fn team_rating(team: &[Rating], place: u32) -> TeamRating {
    let mut players: Vec<&Rating> = team.iter().collect();
    players.sort_by(|a, b| b.ordinal().total_cmp(&a.ordinal()));
    TeamRating {
        mu: players.iter().map(|p| p.mu).sum(),
        sigma_squared: players.iter().map(|p| p.sigma * p.sigma).sum(),
        place,
    }
}

/// A game as the ratings see it: its teams of players and their places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedGame {
    pub teams: Vec<Vec<PlayerId>>,
    pub places: Vec<u32>,
}

impl RatedGame {
    /// A classic table: every player a team of one. A won game puts the winner first and the
    /// others by VP; a game stopped at the time limit ranks everyone by VP. Equal VP share a place.
    pub fn classic(result: &TableResult) -> RatedGame {
        let keys: Vec<i64> = result
            .scores
            .iter()
            .map(|s| finishing_key(result.winner == Some(s.player), s.vp.into()))
            .collect();
        RatedGame {
            teams: result.scores.iter().map(|s| vec![s.player]).collect(),
            places: places_by(&keys),
        }
    }

    /// A partner game: two teams of two. The winning team is first; at the time limit the team
    /// with more VP is, and equal VP share the place.
    pub fn partner(game: &PartnerGame) -> RatedGame {
        let teams = game.teams();
        let keys: Vec<i64> = teams
            .iter()
            .map(|team| finishing_key(game.winner == Some(team.team), team.vp))
            .collect();
        RatedGame {
            teams: teams
                .iter()
                .map(|team| team.players.iter().map(|p| p.player).collect())
                .collect(),
            places: places_by(&keys),
        }
    }
}

/// Where a player or team finished, as a key to sort by (lower is better): the winner before
/// everyone, then more VP before fewer. Ratings and season table points place players by it.
pub fn finishing_key(won: bool, vp: u32) -> i64 {
    if won { i64::MIN } else { -i64::from(vp) }
}

/// Every player's rating, as the games played so far leave it.
#[derive(Debug, Clone)]
pub struct Ratings {
    model: Model,
    players: HashMap<PlayerId, Rating>,
}

impl Ratings {
    pub fn new(model: Model) -> Ratings {
        Ratings {
            model,
            players: HashMap::new(),
        }
    }

    /// A player's rating: a new player's until he has played.
    pub fn of(&self, player: PlayerId) -> Rating {
        self.players
            .get(&player)
            .copied()
            .unwrap_or_else(|| self.model.new_rating())
    }

    /// Sets a player's rating, as earlier games left it.
    pub fn set(&mut self, player: PlayerId, rating: Rating) {
        self.players.insert(player, rating);
    }

    /// Plays one game (games are played in the order they happened); answers each player's
    /// rating before and after it, team by team.
    pub fn play(&mut self, game: &RatedGame) -> Vec<Vec<(PlayerId, Rating, Rating)>> {
        let before: Vec<Vec<Rating>> = game
            .teams
            .iter()
            .map(|team| team.iter().map(|&p| self.of(p)).collect())
            .collect();
        let after = self.model.rate(&before, &game.places);
        game.teams
            .iter()
            .zip(before.iter().zip(&after))
            .map(|(team, (was, now))| {
                team.iter()
                    .zip(was.iter().zip(now))
                    .map(|(&player, (&was, &now))| {
                        self.players.insert(player, now);
                        (player, was, now)
                    })
                    .collect()
            })
            .collect()
    }
}

/// The places of a table's players from their finishing order's keys: the lower the key, the
/// better; equal keys share the better place (competition ranking: 1, 2, 2, 4).
pub fn places_by(keys: &[i64]) -> Vec<u32> {
    keys.iter()
        .map(|key| {
            let ahead = keys.iter().filter(|other| *other < key).count();
            u32::try_from(ahead + 1).unwrap_or(u32::MAX)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12
    }

    #[test]
    fn a_four_player_table_with_a_tie_moves_as_openskill_does() {
        // openskill 6.2.0: PlackettLuce().rate([[a], [b], [c], [d]], ranks=[1, 2, 2, 3]).
        let model = Model::default();
        let table: Vec<Vec<Rating>> = (0..4).map(|_| vec![model.new_rating()]).collect();
        let rated = model.rate(&table, &[1, 2, 2, 3]);
        let expected = [
            (27.795252672501135, 8.263571791259416),
            (24.689416369722096, 8.17961798837266),
            (24.689416369722096, 8.17961798837266),
            (22.825914588054673, 8.17961798837266),
        ];
        for (team, (mu, sigma)) in rated.iter().zip(expected) {
            assert!(
                close(team[0].mu, mu) && close(team[0].sigma, sigma),
                "{team:?}"
            );
        }
    }

    #[test]
    fn two_teams_of_two_move_together_and_the_order_of_teams_does_not_matter() {
        // openskill 6.2.0: PlackettLuce().rate([[a, b], [c, d]], ranks=[2, 1]).
        let model = Model::default();
        let pair = vec![model.new_rating(), model.new_rating()];
        let rated = model.rate(&[pair.clone(), pair.clone()], &[2, 1]);
        for player in &rated[0] {
            assert!(close(player.mu, 23.035705378196937));
            assert!(close(player.sigma, 8.177962604389991));
        }
        for player in &rated[1] {
            assert!(close(player.mu, 26.964294621803063));
        }
        let swapped = model.rate(&[pair.clone(), pair], &[1, 2]);
        assert_eq!(swapped[0], rated[1]);
        assert_eq!(swapped[1], rated[0]);
    }

    #[test]
    fn win_chances_are_openskills() {
        // openskill 6.2.0: PlackettLuce().predict_win(...) for these ratings.
        let model = Model::default();
        let rating = |mu, sigma| Rating { mu, sigma };
        let field = [
            rating(30.0, 6.0),
            model.new_rating(),
            rating(20.0, 4.0),
            rating(25.0, 2.0),
        ];
        let solo = |n: usize| -> Vec<Vec<Rating>> { field[..n].iter().map(|r| vec![*r]).collect() };
        let near = |got: Vec<f64>, want: &[f64]| {
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12),
                "{got:?}"
            );
        };
        near(
            model.predict_win(&solo(4)),
            &[
                0.3734445106164253,
                0.2520402235325014,
                0.11919189467452078,
                0.25532337117655257,
            ],
        );
        near(
            model.predict_win(&solo(3)),
            &[0.5073855152249563, 0.3374137803983361, 0.15520070437670758],
        );
        near(
            model.predict_win(&[field[..2].to_vec(), field[2..].to_vec()]),
            &[0.7852822441652187, 0.21471775583478125],
        );
    }

    #[test]
    fn the_winner_gains_the_last_loses_and_everyone_grows_surer() {
        let model = Model::default();
        let table: Vec<Vec<Rating>> = (0..3).map(|_| vec![model.new_rating()]).collect();
        let rated = model.rate(&table, &[1, 2, 3]);
        assert!(rated[0][0].mu > 25.0 && rated[2][0].mu < 25.0);
        assert!(rated.iter().all(|t| t[0].sigma < model.sigma));
        assert!(rated[0][0].ordinal() > rated[2][0].ordinal());
    }

    fn score(player: PlayerId, vp: u8) -> crate::results::Score {
        crate::results::Score {
            player,
            vp,
            credited_vp: vp.min(10),
            breakdown: None,
        }
    }

    #[test]
    fn a_won_table_puts_the_winner_first_and_the_others_by_vp() {
        let [a, b, c, d] = [1, 2, 3, 4].map(PlayerId::from_u128);
        let won = TableResult {
            winner: Some(b),
            scores: vec![score(a, 9), score(b, 10), score(c, 7), score(d, 7)],
        };
        assert_eq!(RatedGame::classic(&won).places, [2, 1, 3, 3]);
        let stopped = TableResult {
            winner: None,
            scores: vec![score(a, 8), score(b, 9), score(c, 8)],
        };
        let game = RatedGame::classic(&stopped);
        assert_eq!(game.places, [2, 1, 2]);
        assert_eq!(game.teams, [vec![a], vec![b], vec![c]]);
    }

    #[test]
    fn a_partner_game_is_two_teams_of_two_placed_by_the_winner_or_by_vp() {
        use crate::partner::{GameResult, PartnerPlayerScore, TeamResult};
        use crate::results::OutcomeKind;
        let [a, b, c, d, home, away] = [1, 2, 3, 4, 5, 6].map(PlayerId::from_u128);
        let team = |id, players: [PlayerId; 2], vp, result| TeamResult {
            team: id,
            players: players.map(|player| PartnerPlayerScore {
                player,
                vp: 5,
                breakdown: None,
            }),
            vp,
            result,
            points: 0,
        };
        let won = PartnerGame {
            outcome: OutcomeKind::Won,
            home: team(home, [a, c], 12, GameResult::Loss),
            away: team(away, [b, d], 20, GameResult::Win),
            winner: Some(away),
        };
        let game = RatedGame::partner(&won);
        assert_eq!(game.teams, [vec![a, c], vec![b, d]]);
        assert_eq!(game.places, [2, 1]);
        let level = PartnerGame {
            outcome: OutcomeKind::TimeLimit,
            winner: None,
            home: team(home, [a, c], 15, GameResult::Draw),
            away: team(away, [b, d], 15, GameResult::Draw),
        };
        assert_eq!(RatedGame::partner(&level).places, [1, 1]);
    }

    #[test]
    fn replayed_games_carry_each_players_rating_forward() {
        let [a, b, c] = [1, 2, 3].map(PlayerId::from_u128);
        let game = RatedGame {
            teams: vec![vec![a], vec![b], vec![c]],
            places: vec![1, 2, 3],
        };
        let mut ratings = Ratings::new(Model::default());
        let first = ratings.play(&game);
        assert_eq!(first[0][0].1, Model::default().new_rating());
        let second = ratings.play(&game);
        assert_eq!(
            second[0][0].1, first[0][0].2,
            "the second game starts where the first ended"
        );
        assert!(ratings.of(a).mu > first[0][0].2.mu);
        assert!(ratings.of(c).mu < first[2][0].2.mu);
    }

    #[test]
    fn equal_keys_share_the_better_place() {
        assert_eq!(places_by(&[1, 2, 2, 3]), [1, 2, 2, 4]);
        assert_eq!(places_by(&[-10, -7, -7, -4]), [1, 2, 2, 4]);
        assert_eq!(places_by(&[5, 5, 5]), [1, 1, 1]);
    }
}
