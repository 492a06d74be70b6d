//! What a request of ranking waits for: the positions it carries, and the read model's progress.

use super::{Need, Progress};
use catan_api::Position;
use catan_kit::ApiError;
use catan_kit::db::PgPool;

/// What a request of ranking waits for before it answers: the writes it asks to read (its
/// `Catan-Position` headers and `position` query parameter, merged; 422 `invalid_position` for
/// one no write answered), and the read model's progress.
pub struct Waits {
    progress: actix_web::web::Data<Progress>,
    pool: PgPool,
    pub wanted: Position,
}

impl actix_web::FromRequest for Waits {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &actix_web::HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(waits_of(req))
    }
}

fn waits_of(req: &actix_web::HttpRequest) -> Result<Waits, ApiError> {
    let progress = req
        .app_data::<actix_web::web::Data<Progress>>()
        .cloned()
        .ok_or_else(|| ApiError::internal("no read model progress"))?;
    let pool = req
        .app_data::<actix_web::web::Data<crate::State>>()
        .map(|state| state.pool.clone())
        .ok_or_else(|| ApiError::internal("no state"))?;
    Ok(Waits {
        progress,
        pool,
        wanted: wanted_of(req)?,
    })
}

impl Waits {
    /// Waits until what `need` serves includes the writes the request asks to read.
    pub async fn until(&self, need: &Need) -> Result<(), ApiError> {
        self.progress.until(&self.pool, need, &self.wanted).await
    }

    /// What `find` finds once `need` includes the request's writes; when it finds nothing, what
    /// it finds once the follower has read the feeds again, so that what was made a moment ago
    /// is found rather than answered 404. A follower that does not read them again within the
    /// wait leaves the miss as it is: nothing says the thing exists, so a 404 and not a 503.
    pub async fn found<T, F, Fut>(&self, need: &Need, mut find: F) -> Result<Option<T>, ApiError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<Option<T>, ApiError>>,
    {
        self.until(need).await?;
        if let Some(found) = find().await? {
            return Ok(Some(found));
        }
        if self.progress.until_read_again().await {
            find().await
        } else {
            Ok(None)
        }
    }
}

fn wanted_of(req: &actix_web::HttpRequest) -> Result<Position, ApiError> {
    use catan_kit::problem::ErrorCode;
    let refused = |field: &str| {
        ApiError::field(
            field,
            ErrorCode::InvalidPosition,
            format!(
                "{field} must be a Catan-Position a write answered, or several separated by commas"
            ),
        )
    };
    let mut wanted = Position::default();
    for value in req.headers().get_all(catan_api::POSITION_HEADER) {
        let text = value
            .to_str()
            .map_err(|_| refused(catan_api::POSITION_HEADER))?;
        let position = Position::parse(text).map_err(|_| refused(catan_api::POSITION_HEADER))?;
        wanted = wanted.merge(position);
    }
    #[derive(serde::Deserialize)]
    struct Query {
        position: Option<String>,
    }
    if let Ok(query) = actix_web::web::Query::<Query>::from_query(req.query_string())
        && let Some(text) = &query.position
    {
        let position = Position::parse(text).map_err(|_| refused(catan_api::POSITION_QUERY))?;
        wanted = wanted.merge(position);
    }
    Ok(wanted)
}
