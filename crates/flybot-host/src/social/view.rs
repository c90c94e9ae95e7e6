//! The owner's view of Bot Social (issue 33): the account (never its
//! token), the link's status, friends and invites, friends' Bots titled by
//! the one formatter with the owner badge (#498) and kept as "no longer
//! shared" when a share ends (#956), this home's published Bots, and how
//! many sends wait in the outbox.

use super::{Social, lock};
use flybot_core::social::friend_bot_title;
use flybot_protocol::social::{PublishedView, RemoteBotView, RoomSide, SocialView};

impl Social {
    pub fn view(&self) -> SocialView {
        let link = self.link();
        let invites: Vec<String> = lock(&self.inner.invites).values().cloned().collect();
        self.team().read(|state| {
            let social = &state.social;
            let rooms = social.rooms.values();
            SocialView {
                account: social.account.clone(),
                status: link.status.to_owned(),
                last_error: link.last_error.clone(),
                invites,
                friends: social.friends.values().cloned().collect(),
                remote_bots: rooms
                    .clone()
                    .filter(|r| r.side == RoomSide::Theirs)
                    .map(|r| RemoteBotView {
                        room_id: r.room_id.clone(),
                        title: friend_bot_title(&r.bot_name, &r.owner_name),
                        owner: r.owner_name.clone(),
                        home: r.peer.clone(),
                        shared: r.shared,
                        awaiting: r.awaiting,
                        lines: r.lines.clone(),
                    })
                    .collect(),
                published: rooms
                    .filter(|r| r.side == RoomSide::Mine)
                    .map(|r| PublishedView {
                        room_id: r.room_id.clone(),
                        bot_id: r.bot.clone(),
                        friend: r.peer.clone(),
                        shared: r.shared,
                    })
                    .collect(),
                pending_count: social.outbox.len(),
            }
        })
    }
}
