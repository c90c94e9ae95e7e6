//! The stdio line protocol (#198): one JSON object per line.
//! In: `{"type":"turn","text","note","from","exchangeId"}` and
//! `{"type":"stop"}`. Out: `{"text"}` or `{"error"}`.

use serde::{Deserialize, Serialize};

/// The longest line read from a peer; a longer one is a protocol failure.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// A line the host writes to the peer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum HostLine {
    #[serde(rename_all = "camelCase")]
    Turn {
        text: String,
        note: String,
        from: String,
        exchange_id: String,
    },
    Stop,
}

/// A line the peer writes back.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum PeerLine {
    Text { text: String },
    Error { error: String },
}

/// Reads one peer line; `None` when it is not one of the two shapes.
pub fn parse_peer_line(line: &str) -> Option<PeerLine> {
    if line.len() > MAX_LINE_BYTES {
        return None;
    }
    serde_json::from_str(line.trim()).ok()
}

/// Encodes a host line with its newline.
pub fn encode(line: &HostLine) -> String {
    let mut text = serde_json::to_string(line).unwrap_or_else(|_| "{\"type\":\"stop\"}".into());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_have_the_contract_spellings() {
        let turn = HostLine::Turn {
            text: "t".into(),
            note: "n".into(),
            from: "Ann".into(),
            exchange_id: "x1".into(),
        };
        assert_eq!(
            encode(&turn),
            "{\"type\":\"turn\",\"text\":\"t\",\"note\":\"n\",\"from\":\"Ann\",\"exchangeId\":\"x1\"}\n"
        );
        assert_eq!(encode(&HostLine::Stop), "{\"type\":\"stop\"}\n");
        assert_eq!(
            parse_peer_line("{\"text\":\"hi\"}"),
            Some(PeerLine::Text { text: "hi".into() })
        );
        assert_eq!(
            parse_peer_line("{\"error\":\"no\"}"),
            Some(PeerLine::Error { error: "no".into() })
        );
        assert_eq!(parse_peer_line("hello"), None);
    }
}
