// @generated automatically by Diesel CLI.

diesel::table! {
    audit_log (id) {
        id -> Uuid,
        at -> Timestamptz,
        key_id -> Uuid,
        role -> Text,
        method -> Text,
        route -> Text,
        targets -> Jsonb,
        event_ids -> Array<Nullable<Uuid>>,
        region_ids -> Array<Nullable<Uuid>>,
        status -> Int4,
        venue -> Nullable<Text>,
        service -> Nullable<Text>,
    }
}

diesel::table! {
    event_checkouts (event_id) {
        event_id -> Uuid,
        venue -> Text,
        checked_out_at -> Timestamptz,
    }
}

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

diesel::allow_tables_to_appear_in_same_query!(audit_log, event_checkouts, idempotency_keys, outbox,);
