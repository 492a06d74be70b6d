//! Players who may be one person (issue 34, item 4): a player registered at a venue, published
//! to the federation under the venue's id, beside the one the federation knew by the same name.
//! The organiser decides, and merges with the existing merge ([`crate::identity`]); this only
//! says which pairs to offer.

use crate::PlayerId;
use crate::identity::{Identity, merge_refusals};
use unicode_normalization::UnicodeNormalization;
use uuid::Uuid;

/// `name` as names are compared: lower case, without accents ("José" and "jose" are one name),
/// as the registration schema's `fold_name` (and so the player search) folds it.
pub fn folded_name(name: &str) -> String {
    name.nfd()
        .filter(|c| !('\u{0300}'..='\u{036F}').contains(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether two names are one name, case and accents aside.
pub fn same_name(a: &str, b: &str) -> bool {
    folded_name(a) == folded_name(b)
}

/// The names of a list (one a line, as pasted) that are one name, case and accents aside: each
/// group of two or more positions, in the order of its first. A list naming one name twice may
/// name two people who share it, or one person twice: whoever pasted it says which, so no group
/// is ever made one entry without asking.
pub fn repeated_names<S: AsRef<str>>(names: &[S]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let folded = folded_name(name.as_ref());
        match groups.iter_mut().find(|(kept, _)| *kept == folded) {
            Some((_, group)) => group.push(i),
            None => groups.push((folded, vec![i])),
        }
    }
    groups
        .into_iter()
        .map(|(_, group)| group)
        .filter(|group| group.len() > 1)
        .collect()
}

/// Of the players `known` (each a name and whether he was merged into another), the positions of
/// those who may be the person named `name`: the same name, case and accents aside, and not
/// merged (a merged player's survivor is the one to offer). A name alone never says he is: they
/// are offered, and whoever enters the name chooses one of them or a new player.
pub fn may_be<'a>(name: &str, known: impl IntoIterator<Item = (&'a str, bool)>) -> Vec<usize> {
    known
        .into_iter()
        .enumerate()
        .filter(|(_, (known, merged))| !merged && same_name(known, name))
        .map(|(i, _)| i)
        .collect()
}

/// A registered player as the candidates see him; `T` orders registrations (when each was made).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered<T> {
    pub identity: Identity,
    pub name: String,
    pub region_id: Option<Uuid>,
    pub registered: T,
    /// The events he has an entry in.
    pub events: Vec<Uuid>,
}

/// Two players who may be one person: the one registered first and the one registered later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub older: PlayerId,
    pub newer: PlayerId,
}

/// The pairs of `players` to offer for merging: of one region (or both of none) and one name
/// (case and accents aside), and which the merge would take (neither merged, no event entered
/// by both: two people who played one event are two). Each pair once, the older first; in the
/// order of their folded name, then of the older's and the newer's registration (then ids).
pub fn merge_candidates<T: Ord>(players: &[Registered<T>]) -> Vec<Candidate> {
    let mut sorted: Vec<(String, &Registered<T>)> = players
        .iter()
        .filter(|p| p.identity.merged_into.is_none())
        .map(|p| (folded_name(&p.name), p))
        .collect();
    sorted.sort_by(|(a_name, a), (b_name, b)| {
        (a_name, a.region_id, &a.registered, a.identity.id).cmp(&(
            b_name,
            b.region_id,
            &b.registered,
            b.identity.id,
        ))
    });
    let mut pairs: Vec<(&str, &T, &T, Candidate)> = Vec::new();
    for (i, (name, older)) in sorted.iter().enumerate() {
        for (other_name, newer) in &sorted[i + 1..] {
            if other_name != name || newer.region_id != older.region_id {
                break;
            }
            let shared: Vec<Uuid> = newer
                .events
                .iter()
                .filter(|e| older.events.contains(e))
                .copied()
                .collect();
            if merge_refusals(newer.identity, older.identity, shared).is_empty() {
                let candidate = Candidate {
                    older: older.identity.id,
                    newer: newer.identity.id,
                };
                pairs.push((name, &older.registered, &newer.registered, candidate));
            }
        }
    }
    pairs.sort_by(|a, b| {
        (a.0, a.1, a.2, a.3.older, a.3.newer).cmp(&(b.0, b.1, b.2, b.3.older, b.3.newer))
    });
    pairs.into_iter().map(|(.., candidate)| candidate).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str, region: Uuid, registered: u32) -> Registered<u32> {
        Registered {
            identity: Identity {
                id: Uuid::new_v4(),
                merged_into: None,
            },
            name: name.into(),
            region_id: Some(region),
            registered,
            events: vec![],
        }
    }

    #[test]
    fn names_are_one_whatever_their_case_and_accents() {
        assert!(same_name("José Peña", "jose pena"));
        assert!(same_name("Jose\u{301}", "JOSÉ"));
        assert!(!same_name("Ada Lovelace", "Ada Love"));
        assert_eq!(folded_name("Zoë ÅSA"), "zoe asa");
    }

    #[test]
    fn a_name_pasted_twice_is_asked_about_whatever_its_case_and_accents() {
        let pasted = [
            "Pere Pons",
            "Ana",
            "pere pons",
            "Luis",
            "PÉRE PONS",
            "ana",
            "Ana María",
        ];
        assert_eq!(repeated_names(&pasted), [vec![0, 2, 4], vec![1, 5]]);
        assert!(repeated_names(&["Ana", "Ana María", "Luis"]).is_empty());
    }

    #[test]
    fn a_known_player_of_the_same_name_is_offered_never_a_merged_one_nor_a_part_of_the_name() {
        let known = [
            ("Ana García", false),
            ("ana garcia", true),
            ("Ana García López", false),
            ("ANA GARCÍA", false),
        ];
        assert_eq!(may_be("Ana Garcia", known), [0, 3]);
        assert!(may_be("Ana", known).is_empty());
    }

    #[test]
    fn a_player_registered_at_the_venue_is_offered_beside_the_one_the_federation_knew() {
        let region = Uuid::new_v4();
        let known = player("José Peña", region, 1);
        let at_venue = player("jose pena", region, 5);
        let other = player("Ada Lovelace", region, 2);
        let players = [at_venue.clone(), other, known.clone()];
        assert_eq!(
            merge_candidates(&players),
            [Candidate {
                older: known.identity.id,
                newer: at_venue.identity.id,
            }]
        );
    }

    #[test]
    fn players_of_other_regions_merged_ones_and_those_of_one_event_are_not_offered() {
        let (north, south) = (Uuid::new_v4(), Uuid::new_v4());
        let known = player("Ada", north, 1);
        let elsewhere = player("Ada", south, 2);
        let mut merged = player("Ada", north, 3);
        merged.identity.merged_into = Some(known.identity.id);
        assert!(merge_candidates(&[known.clone(), elsewhere, merged]).is_empty());

        let event = Uuid::new_v4();
        let mut first = known.clone();
        first.events = vec![event];
        let mut second = player("ADA", north, 4);
        second.events = vec![Uuid::new_v4(), event];
        assert!(
            merge_candidates(&[first, second]).is_empty(),
            "two people who played one event are two"
        );
    }

    #[test]
    fn three_of_one_name_make_every_pair_once_by_name_then_registration() {
        let region = Uuid::new_v4();
        let [a, b, c] = [1, 2, 3].map(|t| player("Bo", region, t));
        let z = player("Zed", region, 0);
        let z2 = player("zed", region, 9);
        let found = merge_candidates(&[z2.clone(), c.clone(), a.clone(), z.clone(), b.clone()]);
        let ids = |x: &Registered<u32>, y: &Registered<u32>| Candidate {
            older: x.identity.id,
            newer: y.identity.id,
        };
        assert_eq!(found, [ids(&a, &b), ids(&a, &c), ids(&b, &c), ids(&z, &z2)]);
    }
}
