//! Hand-written SQL that each connection prepares once. Diesel parses and plans every
//! `sql_query` anew (it cannot know the text is the same each time); a statement the hot path
//! runs on every write (a first results sheet, an idempotency key) is worth planning once.

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{HasSqlType, Untyped};
use diesel::{QueryResult, RunQueryDsl};
use std::marker::PhantomData;

/// A statement of fixed text with its bind values, kept prepared by each connection's statement
/// cache (keyed by its text and bind types). Load rows with `QueryableByName`, as `sql_query`.
/// Its parameters `$1`, `$2`, … must each appear once, in that order (diesel numbers the
/// placeholders itself as it puts the binds in).
pub struct PreparedSql {
    sql: &'static str,
    binds: Vec<Box<dyn BindValue>>,
}

impl PreparedSql {
    pub fn new(sql: &'static str) -> PreparedSql {
        PreparedSql {
            sql,
            binds: Vec::new(),
        }
    }

    /// Binds the next parameter (`$1`, `$2`, …) as SQL type `ST`.
    pub fn bind<ST, T>(mut self, value: T) -> PreparedSql
    where
        Pg: HasSqlType<ST>,
        T: ToSql<ST, Pg> + 'static,
        ST: 'static,
    {
        self.binds
            .push(Box::new(Bound::<ST, T>(value, PhantomData)));
        self
    }
}

trait BindValue {
    fn push<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()>;
}

struct Bound<ST, T>(T, PhantomData<ST>);

impl<ST, T> BindValue for Bound<ST, T>
where
    Pg: HasSqlType<ST>,
    T: ToSql<ST, Pg>,
{
    fn push<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_bind_param::<ST, T>(&self.0)
    }
}

impl QueryFragment<Pg> for PreparedSql {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let mut rest = self.sql;
        for (index, bind) in self.binds.iter().enumerate() {
            let placeholder = format!("${}", index + 1);
            let at = find_placeholder(rest, &placeholder).ok_or_else(|| {
                diesel::result::Error::QueryBuilderError(
                    format!("{placeholder} is not next in {:?}", self.sql).into(),
                )
            })?;
            out.push_sql(&rest[..at]);
            bind.push(&mut out)?;
            rest = &rest[at + placeholder.len()..];
        }
        out.push_sql(rest);
        Ok(())
    }
}

/// Where `placeholder` (`$3`) stands in `sql`, not as the start of a longer one (`$30`).
fn find_placeholder(sql: &str, placeholder: &str) -> Option<usize> {
    sql.match_indices(placeholder)
        .map(|(at, _)| at)
        .find(|&at| !sql[at + placeholder.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

/// No static id: the statement cache keys it by its text and bind types.
impl QueryId for PreparedSql {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for PreparedSql {
    type SqlType = Untyped;
}

impl<Conn> RunQueryDsl<Conn> for PreparedSql {}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::debug_query;
    use diesel::sql_types::{Integer, Text};

    #[test]
    fn binds_take_the_places_of_their_parameters_in_order() {
        let query = PreparedSql::new("SELECT $1 + 1, $2 || 'x' WHERE $3 = $10 + 0")
            .bind::<Integer, _>(1)
            .bind::<Text, _>("a")
            .bind::<Integer, _>(3);
        // Parameters past the binds stay text; `$1` is not taken for `$10`'s start.
        let sql = debug_query::<Pg, _>(&query).to_string();
        assert_eq!(
            sql,
            "SELECT $1 + 1, $2 || 'x' WHERE $3 = $10 + 0 -- binds: [1, \"a\", 3]"
        );
    }
}
