//! Hostile input: deep nesting, long chains, garbage. The classifier must answer (never panic,
//! never overflow the stack) and must not call any of it safe by accident.

use pretty_assertions::assert_eq;
use tether_shell_safety::{BlastRadius, Verdict, classify};

fn radius(command: &str) -> Option<BlastRadius> {
    classify(command).finding().map(|f| f.blast_radius)
}

#[test]
fn deeply_nested_substitutions_ask_instead_of_overflowing() {
    let depth = 5_000;
    let command = format!("{}ls{}", "echo $(".repeat(depth), ")".repeat(depth));
    assert_eq!(radius(&command), Some(BlastRadius::Unknown));
}

#[test]
fn unbalanced_nesting_asks() {
    let command = "$(".repeat(20_000);
    assert_eq!(radius(&command), Some(BlastRadius::Unknown));
}

#[test]
fn a_long_and_list_still_finds_the_delete_at_its_end() {
    let mut command = "ls && ".repeat(100);
    command.push_str("rm -rf /");
    assert_eq!(radius(&command), Some(BlastRadius::High));
}

#[test]
fn an_overlong_and_list_asks() {
    let mut command = "ls && ".repeat(2_000);
    command.push_str("ls");
    assert_eq!(radius(&command), Some(BlastRadius::Unknown));
}

#[test]
fn shell_strings_nested_past_the_limit_ask() {
    // Each level wraps the previous one in `bash -c '…'` with quotes escaped for the next.
    let nest = |levels: usize| {
        let mut command = "ls".to_owned();
        for _ in 0..levels {
            command = format!("bash -c {}", shell_quote(&command));
        }
        command
    };
    assert_eq!(classify(&nest(3)), Verdict::Safe);
    let deep = classify(&nest(8));
    assert_eq!(
        deep.finding().map(|f| (f.blast_radius, f.reason.as_str())),
        Some((
            BlastRadius::Unknown,
            "Shell command nests shell strings too deeply to inspect."
        ))
    );
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[test]
fn a_command_over_the_size_limit_asks() {
    let command = format!("echo {}", "a".repeat(2 << 20));
    let verdict = classify(&command);
    let reason = verdict
        .finding()
        .map(|f| f.reason.clone())
        .unwrap_or_default();
    assert_eq!(
        verdict.finding().map(|f| f.blast_radius),
        Some(BlastRadius::Unknown)
    );
    assert!(
        reason.starts_with("Shell command could not be inspected: command is"),
        "{reason}"
    );
}

#[test]
fn non_ascii_text_is_handled() {
    assert_eq!(classify("echo 'héllo wörld' | grep ö"), Verdict::Safe);
    assert_eq!(radius("rm -rf /é"), Some(BlastRadius::High));
    assert_eq!(radius("rm -rf ~/文档"), Some(BlastRadius::Medium));
}

/// A small deterministic generator, so failures reproduce without a fuzzing dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_shell_fragments_never_panic() {
    const PIECES: &[&str] = &[
        "rm", "-rf", "/", "~", "$(", ")", "`", "'", "\"", "\\", "|", "||", "&&", ";", "&", "<",
        ">", ">>", "<<EOF\n", "EOF\n", "<<<", "(", "{", "}", "[[", "]]", "if", "then", "fi", "for",
        "do", "done", "case", "esac", ";;", "$X", "${X:-y}", "$'\\x72'", "bash -c", "eval", "sudo",
        "xargs", "find", "-exec", "{}", "\\;", "-delete", "*", "é", "\n", " ", "#", "=", "<(",
        "$((", "))", "curl", "sh", "f()", ":",
    ];
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut safe = 0;
    for _ in 0..3_000 {
        let len = 1 + (rng.next() % 24) as usize;
        let mut command = String::new();
        for _ in 0..len {
            let index = (rng.next() % PIECES.len() as u64) as usize;
            command.push_str(PIECES[index]);
            if rng.next().is_multiple_of(3) {
                command.push(' ');
            }
        }
        if classify(&command).is_safe() {
            safe += 1;
            // Whatever passes must not contain an obviously destructive token.
            assert!(!command.contains("rm -rf /"), "{command:?} was called safe");
        }
    }
    assert!(safe < 3_000, "garbage is not all safe");
}
