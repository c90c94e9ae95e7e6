//! Index tests on a real `search.sqlite` in a temporary home: lines found
//! only within the scope and window they are asked in, cursors that never
//! add a line twice, hostile queries and lines, and a torn file rebuilt.

use super::*;
use std::collections::BTreeMap;

fn line(seq: u64, author: &str, text: &str) -> IndexedLine {
    IndexedLine {
        seq,
        at: 1_000 + seq,
        author: author.into(),
        text: text.into(),
    }
}

fn scope(entries: &[(&str, u64)]) -> BTreeMap<String, u64> {
    entries.iter().map(|(c, s)| ((*c).to_owned(), *s)).collect()
}

async fn open(home: &std::path::Path) -> SearchIndex {
    match SearchIndex::open(home).await {
        Ok(index) => index,
        Err(e) => panic!("open: {e}"),
    }
}

async fn find(index: &SearchIndex, query: &str, scope: &BTreeMap<String, u64>) -> Vec<SearchHit> {
    let Some(expression) = match_expression(query) else {
        panic!("no words in {query:?}");
    };
    match index.search(&expression, scope, 20).await {
        Ok(hits) => hits,
        Err(e) => panic!("search: {e}"),
    }
}

fn marked(hit: &SearchHit) -> String {
    hit.snippet
        .iter()
        .map(|p| {
            if p.hit {
                format!("[{}]", p.text)
            } else {
                p.text.clone()
            }
        })
        .collect()
}

#[tokio::test]
async fn a_line_is_found_only_in_a_conversation_of_the_scope_and_inside_its_window() {
    let home = tempfile::tempdir().unwrap();
    let index = open(home.path()).await;
    index
        .add(
            "chat:ada",
            &[line(1, "ada", "the walrus plan is secret")],
            1,
        )
        .await
        .unwrap();
    index
        .add(
            "room:r1",
            &[
                line(1, "bob", "walrus before Cy joined"),
                line(5, "cy", "walrus after Cy joined"),
            ],
            5,
        )
        .await
        .unwrap();
    let cy = scope(&[("room:r1", 3), ("chat:cy", 0)]);
    let hits = find(&index, "walrus", &cy).await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!((hits[0].conversation.as_str(), hits[0].seq), ("room:r1", 5));
    assert_eq!(hits[0].author, "cy");
    assert_eq!(marked(&hits[0]), "[walrus] after Cy joined");
    let ada = scope(&[("chat:ada", 0), ("room:r1", 0)]);
    assert_eq!(find(&index, "walrus", &ada).await.len(), 3);
    assert!(find(&index, "walrus", &BTreeMap::new()).await.is_empty());
}

#[tokio::test]
async fn a_cursor_keeps_a_line_from_being_added_twice_and_survives_a_reopen() {
    let home = tempfile::tempdir().unwrap();
    {
        let index = open(home.path()).await;
        index
            .add(
                "chat:a",
                &[line(1, "a", "pelican one"), line(2, "a", "pelican two")],
                2,
            )
            .await
            .unwrap();
        index
            .add(
                "chat:a",
                &[line(2, "a", "pelican two"), line(3, "a", "pelican three")],
                3,
            )
            .await
            .unwrap();
    }
    let index = open(home.path()).await;
    assert_eq!(index.cursors().await.unwrap().get("chat:a"), Some(&3));
    let hits = find(&index, "pelican", &scope(&[("chat:a", 0)])).await;
    assert_eq!(hits.len(), 3, "{hits:?}");
}

#[tokio::test]
async fn a_hostile_query_is_only_words_and_a_line_cannot_forge_a_mark() {
    assert_eq!(match_expression("  \"\" ( ) * :  "), None);
    assert_eq!(
        match_expression("a\" OR lines:x NOT y*"),
        Some("\"a\" \"OR\" \"lines\" \"x\" \"NOT\" \"y\"*".into())
    );
    let home = tempfile::tempdir().unwrap();
    let index = open(home.path()).await;
    let forged = "plain \u{E000}fake\u{E001} heron";
    index
        .add("chat:a", &[line(1, "a", forged)], 1)
        .await
        .unwrap();
    let all = scope(&[("chat:a", 0)]);
    for query in ["NOT heron", "heron)", "text:heron", "\"heron", "her"] {
        let hits = find(&index, query, &all).await;
        assert!(hits.len() <= 1, "{query}: {hits:?}");
    }
    let hits = find(&index, "her", &all).await;
    assert_eq!(marked(&hits[0]), "plain fake [heron]");
}

#[tokio::test]
async fn a_file_sqlite_cannot_read_is_made_again_empty() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(SEARCH_FILE),
        b"not a database at all, torn",
    )
    .unwrap();
    let index = open(home.path()).await;
    assert!(index.cursors().await.unwrap().is_empty());
    index
        .add("chat:a", &[line(1, "a", "osprey")], 1)
        .await
        .unwrap();
    assert_eq!(
        find(&index, "osprey", &scope(&[("chat:a", 0)])).await.len(),
        1
    );
}
