// @generated automatically by Diesel CLI.

diesel::table! {
    idempotency_keys (api_key_id, key) {
        api_key_id -> Uuid,
        key -> Text,
        request_hash -> Bytea,
        status -> Int4,
        response -> Jsonb,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    outbox (id) {
        id -> Uuid,
        event_type -> Text,
        event_id -> Uuid,
        payload -> Jsonb,
        occurred_at -> Timestamptz,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        last_error -> Nullable<Text>,
        dead_at -> Nullable<Timestamptz>,
    }
}

diesel::allow_tables_to_appear_in_same_query!(idempotency_keys, outbox,);
