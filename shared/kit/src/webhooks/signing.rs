//! Signing deliveries the Standard Webhooks way: HMAC-SHA256 over `{id}.{timestamp}.{body}`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{KeyInit, Mac};
use subtle::ConstantTimeEq;

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// A new subscription secret: `whsec_` and the base64 of 24 random bytes.
pub fn new_secret() -> String {
    format!("whsec_{}", STANDARD.encode(rand::random::<[u8; 24]>()))
}

/// The key a `whsec_` secret stands for.
pub fn secret_key(secret: &str) -> Result<Vec<u8>, String> {
    let encoded = secret
        .strip_prefix("whsec_")
        .ok_or("a webhook secret starts with whsec_")?;
    STANDARD.decode(encoded).map_err(|e| e.to_string())
}

/// HMAC-SHA256 of `message` under `key`: any key length is allowed.
fn mac(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// The `webhook-signature` header of a delivery (Standard Webhooks): `v1,` and the base64 of
/// HMAC-SHA256 over `{id}.{timestamp}.{body}`.
pub fn signature(key: &[u8], message_id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut signed = format!("{message_id}.{timestamp}.").into_bytes();
    signed.extend_from_slice(body);
    format!("v1,{}", STANDARD.encode(mac(key, &signed)))
}

/// Whether `header` (space-separated `v1,<sig>` entries) holds the right signature, compared in
/// constant time.
pub fn verify_signature(
    key: &[u8],
    message_id: &str,
    timestamp: i64,
    body: &[u8],
    header: &str,
) -> bool {
    let expected = signature(key, message_id, timestamp, body);
    header
        .split_whitespace()
        .any(|candidate| bool::from(candidate.as_bytes().ct_eq(expected.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn hmac_matches_rfc_4231() {
        assert_eq!(
            hex(&mac(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex(&mac(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn signatures_follow_standard_webhooks() {
        // The example of the Standard Webhooks reference libraries.
        let key = secret_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        let sig = signature(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(verify_signature(
            &key,
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            body,
            &format!("v1,bm90IGl0 {sig}")
        ));
        assert!(!verify_signature(&key, "msg_other", 1614265330, body, &sig));
    }
}
