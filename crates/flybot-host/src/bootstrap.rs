//! A fresh home's first request (the state view or any endpoint) makes the
//! host's owner and the first Main Bot, so a newcomer has someone to talk to (announced like any other
//! new Bot, #645). A home that already has a member is never bootstrapped
//! again, so deleting every Bot does not bring the Chief back.

use crate::endpoints::insert_new_bot;
use crate::events::HostEvent;
use crate::team::Team;
use flybot_protocol::ApiError;
use flybot_store::StoreStatus;

/// The first Main Bot's name.
pub const FIRST_MAIN_BOT: &str = "Chief";

pub async fn first_main_bot(team: &Team, default_model: &str) -> Result<(), ApiError> {
    let store = team.store();
    let fresh = store.read(|state| state.members.is_empty() && state.bots.is_empty());
    if !fresh || store.status() != StoreStatus::Writer {
        return Ok(());
    }
    let model = default_model.to_owned();
    let made = team
        .mutate("host", |change| {
            let state = change.state();
            if !state.members.is_empty() || !state.bots.is_empty() {
                return Ok(None);
            }
            let owner = crate::actor::ensure_owner(change);
            let bot = insert_new_bot(change, &owner, FIRST_MAIN_BOT, &model, "");
            change.set_main_bot_ids(std::slice::from_ref(&bot.id));
            change.set_designated_chief_id(Some(&bot.id));
            Ok(Some(bot))
        })
        .await?;
    if let Some(bot) = made {
        team.emit(HostEvent::BotCreated {
            bot_id: bot.id,
            owner_id: bot.owner_id,
        });
    }
    Ok(())
}
