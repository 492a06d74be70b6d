// @generated automatically by Diesel CLI.

pub mod pairing {
    diesel::table! {
        pairing.keep_apart_pairs (event_id, player_a, player_b) {
            event_id -> Uuid,
            player_a -> Uuid,
            player_b -> Uuid,
        }
    }

    diesel::table! {
        pairing.participants (event_id, entry_id) {
            event_id -> Uuid,
            entry_id -> Uuid,
            player_id -> Uuid,
            number -> Int4,
        }
    }

    diesel::table! {
        pairing.round_clock_actions (event_id, round, seq) {
            event_id -> Uuid,
            round -> Int4,
            seq -> Int4,
            at -> Timestamptz,
            action -> Jsonb,
            taken_by -> Uuid,
        }
    }

    diesel::table! {
        pairing.round_clock_notices (event_id, round, kind, announces) {
            event_id -> Uuid,
            round -> Int4,
            kind -> Text,
            announces -> Timestamptz,
            due_at -> Timestamptz,
            sent_at -> Timestamptz,
        }
    }

    diesel::table! {
        pairing.round_tables (event_id, round, number) {
            event_id -> Uuid,
            round -> Int4,
            number -> Int4,
            seats -> Jsonb,
            explanation -> Jsonb,
        }
    }

    diesel::table! {
        pairing.rounds (event_id, number) {
            event_id -> Uuid,
            number -> Int4,
            stage -> Text,
            seed -> Int8,
            figures -> Jsonb,
            drawn_at -> Timestamptz,
            drawn_by -> Uuid,
            format -> Text,
            byes -> Array<Nullable<Uuid>>,
            board_mode -> Text,
            partner_rules -> Nullable<Jsonb>,
            seed_chosen -> Bool,
            player_reporting -> Text,
            changed_by_hand -> Bool,
        }
    }

    diesel::allow_tables_to_appear_in_same_query!(
        keep_apart_pairs,
        participants,
        round_clock_actions,
        round_clock_notices,
        round_tables,
        rounds,
    );
}
