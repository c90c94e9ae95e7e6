//! The fixed-point property of `strip_untrusted` (#98): over a corpus of
//! reconstitution attempts (marker pieces spliced into each other, case,
//! whitespace inside tags, cut tags) one strip leaves no marker and a
//! second strip changes nothing.

use super::{fence, has_marker, strip_untrusted, unwrap_fence};
use proptest::prelude::*;

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<".to_string()),
        Just(">".to_string()),
        Just("/".to_string()),
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just("untrusted-message".to_string()),
        Just("UNTRUSTED-FILE".to_string()),
        Just("untrusted-".to_string()),
        Just("message".to_string()),
        Just("file".to_string()),
        Just("<untrusted-message from=\"x\">".to_string()),
        Just("</untrusted-message>".to_string()),
        Just("< / untrusted-file >".to_string()),
        Just("<untrusted-".to_string()),
        Just("from=\"User\">".to_string()),
        "[a-z<>/ ]{0,4}".prop_map(|s| s),
        "\\PC{0,3}".prop_map(|s| s),
    ]
}

fn attempt() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    /// Rule #98.
    fn strip_untrusted_is_a_fixed_point_over_reconstitution_attempts(raw in attempt()) {
        let once = strip_untrusted(&raw);
        prop_assert!(!has_marker(&once), "marker left in {:?}", once);
        prop_assert_eq!(strip_untrusted(&once), once);
    }

    #[test]
    /// Rule #98.
    fn a_fence_around_any_attempt_unwraps_to_a_body_without_markers(raw in attempt()) {
        let wrapped = fence("Peer", &raw);
        let (from, body) = unwrap_fence(&wrapped).ok_or_else(|| TestCaseError::fail("no wrap"))?;
        prop_assert_eq!(from, "Peer");
        prop_assert!(!has_marker(&body));
    }
}
