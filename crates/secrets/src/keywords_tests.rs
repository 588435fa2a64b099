//! The interleaved walk against aho-corasick's own overlapping search, around the split size
//! and on real source code.

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

/// Source files under `dir` (sorted, at most `cap`), read as text.
fn real_files(dir: &std::path::Path, ext: &str, cap: usize, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if out.len() >= cap {
            return;
        }
        if path.is_dir() && !path.is_symlink() {
            real_files(&path, ext, cap, out);
        } else if path.extension().is_some_and(|e| e == ext)
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            out.push(text);
        }
    }
}

#[test]
fn the_lane_walk_reports_what_an_overlapping_search_reports_on_real_code_with_secrets() {
    let mut patterns: Vec<String> = crate::rules::RULES
        .iter()
        .flat_map(|rule| rule.keywords.iter().map(|k| k.to_ascii_lowercase()))
        .collect();
    patterns.sort_unstable();
    patterns.dedup();
    let Ok(keywords) = Keywords::new(&patterns) else {
        panic!("automaton failed to build");
    };
    let mut files = Vec::new();
    real_files(
        std::path::Path::new("/usr/lib/python3.11"),
        "py",
        150,
        &mut files,
    );
    real_files(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        "rs",
        50,
        &mut files,
    );
    // Keywords in odd case at every file boundary, so they straddle lane and block cuts.
    let planted = [
        "GHP_abc",
        "Token=",
        "x-API-KEY: ",
        "-----BEGIN RSA",
        "Q~",
        "s\\\"PASSWORD",
    ];
    let mut text = String::new();
    for (i, file) in files.iter().enumerate() {
        text.push_str(planted[i % planted.len()]);
        text.push_str(file);
    }
    assert!(text.len() > 1 << 18, "too little real code: {}", text.len());
    let want = reference(&patterns, &text);
    assert!(!want.is_empty());
    assert_eq!(keywords.hits(&text), want);
    // In blocks, as the engine walks it, cut at odd places.
    let mut split = Vec::new();
    let mut lanes = LaneHits::default();
    let mut from = 0;
    for step in [1, 2, 3, 5_000, 65_536, 100_003].iter().cycle() {
        let to = text.len().min(from + step);
        keywords.hits_in(&text, from, to, &mut lanes, &mut split);
        from = to;
        if from == text.len() {
            break;
        }
    }
    assert_eq!(split, want);
}
