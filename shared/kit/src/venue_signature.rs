//! The signature of what a venue sends the federation (issue 34): a key pair made for one
//! checkout, whose private key stays at the venue and whose public key the federation keeps with
//! the checkout. A body is signed whole (Ed25519 over its bytes), the signature sent in
//! [`VENUE_SIGNATURE_HEADER`] as base64url without padding.

use crate::ApiError;
use crate::problem::ErrorCode;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, Signer, VerifyingKey};

pub use ed25519_dalek::SigningKey;

/// The header a venue's signed body carries its signature in.
pub const VENUE_SIGNATURE_HEADER: &str = "Catan-Venue-Signature";

/// A new key pair for a checkout: the signing key (the venue's, never sent) and the public key
/// as the federation is given it (base64url without padding).
pub fn new_venue_key() -> (SigningKey, String) {
    let key = SigningKey::from_bytes(&rand::random::<[u8; 32]>());
    let public_key = URL_SAFE_NO_PAD.encode(key.verifying_key().to_bytes());
    (key, public_key)
}

/// `body`'s signature by `key`, base64url without padding.
pub fn sign(key: &SigningKey, body: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(key.sign(body).to_bytes())
}

/// The public key `text` holds: 32 bytes of base64url without padding that make an Ed25519
/// key; otherwise a 422 on `field` (`invalid_public_key`).
pub fn parse_public_key(field: &str, text: &str) -> Result<VerifyingKey, ApiError> {
    let invalid = || {
        ApiError::field(
            field,
            ErrorCode::InvalidPublicKey,
            format!("{field} must be an Ed25519 public key: 32 bytes, base64url without padding"),
        )
    };
    let bytes: [u8; 32] = URL_SAFE_NO_PAD
        .decode(text.trim())
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(invalid)?;
    VerifyingKey::from_bytes(&bytes).map_err(|_| invalid())
}

/// Ok when `signature` is `public_key`'s signature of `body`. A signature that does not verify
/// is 403: the caller's token may be good, but the body is not what the venue holding the
/// checkout's key signed (changed on the way, or signed with another key), so no token would
/// make it acceptable, which 401 would suggest. A signature that is not base64url of 64 bytes
/// is 400.
pub fn verify(public_key: &str, body: &[u8], signature: &str) -> Result<(), ApiError> {
    let key = parse_public_key("public_key", public_key).map_err(|_| {
        ApiError::Forbidden("the checkout's public key is not an Ed25519 key".into())
    })?;
    let signature = URL_SAFE_NO_PAD
        .decode(signature.trim())
        .ok()
        .and_then(|bytes| Signature::from_slice(&bytes).ok())
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "{VENUE_SIGNATURE_HEADER} must be an Ed25519 signature: 64 bytes, base64url without padding"
            ))
        })?;
    key.verify_strict(body, &signature).map_err(|_| {
        ApiError::Forbidden(
            "the body's signature does not verify with the venue's public key of this checkout: it was changed after signing, or signed with another key".into(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_public_key() {
        let (key, public_key) = new_venue_key();
        let body = br#"{"event_id":"e1","rounds":[]}"#;
        assert!(verify(&public_key, body, &sign(&key, body)).is_ok());
    }

    #[test]
    fn a_changed_byte_fails() {
        let (key, public_key) = new_venue_key();
        let signature = sign(&key, b"vp: 10");
        assert!(matches!(
            verify(&public_key, b"vp: 11", &signature),
            Err(ApiError::Forbidden(_))
        ));
    }

    #[test]
    fn another_keys_signature_fails() {
        let (_, public_key) = new_venue_key();
        let (other, _) = new_venue_key();
        let body = b"the bundle";
        assert!(matches!(
            verify(&public_key, body, &sign(&other, body)),
            Err(ApiError::Forbidden(_))
        ));
    }

    #[test]
    fn a_signature_that_is_not_base64url_of_64_bytes_is_a_bad_request() {
        let (_, public_key) = new_venue_key();
        for signature in ["", "not base64!", "AAAA"] {
            assert!(matches!(
                verify(&public_key, b"x", signature),
                Err(ApiError::BadRequest(_))
            ));
        }
    }

    #[test]
    fn a_public_key_must_be_32_bytes_of_base64url() {
        let (_, public_key) = new_venue_key();
        assert!(parse_public_key("public_key", &public_key).is_ok());
        let padded = format!("{public_key}=");
        let short = &public_key[..20];
        for bad in [
            "",
            short,
            padded.as_str(),
            "+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+/+",
        ] {
            let Err(ApiError::Validation { errors, .. }) = parse_public_key("public_key", bad)
            else {
                panic!("{bad:?} is not a public key");
            };
            assert_eq!(errors[0].code, ErrorCode::InvalidPublicKey);
        }
    }
}
