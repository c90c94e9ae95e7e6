//! How text becomes terms for recall: lower-case words, the character
//! trigrams of each word of four letters or more (so a shared stem matches
//! across endings), and CJK single characters and pairs (CJK has no spaces
//! to split words on).

/// Whether `c` is written without spaces between words (Han, kana, Hangul).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// The words of `text`, lower-case, and each run of CJK characters as one
/// piece: what the exact-word path compares.
pub fn words_of(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut cjk = false;
    for c in text.chars() {
        let this_cjk = is_cjk(c);
        if !(this_cjk || c.is_alphanumeric()) || (this_cjk != cjk && !word.is_empty()) {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            if !(this_cjk || c.is_alphanumeric()) {
                continue;
            }
        }
        cjk = this_cjk;
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The recall terms of `text`: every word, `~` and each trigram of a word of
/// four letters or more, and for a CJK run each character and each pair.
pub fn terms_of(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for word in words_of(text) {
        let chars: Vec<char> = word.chars().collect();
        if chars.first().copied().is_some_and(is_cjk) {
            for (at, c) in chars.iter().enumerate() {
                terms.push(c.to_string());
                if let Some(next) = chars.get(at + 1) {
                    terms.push(format!("{c}{next}"));
                }
            }
            continue;
        }
        if chars.len() >= 4 {
            for window in chars.windows(3) {
                terms.push(format!("~{}", window.iter().collect::<String>()));
            }
        }
        terms.push(word);
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_get_trigrams_from_four_letters_and_cjk_gets_characters_and_pairs() {
        assert_eq!(
            terms_of("Cat deploys"),
            vec!["cat", "~dep", "~epl", "~plo", "~loy", "~oys", "deploys"]
        );
        assert_eq!(terms_of("部署了"), vec!["部", "部署", "署", "署了", "了"]);
        assert_eq!(words_of("Ada说: ship it!"), vec!["ada", "说", "ship", "it"]);
    }
}
