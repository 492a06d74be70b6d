//! An event checked out to a venue (issue 34): while it is, the federation's copy takes no
//! writes, so that what the venue plays is the one account of the event; one venue at a time.

/// Why an event cannot be checked out, or written to: it is checked out to `venue`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedOutTo {
    pub venue: String,
}

/// An event may be checked out only when it is not checked out already (`checked_out_to`): a
/// second venue would play a second account of it.
pub fn may_check_out(checked_out_to: Option<&str>) -> Result<(), CheckedOutTo> {
    match checked_out_to {
        None => Ok(()),
        Some(venue) => Err(CheckedOutTo {
            venue: venue.to_owned(),
        }),
    }
}

/// The federation takes a write to an event only while it is not checked out: the venue's
/// account of it would otherwise be contradicted by a write it never saw.
pub fn may_write(checked_out_to: Option<&str>) -> Result<(), CheckedOutTo> {
    may_check_out(checked_out_to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_not_checked_out_is_checked_out_and_written() {
        assert_eq!(may_check_out(None), Ok(()));
        assert_eq!(may_write(None), Ok(()));
    }

    #[test]
    fn an_event_checked_out_refuses_a_second_venue_and_every_write_naming_its_venue() {
        let refused = CheckedOutTo {
            venue: "Casal de Gràcia".into(),
        };
        assert_eq!(may_check_out(Some("Casal de Gràcia")), Err(refused.clone()));
        assert_eq!(may_write(Some("Casal de Gràcia")), Err(refused));
    }
}
