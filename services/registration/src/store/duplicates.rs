//! The players who may be one person: those whose name another player of their region has.

use crate::schema::registration::{entry_players, events};
use catan_api::{EnteredEvent, Player};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use std::collections::HashMap;
use uuid::Uuid;

#[derive(QueryableByName)]
struct SameNamedRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    region_id: Option<Uuid>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
}

/// The players not merged, of `regions` (every region's, and those of none, when `None`), whose
/// folded name (`search_name`, case and accents aside) another such player of their region has;
/// each with the events he has an entry in, by first day.
pub fn same_named(
    conn: &mut PgConnection,
    regions: Option<&[Uuid]>,
) -> QueryResult<Vec<(Player, Vec<EnteredEvent>)>> {
    let rows: Vec<SameNamedRow> = diesel::sql_query(
        // One scan: a window counts each name's players in their region (those of no region
        // are one partition, as they pair among themselves).
        "SELECT id, name, region_id, created_at FROM (
             SELECT id, name, region_id, created_at, search_name,
                    count(*) OVER (PARTITION BY region_id, search_name) AS namesakes
             FROM players
             WHERE merged_into IS NULL AND ($1 IS NULL OR region_id = ANY($1))
         ) named
         WHERE namesakes > 1
         ORDER BY search_name, created_at, id",
    )
    .bind::<Nullable<Array<SqlUuid>>, _>(regions.map(<[Uuid]>::to_vec))
    .load(conn)?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let entered: Vec<(Uuid, Uuid, String)> = entry_players::table
        .inner_join(events::table.on(events::id.eq(entry_players::event_id)))
        .filter(entry_players::player_id.eq_any(&ids))
        .order((events::starts_on, events::name, events::id))
        .select((entry_players::player_id, events::id, events::name))
        .load(conn)?;
    let mut events_of: HashMap<Uuid, Vec<EnteredEvent>> = HashMap::new();
    for (player, id, name) in entered {
        events_of
            .entry(player)
            .or_default()
            .push(EnteredEvent { id, name });
    }
    Ok(rows
        .into_iter()
        .map(|row| {
            let events = events_of.remove(&row.id).unwrap_or_default();
            let player = Player {
                id: row.id,
                name: row.name,
                region_id: row.region_id,
                merged_into: None,
                created_at: row.created_at,
            };
            (player, events)
        })
        .collect())
}
