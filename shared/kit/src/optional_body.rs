//! A JSON body that may be left out: no body, `null` and `{}` all mean the type's default.

use crate::ApiError;
use crate::idempotency::Fingerprint;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use futures_util::future::LocalBoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// An optional JSON body of type `T`.
#[derive(Debug, Clone, Default)]
pub struct OptionalBody<T>(pub T);

impl<T: Default + DeserializeOwned> OptionalBody<T> {
    /// Parses `bytes`: blank or `null` is the default; text that is not JSON is 400, JSON of
    /// the wrong shape 422.
    pub fn parse(bytes: &[u8]) -> Result<Self, ApiError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalBody(T::default()));
        }
        match serde_json::from_slice::<Option<T>>(bytes) {
            Ok(value) => Ok(OptionalBody(value.unwrap_or_default())),
            Err(e) if e.is_syntax() || e.is_eof() => Err(ApiError::BadRequest(format!(
                "the body is not valid JSON: {e}"
            ))),
            Err(e) => Err(ApiError::field(
                "body",
                crate::problem::ErrorCode::InvalidJson,
                e.to_string(),
            )),
        }
    }
}

impl<T: Default + DeserializeOwned + 'static> FromRequest for OptionalBody<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let bytes = web::Bytes::from_request(req, payload);
        Box::pin(async move { Ok(OptionalBody::parse(&bytes.await?)?) })
    }
}

impl<T: Serialize> Fingerprint for OptionalBody<T> {
    fn fingerprint(&self) -> Vec<u8> {
        serde_json::to_vec(&self.0).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq, serde::Deserialize)]
    struct Draw {
        seed: Option<u64>,
    }

    #[test]
    fn nothing_null_and_an_empty_object_are_the_default() {
        for body in ["", "  ", "null", "{}"] {
            assert_eq!(
                OptionalBody::<Draw>::parse(body.as_bytes()).unwrap().0,
                Draw::default()
            );
        }
        assert_eq!(
            OptionalBody::<Draw>::parse(b"{\"seed\": 7}")
                .unwrap()
                .0
                .seed,
            Some(7)
        );
    }

    #[test]
    fn broken_json_is_400_and_the_wrong_shape_422() {
        use actix_web::ResponseError;
        let status = |body: &str| {
            OptionalBody::<Draw>::parse(body.as_bytes())
                .unwrap_err()
                .status_code()
                .as_u16()
        };
        assert_eq!(status("{"), 400);
        assert_eq!(status("{\"seed\": \"x\"}"), 422);
    }
}
