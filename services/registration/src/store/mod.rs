//! The registration schema: diesel queries and the rows they read, one module per resource.
//! Handlers decide; these read and write.

pub mod api_keys;
pub mod changes;
pub mod checkouts;
pub mod dead_letters;
pub mod duplicates;
pub mod entries;
pub mod events;
pub mod inbox;
pub mod people;
pub mod pins;
pub mod venue_copy;
pub mod webhooks;

diesel::define_sql_function! {
    /// The registration schema's `fold_name`: lower case without accents ("José" → "jose").
    fn fold_name(name: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

diesel::define_sql_function! {
    /// PostgreSQL's `strpos`: where `needle` starts in `haystack` (1-based), 0 if nowhere.
    fn strpos(haystack: diesel::sql_types::Text, needle: diesel::sql_types::Text) -> diesel::sql_types::Integer;
}
