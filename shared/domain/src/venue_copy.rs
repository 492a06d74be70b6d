//! Taking in a copy of records kept elsewhere (a venue's copy of a federation's event), under the
//! ids they have there (issue 34): a record absent is created with its id, a record identical to
//! ours changes nothing, and a record that differs is refused, with every difference listed, so
//! that nobody has to fix them one refusal at a time.

/// One record of a copy, as its fields' values written out: `key` names it among all the
/// records of the copy (e.g. `players[<id>]`), `fields` are `(name, value)` in a fixed order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyRecord {
    pub key: String,
    pub fields: Vec<(&'static str, String)>,
}

impl CopyRecord {
    pub fn new(key: impl Into<String>) -> Self {
        CopyRecord {
            key: key.into(),
            fields: Vec::new(),
        }
    }

    /// The record with one more field.
    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.fields.push((name, value.into()));
        self
    }
}

/// A field whose value in the copy is not ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyDifference {
    /// The record, as [`CopyRecord::key`] names it.
    pub record: String,
    pub field: &'static str,
    /// Our value; `None` when our record has no such field.
    pub ours: Option<String>,
    /// The copy's value; `None` when the copy's record has no such field.
    pub theirs: Option<String>,
}

/// What taking in a copy does: the keys of the records to create, or every difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyPlan {
    /// Create these records (those we lack); every other record of the copy is ours already.
    Create(Vec<String>),
    /// Records of the copy that differ from ours: nothing is to be taken in.
    Refuse(Vec<CopyDifference>),
}

/// Every field in which `theirs` differs from `ours`, in the order of `theirs`' fields, then any
/// field only ours has.
pub fn record_differences(ours: &CopyRecord, theirs: &CopyRecord) -> Vec<CopyDifference> {
    let value = |record: &CopyRecord, name: &str| {
        record
            .fields
            .iter()
            .find(|(field, _)| *field == name)
            .map(|(_, value)| value.clone())
    };
    let theirs_first = theirs.fields.iter().map(|(name, _)| *name);
    let ours_only = ours
        .fields
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| value(theirs, name).is_none());
    theirs_first
        .chain(ours_only)
        .filter_map(|field| {
            let (ours_value, theirs_value) = (value(ours, field), value(theirs, field));
            (ours_value != theirs_value).then(|| CopyDifference {
                record: theirs.key.clone(),
                field,
                ours: ours_value,
                theirs: theirs_value,
            })
        })
        .collect()
}

/// How the copy `theirs` is taken in, given `ours` (our records of the same keys, those we have):
/// each record of `theirs` we lack is created; identical ones change nothing; if any differs, the
/// whole copy is refused with every difference of every record. A key the copy names twice with
/// different values is a difference too (its second record against its first).
pub fn plan_copy(ours: &[CopyRecord], theirs: &[CopyRecord]) -> CopyPlan {
    match plan_copy_moving_on(ours, theirs, |_| false) {
        Ok(changes) => CopyPlan::Create(changes.create),
        Err(differences) => CopyPlan::Refuse(differences),
    }
}

/// What taking in a copy of a venue's event does to the records it does not refuse.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopyChanges {
    /// The records we lack, by key.
    pub create: Vec<String>,
    /// Records of ours the venue's play moved on (an entry that left the event there), by key:
    /// they take the copy's values.
    pub move_on: Vec<String>,
}

/// As [`plan_copy`], except that a record of ours whose differences `moved_on` accepts is to take
/// the copy's values instead of refusing the copy. Any other difference refuses it whole.
pub fn plan_copy_moving_on(
    ours: &[CopyRecord],
    theirs: &[CopyRecord],
    moved_on: impl Fn(&[CopyDifference]) -> bool,
) -> Result<CopyChanges, Vec<CopyDifference>> {
    let mut changes = CopyChanges::default();
    let mut differences = Vec::new();
    for (index, record) in theirs.iter().enumerate() {
        let earlier = theirs[..index].iter().find(|r| r.key == record.key);
        match (ours.iter().find(|r| r.key == record.key), earlier) {
            (_, Some(earlier)) => differences.extend(record_differences(earlier, record)),
            (Some(known), None) => {
                let differ = record_differences(known, record);
                if differ.is_empty() {
                    continue;
                }
                if moved_on(&differ) {
                    changes.move_on.push(record.key.clone());
                } else {
                    differences.extend(differ);
                }
            }
            (None, None) => changes.create.push(record.key.clone()),
        }
    }
    if differences.is_empty() {
        Ok(changes)
    } else {
        Err(differences)
    }
}

/// Whether the differences of one entry are only its leaving the event at the venue: from
/// active to dropped or excluded, with the reason given there. The venue ran the event while it
/// was checked out, so that is its to say; an entry brought back, or changed otherwise, is a
/// contradiction.
pub fn entry_left_at_the_venue(differences: &[CopyDifference]) -> bool {
    let is_entry = |d: &CopyDifference| d.record.starts_with("entries[");
    let left = differences.iter().any(|d| {
        d.field == "status"
            && d.ours.as_deref() == Some("\"active\"")
            && matches!(
                d.theirs.as_deref(),
                Some("\"dropped\"") | Some("\"excluded\"")
            )
    });
    left && differences
        .iter()
        .all(|d| is_entry(d) && matches!(d.field, "status" | "status_reason"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: &str, name: &str, region: &str) -> CopyRecord {
        CopyRecord::new(format!("players[{id}]"))
            .with("name", name)
            .with("region_id", region)
    }

    #[test]
    fn records_we_lack_are_created_under_their_keys() {
        let theirs = [player("a", "Ada", "r"), player("b", "Bo", "r")];
        assert_eq!(
            plan_copy(&[], &theirs),
            CopyPlan::Create(vec!["players[a]".into(), "players[b]".into()])
        );
    }

    #[test]
    fn an_identical_copy_creates_nothing() {
        let theirs = [player("a", "Ada", "r"), player("b", "Bo", "r")];
        assert_eq!(plan_copy(&theirs, &theirs), CopyPlan::Create(vec![]));
    }

    #[test]
    fn only_the_records_we_lack_are_created() {
        let ours = [player("a", "Ada", "r")];
        let theirs = [player("a", "Ada", "r"), player("b", "Bo", "r")];
        assert_eq!(
            plan_copy(&ours, &theirs),
            CopyPlan::Create(vec!["players[b]".into()])
        );
    }

    #[test]
    fn every_difference_of_every_record_is_listed_and_nothing_is_created() {
        let ours = [player("a", "Ada", "r"), player("b", "Bo", "r")];
        let theirs = [
            player("a", "Ada L.", "s"),
            player("b", "Bo", "s"),
            player("c", "Cy", "r"),
        ];
        let CopyPlan::Refuse(differences) = plan_copy(&ours, &theirs) else {
            panic!("a copy that differs is refused");
        };
        let listed: Vec<(&str, &str, Option<&str>, Option<&str>)> = differences
            .iter()
            .map(|d| {
                (
                    d.record.as_str(),
                    d.field,
                    d.ours.as_deref(),
                    d.theirs.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            vec![
                ("players[a]", "name", Some("Ada"), Some("Ada L.")),
                ("players[a]", "region_id", Some("r"), Some("s")),
                ("players[b]", "region_id", Some("r"), Some("s")),
            ]
        );
    }

    #[test]
    fn a_field_only_one_side_has_is_a_difference() {
        let ours = CopyRecord::new("event")
            .with("name", "Open")
            .with("venue", "Casal");
        let theirs = CopyRecord::new("event")
            .with("name", "Open")
            .with("rounds", "3");
        assert_eq!(
            record_differences(&ours, &theirs),
            vec![
                CopyDifference {
                    record: "event".into(),
                    field: "rounds",
                    ours: None,
                    theirs: Some("3".into()),
                },
                CopyDifference {
                    record: "event".into(),
                    field: "venue",
                    ours: Some("Casal".into()),
                    theirs: None,
                },
            ]
        );
    }

    #[test]
    fn a_key_named_twice_with_other_values_contradicts_itself() {
        let theirs = [player("a", "Ada", "r"), player("a", "Eve", "r")];
        let CopyPlan::Refuse(differences) = plan_copy(&[], &theirs) else {
            panic!("a copy that contradicts itself is refused");
        };
        assert_eq!(differences.len(), 1);
        assert_eq!(differences[0].field, "name");
        // Named twice alike, it is created once.
        let twice = [player("a", "Ada", "r"), player("a", "Ada", "r")];
        assert_eq!(
            plan_copy(&[], &twice),
            CopyPlan::Create(vec!["players[a]".into()])
        );
    }

    fn entry(id: &str, status: &str, reason: &str) -> CopyRecord {
        CopyRecord::new(format!("entries[{id}]"))
            .with("player_ids", "[\"p\"]")
            .with("status", format!("\"{status}\""))
            .with("status_reason", reason)
    }

    #[test]
    fn an_entry_that_left_at_the_venue_takes_the_copys_status() {
        let ours = [entry("a", "active", "null"), entry("b", "active", "null")];
        let theirs = [
            entry("a", "dropped", "\"went home\""),
            entry("b", "active", "null"),
            entry("c", "active", "null"),
        ];
        assert_eq!(
            plan_copy_moving_on(&ours, &theirs, entry_left_at_the_venue),
            Ok(CopyChanges {
                create: vec!["entries[c]".into()],
                move_on: vec!["entries[a]".into()],
            })
        );
    }

    #[test]
    fn an_entry_brought_back_or_changed_otherwise_refuses_the_copy() {
        let ours = [entry("a", "dropped", "\"ill\"")];
        let back = [entry("a", "active", "null")];
        assert!(plan_copy_moving_on(&ours, &back, entry_left_at_the_venue).is_err());
        let ours = [entry("a", "active", "null")];
        let other_player = [CopyRecord::new("entries[a]")
            .with("player_ids", "[\"q\"]")
            .with("status", "\"dropped\"")
            .with("status_reason", "null")];
        let Err(differences) = plan_copy_moving_on(&ours, &other_player, entry_left_at_the_venue)
        else {
            panic!("a changed player is a contradiction");
        };
        assert_eq!(differences.len(), 2, "{differences:?}");
        // A player's name is never the venue's to change.
        let (ada, ada_l) = (player("a", "Ada", "r"), player("a", "Ada L.", "r"));
        assert!(plan_copy_moving_on(&[ada], &[ada_l], entry_left_at_the_venue).is_err());
    }
}
