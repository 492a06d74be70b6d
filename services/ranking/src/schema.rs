// @generated automatically by Diesel CLI.

pub mod ranking {
    diesel::table! {
        ranking.feed_cursors (event_id) {
            event_id -> Uuid,
            last_seq -> Int8,
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

    diesel::allow_tables_to_appear_in_same_query!(feed_cursors, known_results,);
}
