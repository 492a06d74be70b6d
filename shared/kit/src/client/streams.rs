//! The standings and clock streams a client holds open: a cap per address and one in all, each
//! place held by a [`StreamSlot`] until the stream ends.

use crate::ApiError;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// What a client over the stream cap is told to wait.
const STREAM_RETRY_SECONDS: u64 = 10;

/// The open streams, per client and in all.
pub(super) struct StreamCount {
    per_client: usize,
    total: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
    all: AtomicUsize,
}

impl StreamCount {
    /// At most `per_client` streams of one address, and `total` in all (each at least one).
    pub(super) fn new(per_client: usize, total: usize) -> Arc<StreamCount> {
        Arc::new(StreamCount {
            per_client: per_client.max(1),
            total: total.max(1),
            open: Mutex::new(HashMap::new()),
            all: AtomicUsize::new(0),
        })
    }

    pub(super) fn open(self: &Arc<Self>, addr: IpAddr) -> Result<StreamSlot, ApiError> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let full = |detail: String| ApiError::TooManyRequests {
            detail,
            retry_after_seconds: STREAM_RETRY_SECONDS,
            wrong_pins: false,
        };
        if self.all.load(Ordering::Relaxed) >= self.total {
            return Err(full(format!(
                "this server has {} standings streams open, its most; retry later",
                self.total
            )));
        }
        let mine = open.entry(addr).or_insert(0);
        if *mine >= self.per_client {
            return Err(full(format!(
                "this address has {} standings streams open, its most; close one first",
                self.per_client
            )));
        }
        *mine += 1;
        self.all.fetch_add(1, Ordering::Relaxed);
        Ok(StreamSlot {
            count: self.clone(),
            addr,
        })
    }
}

/// One open stream; dropping it (the stream ended) frees its place.
pub struct StreamSlot {
    count: Arc<StreamCount>,
    addr: IpAddr,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self
            .count
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(mine) = open.get_mut(&self.addr) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                open.remove(&self.addr);
            }
        }
        self.count.all.fetch_sub(1, Ordering::Relaxed);
    }
}
