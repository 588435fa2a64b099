//! The interleaved walk against aho-corasick's own overlapping search, around the split size.

use aho_corasick::{AhoCorasick, MatchKind};
use pretty_assertions::assert_eq;

use super::*;

/// What the library's own overlapping search reports, as (pattern, end) pairs.
fn reference(patterns: &[String], text: &str) -> Vec<Hit> {
    let Ok(automaton) = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(patterns)
    else {
        return Vec::new();
    };
    automaton
        .find_overlapping_iter(text)
        .map(|m| Hit {
            pattern: m.pattern().as_usize(),
            end: m.end(),
        })
        .collect()
}

#[test]
fn interleaved_lanes_report_exactly_what_an_overlapping_search_reports() {
    let patterns: Vec<String> = [
        "token", "oke", "ken", "secret_", "secret", "://", "a", "abcabc",
    ]
    .iter()
    .map(|p| (*p).to_owned())
    .collect();
    let Ok(keywords) = Keywords::new(&patterns) else {
        panic!("automaton failed to build");
    };
    // Sizes around the split threshold, with keywords straddling every lane boundary.
    let unit = "xx TOKEN secret_ https://h abcabcabc Sécrét ";
    let mut mismatches = Vec::new();
    for len in [
        0,
        1,
        7,
        MIN_SPLIT_LEN - 1,
        MIN_SPLIT_LEN,
        MIN_SPLIT_LEN + 3,
        50_000,
    ] {
        let mut text = unit.repeat(len / unit.len() + 1);
        text.truncate(text.floor_char_boundary(len));
        let got = keywords.hits(&text);
        let want = reference(&patterns, &text);
        if got != want {
            mismatches.push((len, got.len(), want.len()));
        }
    }
    assert_eq!(mismatches, Vec::new());
}

#[test]
fn hit_starts_are_derived_from_keyword_lengths() {
    let patterns = vec!["token".to_owned(), "ok".to_owned()];
    let Ok(keywords) = Keywords::new(&patterns) else {
        panic!("automaton failed to build");
    };
    let hits = keywords.hits("a token");
    let spans: Vec<(usize, usize, usize)> = hits
        .iter()
        .map(|h| (h.pattern, keywords.start_of(*h), h.end))
        .collect();
    assert_eq!(spans, vec![(1, 3, 5), (0, 2, 7)]);
}

#[test]
fn ranges_split_one_search_exactly() {
    let patterns: Vec<String> = ["token", "oke", "secret_", "abcabc"]
        .iter()
        .map(|p| (*p).to_owned())
        .collect();
    let Ok(keywords) = Keywords::new(&patterns) else {
        panic!("automaton failed to build");
    };
    let text = "xx TOKEN secret_ abcabcabc ".repeat(2000);
    let whole = keywords.hits(&text);
    // Cuts inside keywords, at lane-size boundaries and in the small-range path.
    for cuts in [
        vec![0, 5, text.len()],
        vec![0, 4, 10, MIN_SPLIT_LEN + 7, text.len() / 2 + 1, text.len()],
        vec![0, text.len() - 3, text.len()],
    ] {
        let mut split = Vec::new();
        let mut lanes = LaneHits::default();
        for w in cuts.windows(2) {
            keywords.hits_in(&text, w[0], w[1], &mut lanes, &mut split);
        }
        assert_eq!(split, whole, "{cuts:?}");
    }
}
