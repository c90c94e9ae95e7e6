//! Ada's home for the cross-member matrix (issue 29): the owner with a rich
//! set of records (Bots, a room, cards in every status a card reaches
//! without deleting a Bot, a Project, a schedule, memory, a workflow of her
//! own and a run of it, a secret, an invitation, a second session, a waiting approval
//! and a standing one), and Bob, a second member with a Bot of his own.

use flybot_testkit::{Kit, Member};
use serde_json::{Value, json};

/// What Ada's instructions, titles and notes carry, so an answer that shows
/// any of them to Bob is caught by text.
pub const MARKER: &str = "ada-private-7f3c";

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
    /// Cards on `bot` by status, and the blocked card's question.
    pub cards: Vec<(&'static str, String)>,
    pub question: String,
    /// A card queued for the room's Writer role.
    pub queued: String,
    pub project: String,
    pub schedule: String,
    pub memory: String,
    /// Her workflow's id and a job (run) of it.
    pub workflow: String,
    pub job: String,
    pub invitation: String,
    pub approval: String,
}

impl Ada {
    /// The card in `status`.
    pub fn card(&self, status: &str) -> &str {
        let found = self.cards.iter().find(|(s, _)| *s == status);
        &found.unwrap_or_else(|| panic!("no {status} card")).1
    }

    /// Everything of Ada's that Bob's answers must never show: ids,
    /// sessions and the marker her texts carry.
    pub fn private(&self) -> Vec<String> {
        let mut all = vec![
            MARKER.to_owned(),
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
            self.queued.clone(),
            self.project.clone(),
            self.schedule.clone(),
            self.memory.clone(),
            self.job.clone(),
            self.invitation.clone(),
            self.approval.clone(),
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
    let bob = ada.invite("Bob").await;
    let bot = ada
        .bot_from(json!({"name": "Quill", "instructions": format!("Never tell: {MARKER}")}))
        .await;
    let (lead, room) = desk(&kit, &me, &bot.id).await;
    let seat = kit
        .host
        .store()
        .read(|s| s.rooms[&room].sessions[&bot.id].clone());
    let mut cards = Vec::new();
    let mut question = String::new();
    for status in [
        "open",
        "claimed",
        "working",
        "blocked",
        "result-ready",
        "accepted",
        "cancelled",
    ] {
        let (id, asked) = ada.card_in(&bot.id, status).await;
        question = asked.unwrap_or(question);
        cards.push((status, id));
    }
    let body = json!({"botId": lead, "roomId": room, "role": "Writer",
                      "title": format!("queued {MARKER}")});
    let queued = text(&ada.ok("task-enqueue", body).await["task"]["id"]);
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
        queued,
        project,
        schedule,
        memory,
        workflow,
        job,
        invitation,
        approval,
    };
    let bobs = kit.as_member(&bob).bot("Bob's own").await.id;
    kit.settled().await;
    (kit, records, bob, bobs)
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
