//! Who a line calls (`face-mentions`, #287, #305): every alias of a member
//! (the bare name, `<name> · <owner>'s Bot`, `<owner>'s Chief`, `<name> ·
//! <owner>`, the handle), `@all` / `@所有人` / `@everyone`, lines to
//! everyone, `[PASS]`, and the stop words (#1267). A fenced or quoted @name
//! stays literal text.

/// A member as a line may name it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Named {
    pub id: String,
    pub name: String,
    /// The owner's display name, for the picker labels.
    pub owner: Option<String>,
    pub handle: Option<String>,
    /// The member is its owner's Chief (`<owner>'s Chief`).
    pub chief: bool,
}

impl Named {
    pub fn new(id: &str, name: &str) -> Named {
        Named {
            id: id.to_string(),
            name: name.to_string(),
            owner: None,
            handle: None,
            chief: false,
        }
    }
}

/// `faceAliases`: every name `@` may use for a member.
pub fn aliases(member: &Named) -> Vec<String> {
    let mut out = vec![member.name.clone()];
    if let Some(owner) = &member.owner {
        out.push(format!("{} · {owner}'s Bot", member.name));
        out.push(format!("{} · {owner}", member.name));
        if member.chief {
            out.push(format!("{owner}'s Chief"));
        }
    }
    if let Some(handle) = &member.handle {
        out.push(handle.trim_start_matches('@').to_string());
    }
    out.retain(|a| !a.trim().is_empty());
    out
}

/// The words after `@` that call everyone.
const ALL_WORDS: [&str; 4] = ["all", "所有人", "everyone", "everybody"];

/// Words that make a line one to everyone (`ROOM_EVERYONE`).
const EVERYONE_WORDS: [&str; 9] = [
    "everyone",
    "everybody",
    "all of you",
    "introduce yourselves",
    "each of you",
    "你们",
    "大家",
    "各位",
    "所有人",
];

/// The stop words (#1267).
pub const STOP_WORDS: [&str; 7] = [
    "停",
    "停下",
    "停止",
    "别做了",
    "不要做了",
    "stop",
    "stop it",
];

/// What a line calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calls {
    /// Members named, in the order the line names them, each once.
    pub ids: Vec<String>,
    /// `@all` or its spellings.
    pub all: bool,
    /// `@X` tokens that named nobody here.
    pub unknown: Vec<String>,
}

/// The text with fenced and quoted spans blanked, so an @ inside them is not
/// a call: ``` blocks, `inline code`, `<untrusted-…>` fences and `> ` quote
/// lines.
fn callable_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_block = false;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            out.push('\n');
            continue;
        }
        if in_block || line.trim_start().starts_with('>') {
            out.push('\n');
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                out.push(' ');
            } else if in_code {
                out.push(' ');
            } else {
                out.push(c);
            }
        }
    }
    // Peer text inside a fence never calls anyone here (#98).
    let mut cleaned = String::new();
    let mut rest = out.as_str();
    while let Some(s) = rest.find("<untrusted-") {
        cleaned.push_str(&rest[..s]);
        match rest[s..].find("</untrusted-") {
            Some(e) => {
                let tail = &rest[s + e..];
                let close = tail.find('>').map_or(tail.len(), |c| c + 1);
                rest = &tail[close..];
            }
            None => rest = "",
        }
    }
    cleaned.push_str(rest);
    cleaned
}

fn is_boundary(c: Option<char>) -> bool {
    c.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
}

fn starts_with_ci(hay: &str, needle: &str) -> bool {
    hay.get(..needle.len())
        .is_some_and(|h| h.to_lowercase() == needle.to_lowercase())
}

/// Who `text` calls among `members` (`faceMentions`): the longest alias wins
/// at each `@`.
pub fn calls(text: &str, members: &[Named]) -> Calls {
    let text = callable_text(text);
    let mut found = Calls::default();
    let mut table: Vec<(String, &str)> = members
        .iter()
        .flat_map(|m| aliases(m).into_iter().map(move |a| (a, m.id.as_str())))
        .collect();
    table.sort_by_key(|(a, _)| std::cmp::Reverse(a.len()));
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        let at_start = c == '@' && (prev.is_none() || is_boundary(prev));
        prev = Some(c);
        if !at_start {
            continue;
        }
        let rest = &text[i + 1..];
        if let Some(word) = ALL_WORDS
            .iter()
            .find(|w| starts_with_ci(rest, w) && is_boundary(rest[w.len()..].chars().next()))
        {
            let _ = word;
            found.all = true;
            continue;
        }
        let hit = table.iter().find(|(alias, _)| {
            starts_with_ci(rest, alias) && is_boundary(rest[alias.len()..].chars().next())
        });
        match hit {
            Some((_, id)) => {
                if !found.ids.iter().any(|x| x == id) {
                    found.ids.push(id.to_string());
                }
            }
            None => {
                let token: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                    .collect();
                if !token.is_empty() {
                    found.unknown.push(token);
                }
            }
        }
    }
    found
}

/// A line to everyone (`ROOM_EVERYONE`): each member may answer, and the
/// round is not cut after the first answer.
pub fn is_everyone_line(text: &str) -> bool {
    let lower = callable_text(text).to_lowercase();
    EVERYONE_WORDS.iter().any(|w| lower.contains(w))
}

/// `[PASS]`: the member has nothing to add; posts, logs and shows nothing.
pub fn is_pass(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() {
        return true;
    }
    let upper = t.to_uppercase();
    upper.contains("[PASS]")
        && upper
            .replace("[PASS]", "")
            .chars()
            .all(|c| c.is_whitespace() || c.is_ascii_punctuation())
}

/// A line that only says stop (#1267): one of the stop words, any case,
/// trailing punctuation allowed.
pub fn is_stop(text: &str) -> bool {
    let t = text
        .trim()
        .trim_end_matches(['!', '！', '.', '。', '~', '～'])
        .trim()
        .to_lowercase();
    STOP_WORDS.iter().any(|w| t == *w)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn members() -> Vec<Named> {
        let mut ada = Named::new("bot-a", "Ada");
        ada.owner = Some("Alice".into());
        ada.chief = true;
        ada.handle = Some("@ada-home".into());
        vec![ada, Named::new("bot-b", "Bo"), Named::new("bot-bob", "Bob")]
    }

    #[test]
    /// Rule #287.
    fn every_alias_of_face_mentions_calls_the_member() {
        for text in [
            "@Ada hi",
            "hey @ada, go",
            "@Ada · Alice's Bot go",
            "@Ada · Alice now",
            "@Alice's Chief please",
            "@ada-home ping",
        ] {
            assert_eq!(calls(text, &members()).ids, vec!["bot-a"], "{text}");
        }
        // The longest alias wins: @Bob is not @Bo.
        assert_eq!(
            calls("@Bob and @Bo", &members()).ids,
            vec!["bot-bob", "bot-b"]
        );
        assert!(calls("mail me at x@Ada.com", &members()).ids.is_empty());
    }

    #[test]
    /// Rule #287.
    fn at_all_and_lines_to_everyone_are_told_apart_from_names() {
        assert!(calls("@all status?", &members()).all);
        assert!(calls("@所有人 看一下", &members()).all);
        assert!(is_everyone_line("Please introduce yourselves"));
        assert!(is_everyone_line("大家好"));
        assert!(!is_everyone_line("fix the build"));
        assert_eq!(calls("@Zed hi", &members()).unknown, vec!["Zed"]);
    }

    #[test]
    /// Rule #98.
    fn a_fenced_or_quoted_name_stays_literal() {
        let text =
            "see `@Ada` and\n> @Bo said\n<untrusted-message from=\"x\">@Ada</untrusted-message>";
        assert!(calls(text, &members()).ids.is_empty());
    }

    #[test]
    /// Rule #1267.
    fn pass_posts_nothing_and_the_stop_words_are_exact() {
        assert!(is_pass("[PASS]") && is_pass(" [pass]. ") && is_pass(""));
        assert!(!is_pass("[PASS] but actually I think we should"));
        for w in [
            "停",
            "停下",
            "停止",
            "别做了",
            "不要做了",
            "stop",
            "Stop it!",
            "STOP。",
        ] {
            assert!(is_stop(w), "{w}");
        }
        assert!(!is_stop("stop the build after tests"));
        assert!(!is_stop("don't stop"));
    }
}
