//! The agent card (the A2A agent's self-description): fetched once from
//! the agent the driver started, bounded, parsed, digested for the report
//! (the contract's schema digest), and checked: its JSON-RPC interface must
//! speak protocol 1.0 at the very address FlyBot started the agent on, so
//! a card can never point FlyBot at another address.

use super::client::{A2aClient, A2aError, loopback_base, printable};
use super::wire::PROTOCOL_VERSION;
use serde::Deserialize;

/// The card's fields FlyBot reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CardFields {
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    supported_interfaces: Vec<Interface>,
    #[serde(default)]
    capabilities: Capabilities,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Interface {
    url: String,
    protocol_binding: String,
    #[serde(default)]
    protocol_version: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Capabilities {
    #[serde(default)]
    streaming: bool,
    #[serde(default)]
    push_notifications: bool,
}

/// A checked agent card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCard {
    /// The agent's name and version, printable and short.
    pub name: String,
    pub version: String,
    /// Whether the card says the agent streams (`SendStreamingMessage`).
    pub streaming: bool,
    pub push_notifications: bool,
    /// SHA-256 of the card's canonical JSON with its interfaces' addresses
    /// left out: the report's schema digest, the same on every start.
    pub digest: String,
}

/// Fetches and checks the card of the agent at `client`'s address.
pub async fn fetch(client: &A2aClient) -> Result<AgentCard, A2aError> {
    let bytes = client.card_bytes().await?;
    check(&bytes, client.base())
}

/// Checks a card's bytes against the address the agent was started on.
pub fn check(bytes: &[u8], base: &str) -> Result<AgentCard, A2aError> {
    const WHAT: &str = "the agent card";
    let shape = |detail: String| A2aError::Shape { what: WHAT, detail };
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| shape(printable(&e.to_string(), 200)))?;
    let fields: CardFields =
        serde_json::from_value(value.clone()).map_err(|e| shape(printable(&e.to_string(), 200)))?;
    let jsonrpc = fields
        .supported_interfaces
        .iter()
        .find(|i| i.protocol_binding == "JSONRPC")
        .ok_or_else(|| shape("no JSONRPC interface".to_owned()))?;
    if jsonrpc.protocol_version != PROTOCOL_VERSION {
        return Err(shape(format!(
            "its JSONRPC interface speaks protocol {:?}, FlyBot speaks {PROTOCOL_VERSION}",
            printable(&jsonrpc.protocol_version, 20)
        )));
    }
    if loopback_base(&jsonrpc.url).ok().as_deref() != Some(base) {
        return Err(shape(format!(
            "its JSONRPC interface is at {}, not at {base} where FlyBot started it",
            printable(&jsonrpc.url, 120)
        )));
    }
    // The schema digest leaves the address out: the agent binds a new port
    // each start, and the same agent and schema must digest the same.
    let mut schema = value;
    if let Some(interfaces) = schema
        .get_mut("supportedInterfaces")
        .and_then(|v| v.as_array_mut())
    {
        for interface in interfaces.iter_mut().filter_map(|i| i.as_object_mut()) {
            interface.insert("url".to_owned(), serde_json::Value::String(String::new()));
        }
    }
    let digest = crate::digest_of(&schema).map_err(|e| shape(e.to_string()))?;
    Ok(AgentCard {
        name: printable(&fields.name, 80),
        version: printable(&fields.version, 40),
        streaming: fields.capabilities.streaming,
        push_notifications: fields.capabilities.push_notifications,
        digest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(url: &str, version: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "name": "agent", "version": "1.0.0",
            "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": version}],
            "capabilities": {"streaming": true}
        }))
        .unwrap()
    }

    #[test]
    fn a_card_at_the_started_address_is_taken_with_its_digest() {
        let checked = check(
            &card("http://127.0.0.1:4100/", "1.0"),
            "http://127.0.0.1:4100",
        )
        .unwrap();
        assert!(checked.streaming);
        assert!(crate::is_digest(&checked.digest));
        // The digest is of the canonical form: key order does not change it.
        let reordered = br#"{"version":"1.0.0","capabilities":{"streaming":true},"supportedInterfaces":[{"protocolVersion":"1.0","protocolBinding":"JSONRPC","url":"http://127.0.0.1:4100/"}],"name":"agent"}"#;
        assert_eq!(
            check(reordered, "http://127.0.0.1:4100").unwrap().digest,
            checked.digest
        );
    }

    #[test]
    fn a_card_pointing_elsewhere_is_refused() {
        for url in [
            "http://127.0.0.1:4101/",
            "http://10.0.0.1:4100/",
            "http://evil.example/",
        ] {
            let refused = check(&card(url, "1.0"), "http://127.0.0.1:4100").unwrap_err();
            assert!(refused.to_string().contains("not at"), "{url}: {refused}");
        }
    }

    #[test]
    fn a_card_of_another_protocol_version_is_refused() {
        let refused = check(
            &card("http://127.0.0.1:4100/", "0.3"),
            "http://127.0.0.1:4100",
        )
        .unwrap_err();
        assert!(refused.to_string().contains("speaks protocol"));
    }

    #[test]
    fn a_card_that_is_not_json_is_refused() {
        assert!(check(b"<html>", "http://127.0.0.1:4100").is_err());
    }
}
