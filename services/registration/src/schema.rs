// The tables of the `registration` schema (written to match migrations/registration).

diesel::table! {
    regions (id) {
        id -> Uuid,
        name -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    players (id) {
        id -> Uuid,
        name -> Text,
        region_id -> Nullable<Uuid>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    events (id) {
        id -> Uuid,
        name -> Text,
        region_id -> Nullable<Uuid>,
        format -> Text,
        qualifying_rounds -> Int4,
        small_field_playoff -> Text,
        created_at -> Timestamptz,
                partner_rules -> Nullable<Jsonb>,
        board_mode -> Text,
        standings_count -> Text,
    }
}

diesel::table! {
    entries (id) {
        id -> Uuid,
        event_id -> Uuid,
        player_id -> Nullable<Uuid>,
        status -> Text,
        status_reason -> Nullable<Text>,
        created_at -> Timestamptz,
        team_name -> Nullable<Text>,
    }
}

diesel::table! {
    entry_players (event_id, player_id) {
        event_id -> Uuid,
        entry_id -> Uuid,
                player_id -> Uuid,
        position -> Int4,
        pin_sha256 -> Nullable<Bytea>,
        failed_pin_attempts -> Int4,
        pin_locked_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Uuid,
        name -> Text,
        role -> Text,
        event_ids -> Nullable<Array<Uuid>>,
        secret_sha256 -> Bytea,
        created_at -> Timestamptz,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    signing_keys (kid) {
        kid -> Text,
        seed -> Bytea,
        created_at -> Timestamptz,
    }
}

diesel::joinable!(entry_players -> players (player_id));
diesel::joinable!(entry_players -> entries (entry_id));
diesel::joinable!(entries -> events (event_id));
diesel::allow_tables_to_appear_in_same_query!(
    regions,
    players,
    events,
    entries,
    entry_players,
    api_keys,
    signing_keys
);
