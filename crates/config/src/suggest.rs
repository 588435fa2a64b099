//! "Did you mean" suggestions for misspelt keys and names.

/// The candidate closest to `word`, if it is close enough to be a likely typo or a truncation.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(2);
    let near = candidates
        .iter()
        .map(|c| (distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    near.or_else(|| {
        (word.len() >= 3)
            .then(|| {
                candidates
                    .iter()
                    .filter(|c| c.starts_with(word))
                    .min_by_key(|c| c.len())
                    .copied()
            })
            .flatten()
    })
}

/// Optimal-string-alignment distance: edits plus adjacent transpositions, over characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_typos_transpositions_and_truncations() {
        let keys = ["command", "timeout", "type", "model", "pre_tool_use"];
        assert_eq!(closest("comand", &keys), Some("command"));
        assert_eq!(closest("timout", &keys), Some("timeout"));
        assert_eq!(closest("modle", &keys), Some("model"));
        assert_eq!(closest("pre_tool", &keys), Some("pre_tool_use"));
        assert_eq!(closest("zzzzzz", &keys), None);
    }
}
