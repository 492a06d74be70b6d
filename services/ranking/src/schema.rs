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
        ranking.entry_versions (event_id) {
            event_id -> Uuid,
            version -> Int8,
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
            finished -> Bool,
        }
    }

    diesel::table! {
        ranking.events (id) {
            id -> Uuid,
            body -> Jsonb,
            changed_at -> Timestamptz,
            starts_on -> Date,
        }
    }

    diesel::table! {
        ranking.feeds (name) {
            name -> Text,
            next -> Text,
            caught_up_at -> Nullable<Timestamptz>,
            failing_since -> Nullable<Timestamptz>,
            last_error -> Nullable<Text>,
            read_through -> Int8,
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
        ranking.merges (player_id) {
            player_id -> Uuid,
            merged_into -> Uuid,
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
        ranking.rating_history (played_on, event_id, round, table_number, player_id) {
            played_on -> Date,
            event_id -> Uuid,
            round -> Int4,
            table_number -> Int4,
            player_id -> Uuid,
            mu_before -> Float8,
            sigma_before -> Float8,
            mu_after -> Float8,
            sigma_after -> Float8,
        }
    }

    diesel::table! {
        ranking.ratings (player_id) {
            player_id -> Uuid,
            mu -> Float8,
            sigma -> Float8,
            rating -> Float8,
            games -> Int4,
        }
    }

    diesel::table! {
        ranking.ratings_stale (event_id) {
            event_id -> Uuid,
            from_round -> Int4,
            marked -> Int8,
            as_of -> Timestamptz,
            pending_registration -> Nullable<Int8>,
            pending_results -> Nullable<Int8>,
        }
    }

    diesel::table! {
        ranking.ratings_stale_games (event_id, round, table_number) {
            event_id -> Uuid,
            round -> Int4,
            table_number -> Int4,
            marked -> Int8,
            as_of -> Timestamptz,
            pending_registration -> Nullable<Int8>,
            pending_results -> Nullable<Int8>,
        }
    }

    diesel::table! {
        ranking.ratings_as_of (only_row) {
            only_row -> Bool,
            as_of -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.season_declines (season_id, player_id) {
            season_id -> Uuid,
            player_id -> Uuid,
            declined_at -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.season_events (season_id, event_id) {
            season_id -> Uuid,
            event_id -> Uuid,
        }
    }

    diesel::table! {
        ranking.season_inputs (event_id) {
            event_id -> Uuid,
            body -> Text,
            as_of -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.season_rows (season_id, player_id) {
            season_id -> Uuid,
            player_id -> Uuid,
            region_id -> Nullable<Uuid>,
            body -> Text,
            summary -> Text,
            csv -> Text,
            digest -> Int8,
        }
    }

    diesel::table! {
        ranking.season_views (season_id) {
            season_id -> Uuid,
            etag -> Text,
            as_of -> Timestamptz,
            qualified -> Text,
            players -> Array<Uuid>,
            ranks -> Array<Int4>,
        }
    }

    diesel::table! {
        ranking.seasons (id) {
            id -> Uuid,
            name -> Text,
            region_id -> Nullable<Uuid>,
            starts_on -> Date,
            ends_on -> Date,
            scoring -> Jsonb,
            qualification -> Nullable<Jsonb>,
            created_at -> Timestamptz,
            changed_at -> Timestamptz,
        }
    }

    diesel::table! {
        ranking.seasons_stale (season_id) {
            season_id -> Uuid,
            marked -> Int8,
            pending_registration -> Nullable<Int8>,
            pending_results -> Nullable<Int8>,
            pending_ranking -> Nullable<Int8>,
        }
    }

    diesel::table! {
        ranking.stale_views (event_id) {
            event_id -> Uuid,
            marked -> Int8,
            pending_registration -> Nullable<Int8>,
            pending_results -> Nullable<Int8>,
        }
    }

    diesel::joinable!(season_declines -> seasons (season_id));
    diesel::joinable!(season_events -> seasons (season_id));

    diesel::allow_tables_to_appear_in_same_query!(
        entries,
        entry_versions,
        event_views,
        events,
        feeds,
        known_results,
        merges,
        players,
        rating_history,
        ratings,
        ratings_as_of,
        ratings_stale,
        ratings_stale_games,
        season_declines,
        season_events,
        season_inputs,
        season_rows,
        season_views,
        seasons,
        seasons_stale,
        stale_views,
    );
}
