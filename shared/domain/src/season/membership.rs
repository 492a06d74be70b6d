//! Which events a season may hold, and who may decline a season's place: the service-level rules
//! of a season (issue 8), as pure functions.

use uuid::Uuid;

use crate::PlayerId;

/// A region's identity.
pub type RegionId = Uuid;

/// The days a season runs, `starts_on` through `ends_on` (both included), and its region (none:
/// federation-wide). Days are any ordered type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeasonScope<D> {
    pub starts_on: D,
    pub ends_on: D,
    pub region: Option<RegionId>,
}

/// An event's days and region, as a season sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventScope<D> {
    pub starts_on: D,
    pub ends_on: D,
    pub region: Option<RegionId>,
}

/// Why an event may not join a season.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinRefusal {
    /// The event's first day is before the season's first.
    StartsBeforeSeason,
    /// The event's last day is after the season's last.
    EndsAfterSeason,
    /// A regional season holds only its region's events (an event of no region included).
    OtherRegion,
}

/// A season's last day is before its first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a season cannot end before it starts")]
pub struct SeasonEndsBeforeStart;

/// Checks a season's days: the last may not come before the first (a one-day season is fine).
pub fn season_days<D: Ord>(starts_on: &D, ends_on: &D) -> Result<(), SeasonEndsBeforeStart> {
    if ends_on < starts_on {
        Err(SeasonEndsBeforeStart)
    } else {
        Ok(())
    }
}

/// Every reason `event` may not join `season`, none when it may: every day of the event falls
/// within the season's days, and a regional season holds only events of its own region. A
/// federation-wide season holds any region's events, so that one event counts in its regional
/// season and in the national one.
pub fn join_refusals<D: Ord>(season: &SeasonScope<D>, event: &EventScope<D>) -> Vec<JoinRefusal> {
    let mut refusals = Vec::new();
    if event.starts_on < season.starts_on {
        refusals.push(JoinRefusal::StartsBeforeSeason);
    }
    if event.ends_on > season.ends_on {
        refusals.push(JoinRefusal::EndsAfterSeason);
    }
    if season.region.is_some() && event.region != season.region {
        refusals.push(JoinRefusal::OtherRegion);
    }
    refusals
}

/// Who asks to decline a season's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decliner {
    /// The federation's admin: may decline anyone's place.
    Admin,
    /// A player signed in (with his PIN, for any event): may decline his own place only.
    Player(PlayerId),
    /// Anyone else (a director's or scorer's key).
    Other,
}

/// Whether `who` may decline `player`'s place: the admin, or the player himself.
pub fn may_decline(who: Decliner, player: PlayerId) -> bool {
    match who {
        Decliner::Admin => true,
        Decliner::Player(me) => me == player,
        Decliner::Other => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn season(starts_on: u32, ends_on: u32, region: Option<u128>) -> SeasonScope<u32> {
        SeasonScope {
            starts_on,
            ends_on,
            region: region.map(Uuid::from_u128),
        }
    }

    fn event(starts_on: u32, ends_on: u32, region: Option<u128>) -> EventScope<u32> {
        EventScope {
            starts_on,
            ends_on,
            region: region.map(Uuid::from_u128),
        }
    }

    #[test]
    fn a_season_may_not_end_before_it_starts() {
        assert_eq!(season_days(&10, &9), Err(SeasonEndsBeforeStart));
        assert_eq!(season_days(&10, &10), Ok(()));
        assert_eq!(season_days(&10, &300), Ok(()));
    }

    #[test]
    fn an_event_joins_when_all_its_days_fall_within_the_season() {
        let spring = season(100, 200, None);
        assert_eq!(join_refusals(&spring, &event(100, 100, None)), []);
        assert_eq!(join_refusals(&spring, &event(150, 152, Some(1))), []);
        assert_eq!(join_refusals(&spring, &event(200, 200, None)), []);
        assert_eq!(
            join_refusals(&spring, &event(99, 101, None)),
            [JoinRefusal::StartsBeforeSeason]
        );
        assert_eq!(
            join_refusals(&spring, &event(199, 201, None)),
            [JoinRefusal::EndsAfterSeason]
        );
        assert_eq!(
            join_refusals(&spring, &event(90, 210, None)),
            [
                JoinRefusal::StartsBeforeSeason,
                JoinRefusal::EndsAfterSeason
            ]
        );
    }

    #[test]
    fn a_regional_season_holds_only_its_regions_events_and_a_national_one_any() {
        let regional = season(100, 200, Some(7));
        assert_eq!(join_refusals(&regional, &event(120, 120, Some(7))), []);
        assert_eq!(
            join_refusals(&regional, &event(120, 120, Some(8))),
            [JoinRefusal::OtherRegion]
        );
        assert_eq!(
            join_refusals(&regional, &event(120, 120, None)),
            [JoinRefusal::OtherRegion],
            "an event of no region is no region's"
        );
        // Every broken rule at once.
        assert_eq!(
            join_refusals(&regional, &event(50, 250, Some(8))),
            [
                JoinRefusal::StartsBeforeSeason,
                JoinRefusal::EndsAfterSeason,
                JoinRefusal::OtherRegion
            ]
        );
        let national = season(100, 200, None);
        assert_eq!(join_refusals(&national, &event(120, 120, Some(7))), []);
        assert_eq!(join_refusals(&national, &event(120, 120, Some(8))), []);
    }

    #[test]
    fn the_admin_or_the_player_himself_declines_a_place() {
        let (ada, bob) = (Uuid::from_u128(1), Uuid::from_u128(2));
        assert!(may_decline(Decliner::Admin, ada));
        assert!(may_decline(Decliner::Player(ada), ada));
        assert!(!may_decline(Decliner::Player(bob), ada));
        assert!(!may_decline(Decliner::Other, ada));
    }
}
