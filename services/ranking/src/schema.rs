// @generated automatically by Diesel CLI.

pub mod ranking {
    diesel::table! {
        ranking.entries (id) {
            id -> Uuid,
            event_id -> Uuid,
            body -> Jsonb,
            changed_at -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.event_views (event_id) {
            event_id -> Uuid,
            standings -> Text,
            standings_etag -> Text,
            placements -> Text,
            placements_etag -> Text,
            as_of -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.events (id) {
            id -> Uuid,
            body -> Jsonb,
            changed_at -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.feeds (name) {
            name -> Text,
            next -> Text,
            caught_up_at -> Nullable<Timestamptz>,
            failing_since -> Nullable<Timestamptz>,
            last_error -> Nullable<Text>,
        }
    }

    diesel::table! {
        ranking.known_results (event_id, round, table_number) {
            event_id -> Uuid,
            round -> Int4,
            table_number -> Int4,
            stage -> Text,
            seq -> Int8,
            result -> Jsonb,
        }
    }

    diesel::table! {
        ranking.players (id) {
            id -> Uuid,
            body -> Jsonb,
            changed_at -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.stale_views (event_id) {
            event_id -> Uuid,
            marked -> Int8,
        }
    }

    diesel::allow_tables_to_appear_in_same_query!(
        entries,
        event_views,
        events,
        feeds,
        known_results,
        players,
        stale_views,
    );
}
