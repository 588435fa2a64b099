use pretty_assertions::assert_eq;

use super::*;

fn words(text: &str) -> Vec<Word> {
    text.split_whitespace().map(Word::literal).collect()
}

#[test]
fn interpreters_read_stdin_unless_given_a_script() {
    let operand = |name: &str, args: &str| {
        let args = words(args);
        script_operand(name, &args).map(|w| w.text.clone())
    };
    assert_eq!(operand("bash", ""), None);
    assert_eq!(operand("bash", "-"), None);
    assert_eq!(
        operand("bash", "-x -o pipefail install.sh"),
        Some("install.sh".to_owned())
    );
    assert_eq!(operand("bash", "-s -- --flag"), None);
    assert_eq!(operand("python3", "-c print(1)"), Some("-c".to_owned()));
    assert_eq!(operand("python3", "-u"), None);
    assert_eq!(operand("source", "env.sh"), Some("env.sh".to_owned()));
}

#[test]
fn echo_printf_and_heredoc_cat_emit_their_text() {
    let emitted = |text: &str, stdin: Option<&str>| {
        let command = Command {
            text,
            assignments: Vec::new(),
            argv: words(text),
            stdin_text: None,
            stdin_fetches: false,
        };
        emitted_text(&command, stdin)
    };
    assert_eq!(
        emitted("echo -n rm -rf /", None),
        Some("rm -rf /".to_owned())
    );
    assert_eq!(emitted("printf ls\\n", None), Some("ls\n".to_owned()));
    assert_eq!(emitted("cat", Some("rm x\n")), Some("rm x\n".to_owned()));
    assert_eq!(emitted("cat file", Some("rm x\n")), None);
}
