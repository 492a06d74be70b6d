//! One identity (issue 8): a duplicate player merged into the player who survives. The merge
//! only marks the duplicate; whoever reads a history (ranking) maps the duplicate's onto the
//! survivor, so the rules here decide whether two identities can be one person.

use crate::PlayerId;

/// A player as a merge sees him: who he is, and whom he was merged into, if anyone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub id: PlayerId,
    pub merged_into: Option<PlayerId>,
}

/// A rule that a merge of one player into another breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeRefusal {
    /// A player cannot be merged into himself.
    IntoItself,
    /// The duplicate was merged already, into `into`.
    AlreadyMerged { into: PlayerId },
    /// The survivor was merged himself, into `into`: merge into that one instead. (A survivor
    /// may still be merged later, so a reader follows `merged_into` to its end.)
    IntoMerged { into: PlayerId },
    /// Both have entries in these events: two people who played the same event are not one.
    SharedEvents(Vec<uuid::Uuid>),
}

/// Every rule broken by merging `duplicate` into `survivor`, when both have entries in
/// `shared_events`: none when the merge may be made.
pub fn merge_refusals(
    duplicate: Identity,
    survivor: Identity,
    shared_events: Vec<uuid::Uuid>,
) -> Vec<MergeRefusal> {
    let mut refusals = Vec::new();
    let same = duplicate.id == survivor.id;
    if same {
        refusals.push(MergeRefusal::IntoItself);
    }
    if let Some(into) = duplicate.merged_into {
        refusals.push(MergeRefusal::AlreadyMerged { into });
    }
    // Into himself, the survivor's state and events are the duplicate's: said once above.
    if !same {
        if let Some(into) = survivor.merged_into {
            refusals.push(MergeRefusal::IntoMerged { into });
        }
        if !shared_events.is_empty() {
            refusals.push(MergeRefusal::SharedEvents(shared_events));
        }
    }
    refusals
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn player() -> Identity {
        Identity {
            id: Uuid::new_v4(),
            merged_into: None,
        }
    }

    fn merged(into: PlayerId) -> Identity {
        Identity {
            merged_into: Some(into),
            ..player()
        }
    }

    #[test]
    fn two_unmerged_players_without_a_shared_event_merge() {
        assert_eq!(merge_refusals(player(), player(), vec![]), []);
    }

    #[test]
    fn a_player_is_not_merged_into_himself() {
        let ada = player();
        assert_eq!(
            merge_refusals(ada, ada, vec![Uuid::new_v4()]),
            [MergeRefusal::IntoItself]
        );
    }

    #[test]
    fn a_merged_player_is_neither_merged_again_nor_merged_into() {
        let (first, second) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(
            merge_refusals(merged(first), player(), vec![]),
            [MergeRefusal::AlreadyMerged { into: first }]
        );
        assert_eq!(
            merge_refusals(player(), merged(second), vec![]),
            [MergeRefusal::IntoMerged { into: second }]
        );
    }

    #[test]
    fn players_who_played_the_same_event_are_two_people() {
        let event = Uuid::new_v4();
        assert_eq!(
            merge_refusals(player(), player(), vec![event]),
            [MergeRefusal::SharedEvents(vec![event])]
        );
    }

    #[test]
    fn every_broken_rule_is_listed() {
        let (first, second, event) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(
            merge_refusals(merged(first), merged(second), vec![event]),
            [
                MergeRefusal::AlreadyMerged { into: first },
                MergeRefusal::IntoMerged { into: second },
                MergeRefusal::SharedEvents(vec![event]),
            ]
        );
        let merged_ada = merged(first);
        assert_eq!(
            merge_refusals(merged_ada, merged_ada, vec![]),
            [
                MergeRefusal::IntoItself,
                MergeRefusal::AlreadyMerged { into: first }
            ]
        );
    }
}
