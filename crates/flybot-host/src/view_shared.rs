//! The host-wide surfaces in the state view (#49, #545, #1266): the saved
//! keys by name and scope and the connectors (MCP servers and channels) by
//! id, kind and status, never a value, a command line or a URL, to the
//! callers who may read them (`flybot_core::shared_surfaces`, the same rule
//! as their endpoints).

use crate::channels::Channels;
use crate::connectors::Connectors;
use crate::secrets::Secrets;
use flybot_core::access::Actor;
use flybot_protocol::answers::ConnectorSummary;
use flybot_protocol::secrets::SecretRow;

/// The services whose rows the view shows.
pub struct SharedSurfaces<'a> {
    pub secrets: &'a Secrets,
    pub connectors: &'a Connectors,
    pub channels: &'a Channels,
}

impl SharedSurfaces<'_> {
    /// The keys' and connectors' rows, or none to a caller who may not
    /// read them.
    pub fn rows(&self, actor: &Actor) -> (Vec<SecretRow>, Vec<ConnectorSummary>) {
        if !self.secrets.access(actor).may_read() {
            return (Vec::new(), Vec::new());
        }
        // A file this build cannot read shows no key (the endpoints say why).
        let secrets = self
            .secrets
            .read()
            .map(|file| {
                file.secrets
                    .iter()
                    .map(|(name, record)| SecretRow::of(name, record))
                    .collect()
            })
            .unwrap_or_default();
        let mut rows = self.connectors.rows();
        rows.extend(self.channels.rows());
        rows.sort_by(|a, b| a.id.cmp(&b.id));
        (secrets, rows.iter().map(ConnectorSummary::of).collect())
    }
}
