// The tables of the `ranking` schema (written to match migrations/ranking).

diesel::table! {
    known_results (event_id, round, table_number) {
        event_id -> Uuid,
        round -> Int4,
        table_number -> Int4,
        stage -> Text,
        seq -> Int8,
        result -> Jsonb,
    }
}

diesel::table! {
    feed_cursors (event_id) {
        event_id -> Uuid,
        last_seq -> Int8,
    }
}

diesel::allow_tables_to_appear_in_same_query!(known_results, feed_cursors);
