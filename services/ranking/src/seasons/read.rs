//! A season's stored views, read as served: a page of the table is one query, whose rows come
//! pre-serialized and are only joined together; nothing is computed or serialized again.

use super::views::CSV_HEADER;
use crate::store::FEED_FAILING;
use catan_kit::ApiError;
use catan_kit::conditional::etag_of;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use uuid::Uuid;

/// How a season's table is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Json,
    /// JSON rows without their per-event results.
    Summary,
    /// One line a player, under [`CSV_HEADER`].
    Csv,
}

/// A stored view as served: its body, its validator, how many rows the page holds, and whether a
/// producer cannot be read just now.
pub struct Served {
    pub body: String,
    pub etag: String,
    pub rows: usize,
    pub behind: bool,
}

#[derive(QueryableByName)]
struct PageRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    etag: String,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    as_of: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    behind: bool,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    joined: String,
}

impl Format {
    /// The stored column each row is served from.
    fn column(self) -> &'static str {
        match self {
            Format::Json => "body",
            Format::Summary => "summary",
            Format::Csv => "csv",
        }
    }
}

/// The validator of a page: the season's views' `ETag` and what the page asks for.
fn page_etag_of(
    season_etag: &str,
    region: Option<Uuid>,
    (limit, offset): (i64, i64),
    format: Format,
) -> String {
    let region = region.map_or_else(String::new, |r| r.to_string());
    let column = format.column();
    etag_of(format!("{season_etag} {region} {limit} {offset} {column}").as_bytes())
}

#[derive(QueryableByName)]
struct EtagRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    etag: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    behind: bool,
}

/// A page's `ETag`, and whether a producer cannot be read just now: what a read needs to answer
/// `304`, or to serve a page it has cached, without joining the page's rows. `None` for an unknown
/// season.
pub fn page_etag(
    conn: &mut PgConnection,
    season_id: Uuid,
    region: Option<Uuid>,
    bounds: (i64, i64),
    format: Format,
) -> Result<Option<(String, bool)>, ApiError> {
    let row: Option<EtagRow> = diesel::sql_query(format!(
        "SELECT etag, {FEED_FAILING} AS behind FROM season_views WHERE season_id = $1"
    ))
    .bind::<diesel::sql_types::Uuid, _>(season_id)
    .get_result(conn)
    .optional()?;
    Ok(row.map(|row| (page_etag_of(&row.etag, region, bounds, format), row.behind)))
}

/// SQL for a stored season row (`row`, a JSON object or a CSV line stored without the rank that
/// leads it) with its rank (`rank`) put back in front.
pub fn with_rank(rank: &str, row: &str, csv: bool) -> String {
    if csv {
        format!("{rank} || ',' || {row}")
    } else {
        format!("'{{\"rank\":' || {rank} || ',' || {row}")
    }
}

/// A page of a season's table, of one region's players if asked (they keep their season-wide
/// rank); `None` for an unknown season.
pub fn standings(
    conn: &mut PgConnection,
    season_id: Uuid,
    region: Option<Uuid>,
    bounds: (i64, i64),
    format: Format,
) -> Result<Option<Served>, ApiError> {
    use diesel::sql_types::Text;
    use diesel::sql_types::{BigInt, Nullable, Uuid as SqlUuid};
    let csv = format == Format::Csv;
    // One of three fixed names.
    let column = format.column();
    let (limit, offset) = bounds;
    // Rows are stored without their ranks, and the table's order (each place's player and
    // rank) with the season's view: a page takes its places from the order and puts each rank
    // back in front of its row.
    let ranked = with_rank("o.player_rank", &format!("r.{column}"), csv);
    // A page of the whole table takes only its slice of the order; a region's page goes down the
    // order until it has its rows.
    let order = if region.is_none() {
        // Array subscripts are 32-bit; no table reaches the clamp, and past its end a slice is
        // empty.
        "unnest(v.players[least($4, 2147480000) + 1 : least($4, 2147480000) + $3], \
                v.ranks[least($4, 2147480000) + 1 : least($4, 2147480000) + $3]) \
            WITH ORDINALITY AS o(player, player_rank, place)"
    } else {
        "unnest(v.players, v.ranks) WITH ORDINALITY AS o(player, player_rank, place)"
    };
    let skip = if region.is_none() { "" } else { "OFFSET $4" };
    let page: Option<PageRow> = diesel::sql_query(format!(
        "WITH page AS (SELECT o.place, {ranked} AS served \
             FROM season_views v CROSS JOIN LATERAL {order} \
             JOIN season_rows r ON r.season_id = $1 AND r.player_id = o.player \
             WHERE v.season_id = $1 AND ($2::uuid IS NULL OR r.region_id = $2) \
             ORDER BY o.place LIMIT $3 {skip}) \
         SELECT v.etag, v.as_of, \
             {FEED_FAILING} AS behind, \
             (SELECT count(*) FROM page) AS n, \
             coalesce((SELECT string_agg(served, $5 ORDER BY place) FROM page), '') AS joined \
         FROM season_views v WHERE v.season_id = $1"
    ))
    .bind::<SqlUuid, _>(season_id)
    .bind::<Nullable<SqlUuid>, _>(region)
    .bind::<BigInt, _>(limit)
    .bind::<BigInt, _>(offset)
    .bind::<Text, _>(if csv { "\n" } else { "," })
    .get_result(conn)
    .optional()?;
    let Some(page) = page else {
        return Ok(None);
    };
    let rows = usize::try_from(page.n).unwrap_or(0);
    let body = if csv {
        let mut body = String::with_capacity(CSV_HEADER.len() + page.joined.len() + 2);
        body.push_str(CSV_HEADER);
        body.push('\n');
        if rows > 0 {
            body.push_str(&page.joined);
            body.push('\n');
        }
        body
    } else {
        let as_of = serde_json::to_string(&page.as_of).map_err(ApiError::internal)?;
        format!(
            "{{\"season_id\":\"{season_id}\",\"as_of\":{as_of},\"rows\":[{}]}}",
            page.joined
        )
    };
    Ok(Some(Served {
        body,
        etag: page_etag_of(&page.etag, region, bounds, format),
        rows,
        behind: page.behind,
    }))
}

#[derive(QueryableByName)]
struct QualifiedRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    etag: String,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    as_of: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Text)]
    qualified: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    behind: bool,
}

/// A season's qualified players as stored, with the last change they include; `None` for an
/// unknown season.
pub fn qualified(
    conn: &mut PgConnection,
    season_id: Uuid,
) -> Result<Option<(Served, DateTime<Utc>)>, ApiError> {
    let row: Option<QualifiedRow> = diesel::sql_query(format!(
        "SELECT etag, as_of, qualified, {FEED_FAILING} AS behind \
         FROM season_views WHERE season_id = $1"
    ))
    .bind::<diesel::sql_types::Uuid, _>(season_id)
    .get_result(conn)
    .optional()?;
    Ok(row.map(|row| {
        let served = Served {
            etag: etag_of(format!("{} qualified", row.etag).as_bytes()),
            rows: 0,
            body: row.qualified,
            behind: row.behind,
        };
        (served, row.as_of)
    }))
}
