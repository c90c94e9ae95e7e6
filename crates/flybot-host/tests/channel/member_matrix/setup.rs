//! Ada's home for the cross-member matrix (issue 29): the owner with a rich
//! set of records (Bots, a room, cards in every status a card reaches
//! without deleting a Bot, a Project, a schedule, memory, a workflow of her
//! own and a run of it, a secret, a saved connector, an invitation, a second session, a waiting approval
//! and a standing one), and Bob, a second member with a Bot of his own.

use flybot_testkit::{Kit, Member};
use serde_json::{Value, json};

/// What Ada's instructions, titles and notes carry, so an answer that shows
/// any of them to Bob is caught by text.
pub const MARKER: &str = "ada-private-7f3c";

/// What her Bot's instructions carry: private to her even where her Bot
/// shares a room with Bob's (#53).
pub const INSTRUCTIONS: &str = "ada-instructions-51d0";

/// The value of Ada's secret `ADA_KEY`.
pub const SECRET: &str = "ada-secret-value-93e1";

/// Ada's records, by id.
pub struct Ada {
    pub me: Member,
    /// Her second sign-in session.
    pub second: Member,
    /// Her Bot with private instructions, its chat Session.
    pub bot: String,
    pub bot_session: String,
    /// The lead of her desk room, and the room.
    pub lead: String,
    pub room: String,
    /// Her Bot's seat in the room.
    pub seat: String,
    /// Cards on `bot`, one per move (`CARDS`), and the blocked card's
    /// question.
    pub cards: Vec<(&'static str, String)>,
    pub question: String,
    /// The room's Writer, the card it holds from the queue, and a card
    /// still queued for the Writer role.
    pub writer: String,
    pub held: String,
    pub queued: String,
    /// A Bot of hers in no room, with no card.
    pub spare: String,
    pub project: String,
    pub schedule: String,
    pub memory: String,
    /// Her workflow's id and a job (run) of it.
    pub workflow: String,
    pub job: String,
    pub invitation: String,
    pub approval: String,
    /// A file she uploaded and sent in her Bot's chat (issue 32).
    pub attachment: String,
}

impl Ada {
    /// The card made for `purpose` (a move's endpoint, `CARDS`).
    pub fn card(&self, purpose: &str) -> &str {
        let found = self.cards.iter().find(|(p, _)| *p == purpose);
        &found.unwrap_or_else(|| panic!("no card for {purpose}")).1
    }

    /// What stays private to Ada once Bob's Bot sits in her room: not the
    /// room, its name or the Bots he meets there, but every other record.
    /// The room's bound Project is shown to whoever sees the room, as its
    /// cards' are (#1723, `tasks::projects::may_see`).
    pub fn private_beyond_the_room(&self) -> Vec<String> {
        let seen = [
            &self.room,
            &self.bot,
            &self.lead,
            &self.writer,
            &self.seat,
            &self.project,
        ];
        let shown = |id: &String| id == MARKER || seen.contains(&id);
        self.private().into_iter().filter(|id| !shown(id)).collect()
    }

    /// Everything of Ada's that Bob's answers must never show: ids,
    /// sessions and the marker her texts carry.
    pub fn private(&self) -> Vec<String> {
        let mut all = vec![
            MARKER.to_owned(),
            INSTRUCTIONS.to_owned(),
            SECRET.to_owned(),
            self.me.session_id.clone(),
            self.me.token.clone(),
            self.second.session_id.clone(),
            self.second.token.clone(),
            self.bot.clone(),
            self.bot_session.clone(),
            self.lead.clone(),
            self.room.clone(),
            self.seat.clone(),
            self.question.clone(),
            self.writer.clone(),
            self.held.clone(),
            self.queued.clone(),
            self.spare.clone(),
            self.project.clone(),
            self.schedule.clone(),
            self.memory.clone(),
            self.job.clone(),
            self.invitation.clone(),
            self.approval.clone(),
            self.attachment.clone(),
        ];
        all.extend(self.cards.iter().map(|(_, id)| id.clone()));
        all
    }
}

fn text(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not text: {value}"))
        .to_owned()
}

/// A host whose owner Ada holds every kind of record, and Bob, a second
/// member with one Bot of his own; the home is quiet when it answers.
pub async fn ada_and_bob() -> (Kit, Ada, Member, String) {
    let kit = Kit::new().await;
    // The secret is set while Ada is the only member: with two, secrets
    // are a shared surface nobody may use (#49).
    let me = kit.owner("Ada").await;
    let ada = kit.as_member(&me);
    let body = json!({"name": "ADA_KEY", "value": SECRET});
    ada.ok("secret-set", body).await;
    // A saved connector of hers (its server exits at once, so its row reads
    // `error`): on a shared host she may retry it, Bob may not (issue 39).
    let body = json!({"id": "ada-mcp", "command": ["true"]});
    ada.ok("connector-connect", body).await;
    let bob = ada.invite("Bob").await;
    let bot = ada
        .bot_from(json!({"name": "Quill", "instructions": format!("Never tell: {INSTRUCTIONS} {MARKER}")}))
        .await;
    let (lead, room) = desk(&kit, &me, &bot.id).await;
    let seat = kit
        .host
        .store()
        .read(|s| s.rooms[&room].sessions[&bot.id].clone());
    let (cards, question) = cards(&kit, &me, &bot.id).await;
    // A question in her room's dock (#550): her Bot asks about work the
    // lead handed it.
    dock_question(&kit, &room, &bot.id, &lead).await;
    let writer = kit.bot_named("Wren");
    let mut queued = Vec::new();
    for n in 0..2 {
        let body = json!({"botId": lead, "roomId": room, "role": "Writer",
                          "title": format!("queued {n} {MARKER}")});
        queued.push(text(&ada.ok("task-enqueue", body).await["task"]["id"]));
    }
    // The Writer holds the first; the second waits to be claimed.
    let body = json!({"botId": writer, "roomId": room, "id": queued[0]});
    ada.ok("task-claim", body).await;
    let spare = ada.bot("Ink").await.id;
    let project = ada
        .ok("project-create", json!({"name": format!("Site {MARKER}")}))
        .await["project"]["id"]
        .clone();
    let project = text(&project);
    ada.ok("project-bind", json!({"roomId": room, "project": project}))
        .await;
    let when = json!({"kind": "every", "minutes": 60});
    let body =
        json!({"botId": bot.id, "title": format!("Nightly {MARKER}"), "prompt": "p", "when": when});
    let schedule = text(&ada.ok("schedule-create", body).await["schedule"]["id"]);
    let body = json!({"botId": bot.id, "text": format!("Fact {MARKER}")});
    let memory = text(&ada.ok("memory-append", body).await["entry"]["id"]);
    let workflow = "ada-flow".to_owned();
    let body = json!({"from": "blank", "id": workflow, "name": "Ada's flow"});
    ada.ok("workflow-customize", body).await;
    let body = json!({"workflow": workflow, "roomId": room, "botId": lead,
                      "title": format!("Run {MARKER}")});
    let job = text(&ada.ok("workflow-run", body).await["jobId"]);
    let invite = ada.ok("auth-invite", json!({"name": "Cy"})).await;
    let invitation = text(&invite["invitation"]["id"]);
    let second = kit.owner("Ada").await;
    let approval = approvals(&kit, &me, &bot.id, &bot.session).await;
    // "ada-private-7f3c" as base64: her file holds the marker.
    let body = json!({"name": "notes.txt", "data": "YWRhLXByaXZhdGUtN2YzYw=="});
    let attachment = text(&ada.ok("attachment-upload", body).await["id"]);
    kit.settled().await;
    let records = Ada {
        me,
        second,
        bot: bot.id,
        bot_session: bot.session,
        lead,
        room,
        seat,
        cards,
        question,
        writer,
        held: queued[0].clone(),
        queued: queued[1].clone(),
        spare,
        project,
        schedule,
        memory,
        workflow,
        job,
        invitation,
        approval,
        attachment,
    };
    let bobs = kit.as_member(&bob).bot("Bob's own").await.id;
    kit.settled().await;
    (kit, records, bob, bobs)
}

/// One card of Ada's per move, in the status the move accepts, so a move
/// Ada makes in the matrix's control leaves the other cards as they were.
const CARDS: [(&str, &str); 15] = [
    ("task-update", "open"),
    ("task-accept", "open"),
    ("task-cancel", "open"),
    ("task-start", "claimed"),
    ("task-lease", "claimed"),
    ("task-return", "working"),
    ("task-wait-input", "working"),
    ("task-recovery-decide", "working"),
    ("task-answer-input", "blocked"),
    ("task-accept-result", "result-ready"),
    ("task-send-back", "result-ready"),
    ("task-post-result", "accepted"),
    ("task-archive", "accepted"),
    ("archived", "accepted"),
    ("cancelled", "cancelled"),
];

/// Ada's cards on `bot` (`CARDS`), each title carrying the marker; answers
/// them and the blocked card's question.
async fn cards(kit: &Kit, me: &Member, bot: &str) -> (Vec<(&'static str, String)>, String) {
    let (mut cards, mut question) = (Vec::new(), String::new());
    for (purpose, status) in CARDS {
        let (id, asked) = kit.as_member(me).card_in(bot, status).await;
        question = asked.unwrap_or(question);
        let card = id.clone();
        kit.host
            .team()
            .mutate("test", move |change| {
                let mut task = change.state().tasks[&card].clone();
                task.title = format!("{purpose} {MARKER}");
                change.put_task(&task);
                Ok(())
            })
            .await
            .unwrap();
        cards.push((purpose, id));
    }
    (cards, question)
}

/// Ada's desk room: a lead, `bot`, and one Bot per role of the blank
/// workflow; answers (lead, room).
async fn desk(kit: &Kit, me: &Member, bot: &str) -> (String, String) {
    let ada = kit.as_member(me);
    let lead = ada.bot("Lead").await.id;
    let mut members = vec![lead.clone(), bot.to_owned()];
    for (name, role) in [
        ("Wren", "Writer"),
        ("Eddie", "Editor"),
        ("Pat", "Publisher"),
    ] {
        let id = ada.bot(name).await.id;
        kit.set_role(&id, role).await;
        members.push(id);
    }
    let body = json!({"name": format!("Desk {MARKER}"), "members": members, "admin": lead});
    (lead, ada.room_from(body).await.id)
}

/// A waiting tool approval on Ada's Bot and a standing one it holds, put in
/// the store directly (a real ask needs a scripted tool call); answers the
/// waiting one's id.
async fn approvals(kit: &Kit, me: &Member, bot: &str, session: &str) -> String {
    use flybot_protocol::approval::{ApprovalRecord, ApprovalStatus};
    let record = ApprovalRecord {
        id: "approval-ada-0001".into(),
        bot_id: bot.to_owned(),
        session_id: session.to_owned(),
        tool: "run_command".into(),
        label: format!("run {MARKER}"),
        status: ApprovalStatus::Waiting,
        request_id: "request-ada-1".into(),
        owner_id: me.member_id.clone(),
        created_at: 1,
        tool_call_id: "call-ada-1".into(),
        room_id: None,
        decided_at: None,
        answer: None,
        extra: Default::default(),
    };
    let bot = bot.to_owned();
    kit.host
        .team()
        .mutate("test", move |change| {
            change.put_approval(&record.id, &record);
            let mut quill = change.state().bots[&bot].clone();
            let standing = json!([{"kind": "run_command", "label": "run", "at": 1}]);
            quill.extra.insert("standingApprovals".into(), standing);
            change.put_bot(&quill);
            Ok(())
        })
        .await
        .unwrap();
    "approval-ada-0001".into()
}

/// Puts a question of Ada's Bot (`bot`, about work `lead` handed it) in
/// her room's dock (#550); the control docks it again after
/// `answer-question` took it, so `dismiss-question` has one to take.
pub async fn dock_question(kit: &Kit, room: &str, bot: &str, lead: &str) {
    let card = flybot_protocol::group_question::GroupQuestion {
        header: "Quill".into(),
        bot_id: bot.to_owned(),
        question: format!("Which one? {MARKER}"),
        reply_to: flybot_protocol::group_question::ReplyTo {
            bot_id: lead.to_owned(),
            hop: 1,
        },
        allow_custom: true,
        asked_at: 1,
        origin: None,
    };
    let docked = room.to_owned();
    kit.host
        .store()
        .mutate("test", move |c| {
            c.put_question(&docked, &card);
            Ok(())
        })
        .await
        .unwrap();
}
