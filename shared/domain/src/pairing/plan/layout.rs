//! The slot layout of a round (tables of 4 first, then of 3) and the seat orders of a table.

use crate::seating::TableSizes;

pub(super) struct Layout {
    pub(super) table_start: Vec<usize>,
    pub(super) table_size: Vec<usize>,
    pub(super) slot_table: Vec<u32>,
}

impl Layout {
    pub(super) fn new(sizes: TableSizes) -> Layout {
        let mut table_start = Vec::new();
        let mut table_size = Vec::new();
        let mut slot_table = Vec::new();
        for (table, size) in (0u32..).zip(sizes.in_order()) {
            table_start.push(slot_table.len());
            table_size.push(size);
            slot_table.extend(std::iter::repeat_n(table, size));
        }
        Layout {
            table_start,
            table_size,
            slot_table,
        }
    }
}

/// Orders of a table's seats: every permutation of `0..size` (at most 4! = 24).
pub(super) fn seat_orders(size: usize) -> Vec<Vec<usize>> {
    let mut orders = vec![Vec::new()];
    for next in 0..size {
        orders = orders
            .into_iter()
            .flat_map(|order: Vec<usize>| {
                (0..=order.len()).map(move |at| {
                    let mut longer = order.clone();
                    longer.insert(at, next);
                    longer
                })
            })
            .collect();
    }
    orders
}
