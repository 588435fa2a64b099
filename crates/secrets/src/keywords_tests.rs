//! Both walks (from the packed searcher's candidate starts, and over interleaved lanes) against
//! aho-corasick's own overlapping search, around the split size and on real source code.

use aho_corasick::{AhoCorasick, MatchKind};
use pretty_assertions::assert_eq;

use super::*;

/// The automaton twice: with its packed searcher (where the CPU has one) and without.
fn both_walks(patterns: &[String]) -> [Keywords; 2] {
    let build = || match Keywords::new(patterns) {
        Ok(keywords) => keywords,
        Err(e) => panic!("automaton failed to build: {e}"),
    };
    [build(), build().without_searcher()]
}

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
    // Sizes around the split threshold, with keywords straddling every lane boundary.
    let unit = "xx TOKEN secret_ https://h abcabcabc Sécrét ";
    let mut mismatches = Vec::new();
    for (keywords, len) in both_walks(&patterns).iter().flat_map(|k| {
        [
            0,
            1,
            7,
            MIN_SPLIT_LEN - 1,
            MIN_SPLIT_LEN,
            MIN_SPLIT_LEN + 3,
            50_000,
        ]
        .map(|len| (k, len))
    }) {
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
    let text = "xx TOKEN secret_ abcabcabc ".repeat(2000);
    let walks = both_walks(&patterns);
    let whole = walks[1].hits(&text);
    // Cuts inside keywords, at lane-size boundaries and in the small-range path.
    for (keywords, cuts) in walks.iter().flat_map(|k| {
        [
            vec![0, 5, text.len()],
            vec![0, 4, 10, MIN_SPLIT_LEN + 7, text.len() / 2 + 1, text.len()],
            vec![0, text.len() - 3, text.len()],
        ]
        .map(|cuts| (k, cuts))
    }) {
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
fn the_searcher_walk_reports_what_the_lane_walk_reports_on_real_code_with_secrets() {
    let mut patterns: Vec<String> = crate::rules::RULES
        .iter()
        .flat_map(|rule| rule.keywords.iter().map(|k| k.to_ascii_lowercase()))
        .collect();
    patterns.sort_unstable();
    patterns.dedup();
    let [searcher, lanes] = both_walks(&patterns);
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        assert!(searcher.has_searcher(), "no packed searcher on an AVX2 CPU");
    }
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
    // Secrets in odd case and at file edges, so keywords straddle every file boundary.
    let planted = [
        "GHP_abc",
        "Token=",
        "x-API-KEY: ",
        "-----BEGIN RSA",
        "Q~",
        "s\"PASSWORD",
    ];
    let mut text = String::new();
    for (i, file) in files.iter().enumerate() {
        text.push_str(planted[i % planted.len()]);
        text.push_str(file);
    }
    assert!(text.len() > 1 << 19, "too little real code: {}", text.len());
    let want = lanes.hits(&text);
    assert_eq!(searcher.hits(&text), want);
    assert!(!want.is_empty());
    // In blocks, as the engine walks it, cut at odd places.
    let mut split = Vec::new();
    let mut scratch = LaneHits::default();
    let mut from = 0;
    for step in [1, 2, 3, 5_000, 65_536, 100_003].iter().cycle() {
        let to = text.len().min(from + step);
        searcher.hits_in(&text, from, to, &mut scratch, &mut split);
        from = to;
        if from == text.len() {
            break;
        }
    }
    assert_eq!(split, want);
}
