//! Secret-shaped text (#396): a decision line or a memory entry that looks
//! like a key, a token or a password is refused, never written.

/// Prefixes of well-known credential formats.
const PREFIXES: [&str; 12] = [
    "sk-",
    "sk_live_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "AIza",
];

/// Words that introduce a credential when a value follows them.
const ASSIGNMENTS: [&str; 7] = [
    "password", "passwd", "api_key", "apikey", "secret", "token", "bearer",
];

/// Whether `text` holds something shaped like a secret.
pub fn looks_like_secret(text: &str) -> bool {
    if text.contains("-----BEGIN") {
        return true;
    }
    let lower = text.to_lowercase();
    for word in ASSIGNMENTS {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word) {
            let after = lower[from + at + word.len()..].trim_start();
            let mut rest = after.chars();
            let sep = rest.next();
            let value: String = rest
                .as_str()
                .trim_start()
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect();
            if matches!(sep, Some('=' | ':')) && value.len() >= 6 {
                return true;
            }
            if word == "bearer" && after.len() >= 16 {
                return true;
            }
            from += at + word.len();
        }
    }
    text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';' | '(' | ')'))
        .any(secret_word)
}

fn secret_word(word: &str) -> bool {
    if PREFIXES
        .iter()
        .any(|p| word.starts_with(p) && word.len() >= p.len() + 12)
    {
        return true;
    }
    // A long random-looking token: upper, lower and digits mixed. A hex hash
    // (one case only) is not one.
    word.len() >= 32
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '='))
        && word.chars().any(|c| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_lowercase())
        && word.chars().any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::looks_like_secret;

    #[test]
    fn secret_shapes_are_found_and_plain_text_is_not() {
        for secret in [
            "use sk-abcdefghijklmnop1234",
            "password= hunter2hunter",
            "API_KEY: abcdef123456",
            "token=abc123def456",
            "-----BEGIN PRIVATE KEY-----",
            "AKIAIOSFODNN7EXAMPLE1",
            "Zx9aQ2mN8bV4cX7zL1kJ5hG3fD6sA0pOiU",
            "Authorization: Bearer abcdefghijklmnopqrstu",
        ] {
            assert!(looks_like_secret(secret), "{secret}");
        }
        for plain in [
            "Chose SQLite over Postgres: one file, no server.",
            "rejected the token bucket idea; too complex",
            "commit 3f1c2a9be0d4c6f7a8b9c0d1e2f3a4b5c6d7e8f9 is the fix",
            "the password field stays hidden",
        ] {
            assert!(!looks_like_secret(plain), "{plain}");
        }
    }
}
