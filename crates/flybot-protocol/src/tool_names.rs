//! The name each tool is called by: what the model sees, what a Session
//! log's `tool/call` and an approval record carry, and what a mask or a
//! rule compares. The tools themselves live in `flybot-agent` (each one's
//! `name()` answers its constant here); the names live here so that
//! `flybot-core`'s run-Bot rule (#1445), the agent and the host spell them
//! once.

/// `list_bots`: the team, as the caller may see it.
pub const LIST_BOTS: &str = "list_bots";
/// `message_bot`: a Bot-to-Bot message (#641).
pub const MESSAGE_BOT: &str = "message_bot";
/// `post_to_group`: a line in a room the Bot is a member of.
pub const POST_TO_GROUP: &str = "post_to_group";
/// `read_group_chat` (#1203): a group's earlier lines, exactly as stored.
pub const READ_GROUP_CHAT: &str = "read_group_chat";
/// `read_attachment` (issue 32): an attachment of the Bot's own
/// conversation, by id.
pub const READ_ATTACHMENT: &str = "read_attachment";
/// `attach_file` (issue 32): a file of the Bot's own workspace attached
/// to its answer.
pub const ATTACH_FILE: &str = "attach_file";
/// `create_bot` (#410, #645).
pub const CREATE_BOT: &str = "create_bot";
/// `update_bot`.
pub const UPDATE_BOT: &str = "update_bot";
/// `stop_bot`.
pub const STOP_BOT: &str = "stop_bot";
/// `create_group` (#1700, #1182): a Main Bot or a room's admin makes a room.
pub const CREATE_GROUP: &str = "create_group";
/// `update_group` (#1700, #1182): members, admin and task lead of a room.
pub const UPDATE_GROUP: &str = "update_group";
/// `archive_bot` (#638, #1700).
pub const ARCHIVE_BOT: &str = "archive_bot";
/// `ask_user`: a question to the Bot's owner, the one tool the chat draws
/// as its own line.
pub const ASK_USER: &str = "ask_user";
/// `record_decision` (#396): offered only to a Bot that opted in.
pub const RECORD_DECISION: &str = "record_decision";

/// `read_file`, in the Bot's working folder.
pub const READ_FILE: &str = "read_file";
/// `write_file`, in the Bot's working folder.
pub const WRITE_FILE: &str = "write_file";
/// `edit_file`, in the Bot's working folder.
pub const EDIT_FILE: &str = "edit_file";
/// `list_files`, in the Bot's working folder.
pub const LIST_FILES: &str = "list_files";
/// `search_files`, in the Bot's working folder.
pub const SEARCH_FILES: &str = "search_files";
/// `project_state` (#1702): the Project State files of the working folder.
pub const PROJECT_STATE: &str = "project_state";
/// `run_command`: a program in the Bot's working folder, approved first.
pub const RUN_COMMAND: &str = "run_command";

/// `track_tasks`: the Bot's own cards on the board.
pub const TRACK_TASKS: &str = "track_tasks";

/// `run_workflow` (#1272).
pub const RUN_WORKFLOW: &str = "run_workflow";
/// `define_workflow` (#1272).
pub const DEFINE_WORKFLOW: &str = "define_workflow";

/// `remember`: one memory entry, the Bot's own or the team's.
pub const REMEMBER: &str = "remember";
/// `recall`: the Bot's memory and the team's, by exact words, `semantic`
/// or `related` (#1445: refused to a run Bot, its default scope reads the team).
pub const RECALL: &str = "recall";
/// `pin_memory`: the bounded block that rides in the Bot's system prompt.
pub const PIN_MEMORY: &str = "pin_memory";
/// `session_search`: lines of the Bot's own conversations and their parts.
pub const SESSION_SEARCH: &str = "session_search";
/// Scheduled tasks on the calling Session (#354); none in a group room's
/// member turns (#1237).
pub const SCHEDULE_CREATE: &str = "schedule_create";
pub const SCHEDULE_LIST: &str = "schedule_list";
pub const SCHEDULE_UPDATE: &str = "schedule_update";
pub const SCHEDULE_DELETE: &str = "schedule_delete";
/// The Bot-wide, read-only list of its scheduled tasks (#628).
pub const BOT_SCHEDULES: &str = "bot_schedules";
/// Every schedule tool, the names a room's member turn is not given.
pub const SCHEDULE_TOOLS: [&str; 5] = [
    SCHEDULE_CREATE,
    SCHEDULE_LIST,
    SCHEDULE_UPDATE,
    SCHEDULE_DELETE,
    BOT_SCHEDULES,
];
/// The keys the Bot's shell gets and why the others are withheld (#651).
pub const LIST_SECRETS: &str = "list_secrets";
/// Whether the Bot may use one key, and how to ask the owner for it.
pub const REQUEST_SECRET: &str = "request_secret";
