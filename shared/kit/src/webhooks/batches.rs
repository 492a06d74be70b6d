//! How the relay cuts claimed outbox events into calls to registration's inbox, and what it does
//! when a call is refused for its body: pure, so that no event can hold back the others.

use std::ops::Range;

/// The events (by their serialized sizes, in order) cut into consecutive batches of at most
/// `max_count` events and `max_bytes` bytes: an event larger than `max_bytes` travels alone.
pub fn batches(sizes: &[usize], max_count: usize, max_bytes: usize) -> Vec<Range<usize>> {
    let max_count = max_count.max(1);
    let mut cut = Vec::new();
    let mut start = 0;
    let mut bytes = 0usize;
    for (i, size) in sizes.iter().enumerate() {
        let full = i - start == max_count || bytes.saturating_add(*size) > max_bytes;
        if i > start && full {
            cut.push(start..i);
            start = i;
            bytes = 0;
        }
        bytes = bytes.saturating_add(*size);
    }
    if start < sizes.len() {
        cut.push(start..sizes.len());
    }
    cut
}

/// What registration answered to one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Stored: the events may leave the outbox.
    Taken,
    /// Refused for what the body holds (413, 400, 415, 422): one of its events is at fault.
    RefusedBody(String),
    /// Anything else (unreachable, 5xx, a wrong key): no call will do better just now.
    Failed(String),
}

/// Whether an HTTP status refuses the body itself rather than the call: then a smaller body may
/// be taken.
pub fn refuses_the_body(status: u16) -> bool {
    matches!(status, 400 | 413 | 415 | 422)
}

/// Sends the `batches` of events with `send`, halving a batch refused for its body until the event
/// at fault is alone; once a call fails otherwise, the events not yet sent fail with it. Answers,
/// for each of the `count` events, `None` if it was taken, else why not.
pub async fn send_halving<F, Sent>(
    count: usize,
    batches: Vec<Range<usize>>,
    mut send: F,
) -> Vec<Option<String>>
where
    F: FnMut(Range<usize>) -> Sent,
    Sent: Future<Output = Answer>,
{
    let mut failed: Vec<Option<String>> = vec![Some("not sent".into()); count];
    // A stack, the first batch on top: halves are sent in order, the first half first.
    let mut todo: Vec<Range<usize>> = batches.into_iter().rev().collect();
    while let Some(batch) = todo.pop() {
        match send(batch.clone()).await {
            Answer::Taken => batch.for_each(|i| failed[i] = None),
            Answer::RefusedBody(why) if batch.len() > 1 => {
                let middle = batch.start + batch.len() / 2;
                todo.push(middle..batch.end);
                todo.push(batch.start..middle);
                tracing::debug!(error = %why, events = batch.len(), "batch refused; halving it");
            }
            Answer::RefusedBody(why) => batch.for_each(|i| failed[i] = Some(why.clone())),
            Answer::Failed(why) => {
                for i in batch.chain(todo.drain(..).flatten()) {
                    failed[i] = Some(why.clone());
                }
            }
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::ready;

    #[test]
    fn events_fill_a_batch_up_to_the_count_and_the_bytes() {
        assert_eq!(batches(&[10, 10, 10, 10, 10], 2, 1000), [0..2, 2..4, 4..5]);
        assert_eq!(batches(&[40, 40, 40, 10, 60], 100, 100), [0..2, 2..4, 4..5]);
        // Exactly the cap fits.
        assert_eq!(batches(&[50, 50, 50], 100, 100), [0..2, 2..3]);
        assert!(batches(&[], 100, 100).is_empty());
    }

    #[test]
    fn an_event_larger_than_the_cap_travels_alone() {
        assert_eq!(batches(&[10, 500, 10, 10], 100, 100), [0..1, 1..2, 2..4]);
        let alone = batches(&[500], 100, 100);
        assert_eq!((alone.len(), &alone[0]), (1, &(0..1)));
        assert_eq!(batches(&[500, 600], 100, 100), [0..1, 1..2]);
    }

    #[test]
    fn only_refusals_of_the_body_are_split() {
        for status in [400, 413, 415, 422] {
            assert!(refuses_the_body(status), "{status}");
        }
        for status in [401, 403, 404, 409, 429, 500, 502, 503] {
            assert!(!refuses_the_body(status), "{status}");
        }
    }

    /// Sends as registration would with a body limit of `limit` bytes, logging each call.
    async fn send_to_a_limited_inbox(
        sizes: &[usize],
        limit: usize,
        cut: Vec<Range<usize>>,
    ) -> (Vec<Option<String>>, Vec<Range<usize>>) {
        let mut calls = Vec::new();
        let outcome = send_halving(sizes.len(), cut, |batch: Range<usize>| {
            calls.push(batch.clone());
            ready(if sizes[batch].iter().sum::<usize>() > limit {
                Answer::RefusedBody("413".into())
            } else {
                Answer::Taken
            })
        })
        .await;
        (outcome, calls)
    }

    #[tokio::test]
    async fn a_refused_batch_is_halved_until_the_event_at_fault_is_alone() {
        // Event 5 is larger than the inbox takes; the others go through.
        let sizes = [10, 10, 10, 10, 10, 90, 10, 10];
        let (outcome, calls) =
            send_to_a_limited_inbox(&sizes, 64, batches(&sizes, 100, 1000)).await;
        let refused: Vec<usize> = (0..8).filter(|i| outcome[*i].is_some()).collect();
        assert_eq!(refused, [5]);
        assert_eq!(outcome[5].as_deref(), Some("413"));
        assert_eq!(calls, [0..8, 0..4, 4..8, 4..6, 4..5, 5..6, 6..8]);
    }

    #[tokio::test]
    async fn every_event_the_inbox_can_take_is_taken() {
        let sizes = [70, 10, 10, 70, 70, 10];
        let (outcome, _) = send_to_a_limited_inbox(&sizes, 64, batches(&sizes, 100, 1000)).await;
        let refused: Vec<usize> = (0..6).filter(|i| outcome[*i].is_some()).collect();
        assert_eq!(refused, [0, 3, 4]);
    }

    #[tokio::test]
    async fn once_a_call_fails_the_events_not_yet_sent_fail_with_it() {
        let mut calls = 0;
        let outcome = send_halving(5, vec![0..2, 2..4, 4..5], |_: Range<usize>| {
            calls += 1;
            ready(if calls == 1 {
                Answer::Taken
            } else {
                Answer::Failed("connection refused".into())
            })
        })
        .await;
        assert_eq!(calls, 2, "no call after the one that failed");
        assert_eq!(outcome[..2], [None, None]);
        let why = Some("connection refused".to_string());
        assert_eq!(outcome[2..], [why.clone(), why.clone(), why]);
    }
}
