//! The memory tools over an in-memory `MemoryAccess`.

use super::*;
use crate::tools::{BoxFuture, Tool, ToolContext};
use flybot_core::memory::index::RecallIndex;
use flybot_core::sync::lock;
use std::sync::Mutex;

#[derive(Default)]
struct Shelf {
    entries: Mutex<Vec<MemoryEntry>>,
}

impl MemoryAccess for Shelf {
    fn save<'a>(
        &'a self,
        bot_id: &'a str,
        _team: bool,
        topic: Option<String>,
        text: String,
    ) -> BoxFuture<'a, Result<MemoryEntry, String>> {
        Box::pin(async move {
            let (topic, text) = flybot_core::memory::checked_entry(topic.as_deref(), &text)
                .map_err(|e| e.message)?;
            let mut entries = lock(&self.entries);
            let entry = MemoryEntry {
                id: format!("mem-{}", entries.len()),
                topic,
                by: bot_id.to_owned(),
                at: entries.len() as u64,
                text,
            };
            entries.push(entry.clone());
            Ok(entry)
        })
    }
    fn recall_index<'a>(
        &'a self,
        _bot_id: &'a str,
    ) -> BoxFuture<'a, Result<Arc<RecallIndex>, String>> {
        let entries = lock(&self.entries).clone();
        Box::pin(async move { Ok(Arc::new(RecallIndex::build(entries))) })
    }
    fn pin<'a>(&'a self, _bot_id: &'a str, _text: String) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async { Ok(()) })
    }
    fn own_sessions(&self, _bot_id: &str) -> Vec<String> {
        Vec::new()
    }
}

fn ctx() -> ToolContext {
    let mut ctx = ToolContext::new("s1", "bot-ada", std::env::temp_dir());
    ctx.env = ctx.env.with::<dyn MemoryAccess>(Arc::new(Shelf::default()));
    ctx
}

async fn remember(ctx: &ToolContext, topic: &str, text: &str) -> Result<String, ToolError> {
    let args = remember::RememberArgs {
        text: text.into(),
        topic: Some(topic.into()),
        team: false,
    };
    Remember.call(ctx, args).await
}

async fn recall(ctx: &ToolContext, query: &str, mode: RecallMode) -> String {
    let args = recall::RecallArgs {
        query: query.into(),
        mode,
        limit: None,
    };
    Recall.call(ctx, args).await.unwrap()
}

#[tokio::test]
async fn recall_finds_by_exact_words_semantic_and_related() {
    let ctx = ctx();
    remember(
        &ctx,
        "deploy",
        "Deployments run every Friday; see [[release]].",
    )
    .await
    .unwrap();
    remember(
        &ctx,
        "release",
        "The release checklist lives in docs/release.md.",
    )
    .await
    .unwrap();
    remember(&ctx, "lunch", "Ada likes ramen.").await.unwrap();
    assert_eq!(
        recall(&ctx, "ramen", RecallMode::Exact).await,
        "From memory:\n- [lunch] Ada likes ramen. (by bot-ada, mem-2)"
    );
    assert_eq!(
        recall(&ctx, "deploying", RecallMode::Exact).await,
        "Nothing in memory matches."
    );
    assert!(
        recall(&ctx, "deploying", RecallMode::Semantic)
            .await
            .contains("[deploy]")
    );
    let related = recall(&ctx, "deploy", RecallMode::Related).await;
    // deploy itself, then release (a [[link]]) and lunch (the same author), two hops.
    assert!(related.starts_with("From memory:\n- [deploy]"), "{related}");
    assert!(
        related.contains("[release]") && related.contains("[lunch]"),
        "{related}"
    );
}

#[tokio::test]
async fn remember_refuses_secret_shaped_text_with_one_sentence() {
    let ctx = ctx();
    let refused = remember(&ctx, "keys", "the token=abc123def456")
        .await
        .unwrap_err();
    assert!(matches!(refused, ToolError::Refused(ref s) if s.contains("never stores secrets")));
    assert_eq!(
        recall(&ctx, "token", RecallMode::Exact).await,
        "Nothing in memory matches."
    );
}
