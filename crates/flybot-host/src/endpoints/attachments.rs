//! The route table of attachments (issue 32): `attachment-upload` stores
//! a file for the caller (its body may exceed the channel's 1 MiB, up to
//! the configured limit per file), `attachment-info` answers the records
//! of ids the caller may read. The bytes are served by the GET routes of
//! `crate::attachments::download`.

use super::body::parse;
use super::extract::route_table;
use super::typed;
use crate::attachments::download::readable;
use flybot_protocol::attachment::AttachmentShown;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Info {
    ids: Vec<String>,
}

route_table! {
    "attachment-upload" => |host, caller, body| {
        let config = host.config();
        typed(crate::attachments::upload::upload(host.team(), &config.home, &config.attachments, caller.require()?, parse(body)?).await)
    };
    "attachment-info" => |host, caller, body| {
        let actor = caller.require()?;
        let req: Info = parse(body)?;
        let shown = host.store().read(|state| {
            req.ids
                .iter()
                .take(100)
                .map(|id| readable(state, actor, id).map(|a| AttachmentShown::from(&a)))
                .collect::<Result<Vec<_>, _>>()
        });
        typed(shown.map(|attachments| serde_json::json!({"attachments": attachments})))
    };
}
