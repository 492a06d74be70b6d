//! The v1 API of all four services as one OpenAPI document: the services' own documents merged,
//! then finished by the contract's steps (`catan_api::openapi`).

use utoipa::openapi::OpenApi;

/// The merged, finished document.
pub fn merged_openapi() -> OpenApi {
    let mut doc = catan_registration::SERVICE.openapi();
    doc.merge(catan_pairing::SERVICE.openapi());
    doc.merge(catan_results::SERVICE.openapi());
    doc.merge(catan_ranking::SERVICE.openapi());
    catan_api::openapi::finish(&mut doc);
    doc
}

/// The merged document as the committed `openapi/openapi.json` holds it.
pub fn openapi_json() -> Result<String, serde_json::Error> {
    merged_openapi().to_pretty_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_openapi_document_is_the_code_s() {
        let committed = include_str!("../../../openapi/openapi.json");
        assert!(
            committed.trim_end() == openapi_json().expect("the document serialises").trim_end(),
            "openapi/openapi.json differs from the code's spec; regenerate it with:\n    cargo run -q -p catan-suite -- openapi > openapi/openapi.json"
        );
    }

    #[test]
    fn every_operation_of_the_contract_is_documented() {
        let doc = merged_openapi();
        for (path, method) in [
            ("/v1/auth/token", "post"),
            ("/.well-known/jwks.json", "get"),
            ("/v1/api-keys", "post"),
            ("/v1/regions", "post"),
            ("/v1/players", "post"),
            ("/v1/events", "post"),
            ("/v1/events/{event_id}", "get"),
            ("/v1/events/{event_id}/entries", "post"),
            ("/v1/events/{event_id}/entries", "get"),
            ("/v1/events/{event_id}/entries/{entry_id}/drop", "post"),
            ("/v1/events/{event_id}/rounds", "post"),
            ("/v1/events/{event_id}/rounds/{number}", "get"),
            ("/v1/events/{event_id}/rounds/{number}/clock", "get"),
            ("/v1/events/{event_id}/rounds/{number}/clock", "post"),
            ("/v1/events/{event_id}/rounds/{number}/clock/stream", "get"),
            (
                "/v1/events/{event_id}/rounds/{round}/tables/{table}/result",
                "put",
            ),
            (
                "/v1/events/{event_id}/rounds/{round}/tables/{table}/result",
                "get",
            ),
            ("/v1/events/{event_id}/standings", "get"),
            ("/v1/events/{event_id}/placements", "get"),
        ] {
            let item = doc
                .paths
                .paths
                .get(path)
                .unwrap_or_else(|| panic!("{path} is documented"));
            let json = serde_json::to_value(item).expect("path item");
            assert!(json.get(method).is_some(), "{method} {path} is documented");
        }
    }
}
