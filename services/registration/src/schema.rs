// @generated automatically by Diesel CLI.

pub mod registration {
    pub mod sql_types {
        #[derive(diesel::sql_types::SqlType)]
        #[diesel(postgres_type(name = "xid8", schema = "pg_catalog"))]
        pub struct Xid8;
    }

    diesel::table! {
        registration.api_keys (id) {
            id -> Uuid,
            name -> Text,
            role -> Text,
            event_ids -> Nullable<Array<Nullable<Uuid>>>,
            secret_sha256 -> Bytea,
            created_at -> Timestamptz,
            revoked_at -> Nullable<Timestamptz>,
            region_ids -> Nullable<Array<Nullable<Uuid>>>,
        }
    }

    diesel::table! {
        use diesel::sql_types::*;
        use super::sql_types::Xid8;

        registration.changes (txid, seq) {
            txid -> Xid8,
            seq -> Int8,
            kind -> Text,
            id -> Uuid,
            changed_at -> Timestamptz,
        }
    }

    diesel::table! {
        registration.entries (id) {
            id -> Uuid,
            event_id -> Uuid,
            player_id -> Nullable<Uuid>,
            status -> Text,
            status_reason -> Nullable<Text>,
            created_at -> Timestamptz,
            team_name -> Nullable<Text>,
            left_at -> Nullable<Timestamptz>,
        }
    }

    diesel::table! {
        registration.entry_players (event_id, player_id) {
            event_id -> Uuid,
            entry_id -> Uuid,
            player_id -> Uuid,
            position -> Int4,
            pin_sha256 -> Nullable<Bytea>,
        }
    }

    diesel::table! {
        registration.events (id) {
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
            starts_on -> Date,
            ends_on -> Date,
            venue -> Nullable<Text>,
            search_name -> Text,
            practice -> Bool,
            play_started_at -> Nullable<Timestamptz>,
            play_finished_at -> Nullable<Timestamptz>,
            minutes_per_game -> Nullable<Int4>,
            language -> Text,
            player_reporting -> Text,
            players_may_drop -> Bool,
            checkout_venue -> Nullable<Text>,
            checkout_public_key -> Nullable<Text>,
            checked_out_at -> Nullable<Timestamptz>,
        }
    }

    diesel::table! {
        registration.pin_key (id) {
            id -> Bool,
            secret -> Bytea,
            created_at -> Timestamptz,
        }
    }

    diesel::table! {
        registration.players (id) {
            id -> Uuid,
            name -> Text,
            region_id -> Nullable<Uuid>,
            created_at -> Timestamptz,
            search_name -> Nullable<Text>,
            merged_into -> Nullable<Uuid>,
        }
    }

    diesel::table! {
        registration.regions (id) {
            id -> Uuid,
            name -> Text,
            created_at -> Timestamptz,
        }
    }

    diesel::table! {
        registration.signing_keys (kid) {
            kid -> Text,
            seed -> Bytea,
            created_at -> Timestamptz,
        }
    }

    diesel::table! {
        registration.webhook_attempts (delivery_id, number) {
            delivery_id -> Uuid,
            number -> Int4,
            attempted_at -> Timestamptz,
            status_code -> Nullable<Int4>,
            error -> Nullable<Text>,
            duration_ms -> Int8,
        }
    }

    diesel::table! {
        registration.webhook_deliveries (id) {
            id -> Uuid,
            webhook_id -> Uuid,
            message_id -> Uuid,
            status -> Text,
            attempts -> Int4,
            next_attempt_at -> Nullable<Timestamptz>,
            last_status_code -> Nullable<Int4>,
            last_error -> Nullable<Text>,
            created_at -> Timestamptz,
            delivered_at -> Nullable<Timestamptz>,
            dead_at -> Nullable<Timestamptz>,
        }
    }

    diesel::table! {
        registration.webhook_messages (id) {
            id -> Uuid,
            event_type -> Text,
            event_id -> Uuid,
            payload -> Jsonb,
            occurred_at -> Timestamptz,
            received_at -> Timestamptz,
        }
    }

    diesel::table! {
        registration.webhooks (id) {
            id -> Uuid,
            url -> Text,
            event_types -> Array<Nullable<Text>>,
            event_ids -> Nullable<Array<Nullable<Uuid>>>,
            secret -> Text,
            created_by -> Uuid,
            created_at -> Timestamptz,
            deleted_at -> Nullable<Timestamptz>,
        }
    }

    diesel::joinable!(entries -> events (event_id));
    diesel::joinable!(entries -> players (player_id));
    diesel::joinable!(entry_players -> entries (entry_id));
    diesel::joinable!(entry_players -> players (player_id));
    diesel::joinable!(events -> regions (region_id));
    diesel::joinable!(players -> regions (region_id));
    diesel::joinable!(webhook_attempts -> webhook_deliveries (delivery_id));
    diesel::joinable!(webhook_deliveries -> webhook_messages (message_id));
    diesel::joinable!(webhook_deliveries -> webhooks (webhook_id));

    diesel::allow_tables_to_appear_in_same_query!(
        api_keys,
        changes,
        entries,
        entry_players,
        events,
        pin_key,
        players,
        regions,
        signing_keys,
        webhook_attempts,
        webhook_deliveries,
        webhook_messages,
        webhooks,
    );
}
