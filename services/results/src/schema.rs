// @generated automatically by Diesel CLI.

pub mod results {
    diesel::table! {
        results.confirmations (event_id, round, table_number, version, player_id) {
            event_id -> Uuid,
            round -> Int4,
            table_number -> Int4,
            version -> Int4,
            player_id -> Uuid,
            confirmed_at -> Timestamptz,
            on_behalf_by -> Nullable<Uuid>,
        }
    }

    diesel::table! {
        results.disputes (event_id, round, table_number, version, player_id) {
            event_id -> Uuid,
            round -> Int4,
            table_number -> Int4,
            version -> Int4,
            player_id -> Uuid,
            reason -> Text,
            created_at -> Timestamptz,
            resolved_by_version -> Nullable<Int4>,
        }
    }

    diesel::table! {
        results.result_versions (event_id, round, table_number, version) {
            event_id -> Uuid,
            round -> Int4,
            table_number -> Int4,
            version -> Int4,
            stage -> Text,
            round_tables -> Int4,
            seq -> Int8,
            sheet -> Jsonb,
            recorded_at -> Timestamptz,
            recorded_by -> Uuid,
            voided -> Bool,
        }
    }

    diesel::table! {
        results.results (event_id, round, table_number) {
            event_id -> Uuid,
            round -> Int4,
            table_number -> Int4,
            stage -> Text,
            round_tables -> Int4,
            version -> Int4,
            seq -> Int8,
            sheet -> Jsonb,
            recorded_at -> Timestamptz,
            recorded_by -> Uuid,
            txid -> Int8,
            voided -> Bool,
        }
    }

    diesel::allow_tables_to_appear_in_same_query!(
        confirmations,
        disputes,
        result_versions,
        results,
    );
}
