//! Batch bodies: a JSON body larger than the services' limit, for the few routes that take many
//! items at once (a round's results sheets), with the same problems as any other JSON body.

use crate::idempotency::Fingerprint;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use futures_util::future::LocalBoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The largest body a batch route accepts (every other route: [`crate::server::BODY_LIMIT_BYTES`]).
pub const BATCH_BODY_LIMIT_BYTES: usize = 1024 * 1024;

/// A JSON body of up to [`BATCH_BODY_LIMIT_BYTES`].
#[derive(Debug)]
pub struct BatchJson<T>(pub T);

impl<T> std::ops::Deref for BatchJson<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for BatchJson<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = web::JsonBody::<T>::new(req, payload, None, false).limit(BATCH_BODY_LIMIT_BYTES);
        Box::pin(async move {
            body.await
                .map(BatchJson)
                .map_err(|e| crate::problem::json_problem(e, BATCH_BODY_LIMIT_BYTES))
        })
    }
}

impl<T: Serialize> Fingerprint for BatchJson<T> {
    fn fingerprint(&self) -> Vec<u8> {
        serde_json::to_vec(&self.0).unwrap_or_default()
    }
}
