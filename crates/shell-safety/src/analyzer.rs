//! Rates a [`Script`]: every simple command, redirection, pipeline and function in it.
//!
//! Each simple command is resolved through its wrappers to the command that really runs, then
//! rated by the destructive rules, the read-only set, or neither (ask, `unknown`). Facts that
//! span several commands are checked on the whole script: a download piped into a shell, a
//! script downloaded and then run, text echoed into `sh`, a function that forks itself. Shell
//! strings (`bash -c`, `eval`, heredocs fed to a shell) are classified recursively, at most
//! [`MAX_NESTING`] levels deep. The most severe finding wins; ties keep the first found.

mod dynamic;

use std::cell::OnceCell;

use crate::BlastRadius::{High, Medium, Unknown};
use crate::findings::{
    Worst, adjust, assignment_finding, computed_name, elevation, finding, from_hit, generic,
    redirect_finding, worse,
};
use crate::paths::{self, Target};
use crate::rules::{self, Args, Context};
use crate::script::{self, Command, RedirectOp, Script};
use crate::word::{Word, command_name};
use crate::wrappers::{self, Wrap};
use crate::{BlastRadius, CONFIRMATION_REASON, Finding, Verdict, safe};

/// `find` tests that select some files rather than all.
const FIND_FILTERS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-newer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-user",
    "-group",
    "-empty",
    "-perm",
    "-links",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
];

/// How many shell strings deep (`bash -c "bash -c '…'"`) we follow.
const MAX_NESTING: usize = 4;

pub(crate) fn classify_top(command: &str) -> Verdict {
    let mut worst = Worst::default();
    let statements = classify_into(command, 0, &[], &mut worst);
    if statements == 0 && worst.0.is_none() {
        // Nothing to run: like the reference, an empty command still asks.
        worst.add(generic(command, CONFIRMATION_REASON));
    }
    match worst.0 {
        Some(finding) => Verdict::Ask(finding),
        None => Verdict::Safe,
    }
}

/// Classifies `source` into `worst`; returns its number of statements. `inherited` lists the
/// tainted variables of the scripts that run it (see [`dynamic`]).
fn classify_into(source: &str, depth: usize, inherited: &[String], worst: &mut Worst) -> usize {
    let script = match script::build(source) {
        Ok(script) => script,
        Err(err) => {
            worst.add(generic(
                source,
                format!("Shell command could not be inspected: {err}."),
            ));
            return 1;
        }
    };
    let mut analyzer = Analyzer::new(&script, depth, inherited);
    analyzer.run();
    worst.merge(analyzer.worst);
    script.statements
}

struct Analyzer<'a, 's> {
    script: &'a Script<'s>,
    depth: usize,
    worst: Worst,
    /// Text each command reads on stdin: its heredoc, or what an earlier pipeline stage echoes.
    stdin: Vec<Option<String>>,
    /// Basenames of files written by downloaders (`curl -o x.sh`, `wget … > x.sh`).
    downloads: Vec<String>,
    inherited: &'a [String],
    /// Variables that may hold attacker text; collected on first use.
    taint: OnceCell<dynamic::Taint>,
}

impl<'a, 's> Analyzer<'a, 's> {
    fn new(script: &'a Script<'s>, depth: usize, inherited: &'a [String]) -> Self {
        let mut analyzer = Self {
            script,
            depth,
            worst: Worst::default(),
            stdin: script
                .commands
                .iter()
                .map(|c| c.stdin_text.clone())
                .collect(),
            downloads: Vec::new(),
            inherited,
            taint: OnceCell::new(),
        };
        analyzer.feed_pipes();
        analyzer.collect_downloads();
        analyzer
    }

    fn taint(&self) -> &dynamic::Taint {
        self.taint
            .get_or_init(|| dynamic::Taint::of(self.script, self.inherited))
    }

    /// Whether an expansion may hold attacker text at run time.
    fn unknown(&self, word: &Word) -> bool {
        self.taint().unknown(word)
    }

    fn run(&mut self) {
        let script = self.script;
        if script.has_error {
            self.worst.add(generic(
                script.source,
                "Shell command has syntax errors and cannot be inspected reliably.",
            ));
        }
        if script.too_deep {
            self.worst.add(generic(
                script.source,
                "Shell command nests too deeply to inspect.",
            ));
        }
        for (index, command) in script.commands.iter().enumerate() {
            let found = self.command(index, command);
            if let Some(found) = found {
                self.worst.add(found);
            }
        }
        for redirect in &script.redirects {
            if let Some(found) = redirect_finding(redirect) {
                self.worst.add(found);
            }
        }
        for evaluation in &script.evaluated.texts {
            if let Some(found) = dynamic::evaluated_finding(evaluation, self.taint()) {
                self.worst.add(found);
            }
        }
        for (assignment, text) in &script.evaluated.assigned {
            if let Some(found) = assignment_finding(&assignment.name, &assignment.value, text) {
                self.worst.add(found);
            }
        }
        for stages in &script.pipelines {
            if let Some(found) = self.pipeline(stages) {
                self.worst.add(found);
            }
        }
        for function in &script.functions {
            if function.self_calls >= 2 || (function.self_calls >= 1 && function.backgrounds) {
                self.worst.add(finding(
                    High,
                    "fork-bomb",
                    format!("function `{}` spawns copies of itself", function.name),
                    function.text,
                ));
            }
        }
    }

    /// `echo 'rm -rf /' | sh`: what a stage prints becomes the next stage's stdin.
    fn feed_pipes(&mut self) {
        let commands = &self.script.commands;
        for stages in &self.script.pipelines {
            for pair in stages.windows(2) {
                let (Some(from), Some(to)) = (pair[0], pair[1]) else {
                    continue;
                };
                let emitted = commands
                    .get(from)
                    .and_then(|c| emitted_text(c, self.stdin[from].as_deref()));
                if let (Some(text), Some(slot)) = (emitted, self.stdin.get_mut(to))
                    && slot.is_none()
                {
                    *slot = Some(text);
                }
            }
        }
    }

    fn collect_downloads(&mut self) {
        for (index, command) in self.script.commands.iter().enumerate() {
            let (inner, _) = wrappers::innermost(&command.argv);
            let Some((head, args)) = inner.split_first() else {
                continue;
            };
            let name = command_name(&head.text);
            if !rules::is_downloader(&name) {
                continue;
            }
            let flag = if name == "wget" {
                ('O', "output-document")
            } else {
                ('o', "output")
            };
            if let Some(file) = wrappers::option_value(args, flag.0, flag.1) {
                self.downloads.push(command_name(&file));
            } else if let Some(url) = Args(args).operands().last() {
                let path = url.text.split(['?', '#']).next().unwrap_or("");
                self.downloads.push(command_name(path));
            }
            for redirect in &self.script.redirects {
                if redirect.command == Some(index) && redirect.op != RedirectOp::Read {
                    self.downloads.push(command_name(&redirect.target.text));
                }
            }
        }
        self.downloads.retain(|d| !d.is_empty() && d != "-");
    }

    fn command(&self, index: usize, command: &Command<'_>) -> Option<Finding> {
        let stdin = self.stdin.get(index).and_then(Option::as_deref);
        let mut found = None;
        for assignment in &command.assignments {
            found = worse(
                found,
                assignment_finding(&assignment.name, &assignment.value, command.text),
            );
        }
        if command.argv.is_empty() {
            return found;
        }
        worse(found, self.argv(&command.argv, command, stdin))
    }

    /// Rates `argv` run as (part of) `command`.
    fn argv(&self, argv: &[Word], command: &Command<'_>, stdin: Option<&str>) -> Option<Finding> {
        let (head, args) = argv.split_first()?;
        if head.fetches {
            return Some(finding(
                High,
                "remote-code",
                format!("runs code downloaded at run time: `{}`", head.text),
                command.text,
            ));
        }
        if head.opaque {
            return Some(computed_name(head, args, command.text));
        }
        let name = command_name(&head.text);
        let found = self.named(&name, args, command, stdin);
        if head.computed {
            let computed = Finding {
                category: Some("dynamic-command"),
                ..generic(
                    command.text,
                    format!("Command name is computed at run time: `{}`.", head.text),
                )
            };
            return worse(found, Some(computed));
        }
        found
    }

    fn named(
        &self,
        name: &str,
        args: &[Word],
        command: &Command<'_>,
        stdin: Option<&str>,
    ) -> Option<Finding> {
        if let Some(wrap) = wrappers::peel(name, args) {
            return self.wrapped(wrap, command, stdin);
        }
        if self.script.defines_function(name) {
            // The body was rated where the function is defined.
            return None;
        }
        if name == "find" {
            return self.find(args, command);
        }
        if rules::is_interpreter(name) {
            return self.interpreter(name, args, command, stdin);
        }
        if self.downloads.iter().any(|d| d == name) {
            return Some(finding(
                High,
                "remote-code",
                format!("runs downloaded file `{name}`"),
                command.text,
            ));
        }
        if let Some(hit) = rules::check(name, args, Context { stdin }) {
            return Some(from_hit(hit, command.text));
        }
        if dynamic::takes_names(name) {
            return dynamic::builtin(name, args, command, self.taint());
        }
        if safe::is_safe(name, Args(args), &|w| self.unknown(w)) {
            return None;
        }
        Some(generic(command.text, CONFIRMATION_REASON))
    }

    fn wrapped(
        &self,
        wrap: Wrap<'_>,
        command: &Command<'_>,
        stdin: Option<&str>,
    ) -> Option<Finding> {
        match wrap {
            Wrap::Exec {
                rest,
                env,
                elevates,
                keeps_safe,
                placeholder,
                appends,
            } => {
                let mut found = match placeholder {
                    Some(mark) => self.argv(&with_placeholder(rest, &mark), command, stdin),
                    None => self.argv(rest, command, stdin),
                };
                if appends && found.is_none() {
                    // `ls | xargs rg foo` beside a file named `--pre=sh`: input becomes
                    // arguments, options included.
                    let (inner, _) = wrappers::innermost(rest);
                    let reads_any = inner
                        .first()
                        .is_some_and(|head| safe::takes_any_arguments(&command_name(&head.text)));
                    if !reads_any {
                        found = Some(generic(command.text, CONFIRMATION_REASON));
                    }
                }
                for word in env {
                    if let Some((name, value)) = word.text.split_once('=') {
                        let value = Word {
                            text: value.to_owned(),
                            ..word.clone()
                        };
                        found = worse(found, assignment_finding(name, &value, command.text));
                    }
                }
                adjust(found, elevates, keeps_safe, command.text)
            }
            Wrap::Script {
                text,
                elevates,
                keeps_safe,
            } => {
                let found = self.nested(&text, command);
                adjust(found, elevates, keeps_safe, command.text)
            }
            Wrap::Bare { elevates: true, .. } => Some(elevation(Unknown, command.text)),
            Wrap::Bare { safe: true, .. } => None,
            Wrap::Bare { .. } => Some(generic(command.text, CONFIRMATION_REASON)),
        }
    }

    /// Classifies a shell string run by `command`.
    fn nested(&self, text: &str, command: &Command<'_>) -> Option<Finding> {
        if self.depth + 1 > MAX_NESTING {
            return Some(generic(
                command.text,
                "Shell command nests shell strings too deeply to inspect.",
            ));
        }
        let mut worst = Worst::default();
        classify_into(text, self.depth + 1, self.taint().names(), &mut worst);
        worst.0
    }

    fn find(&self, args: &[Word], command: &Command<'_>) -> Option<Finding> {
        // An expansion or a glob may become `-delete` or `-exec` at run time.
        let hidden = args.iter().any(|w| {
            (w.opaque && self.unknown(w)) || (w.glob && w.text.starts_with(['*', '?', '[', '{']))
        });
        if hidden {
            return Some(generic(command.text, CONFIRMATION_REASON));
        }
        let start = find_options_end(args);
        let roots: Vec<&Word> = args[start..]
            .iter()
            .take_while(|w| !(w.text.starts_with('-') || w.text == "(" || w.text == "!"))
            .collect();
        // A name or time filter narrows `find ~` to some files; nothing narrows `find /etc`.
        let filtered = args.iter().any(|w| FIND_FILTERS.contains(&w.text.as_str()));
        let broad = roots.is_empty()
            || roots.iter().any(|w| match paths::classify(w) {
                Target::System => !(filtered && paths::is_scratch(w)),
                Target::Device | Target::Sensitive => true,
                Target::Critical => !filtered || w.text.starts_with('/'),
                Target::Opaque => !filtered,
                _ => false,
            });
        let mut found = None;
        let mut i = start + roots.len();
        while let Some(word) = args.get(i) {
            i += 1;
            match word.text.as_str() {
                "-delete" => {
                    let radius = if broad { High } else { Medium };
                    let what = format!("`find … -delete` under `{}`", root_text(&roots));
                    found = worse(
                        found,
                        Some(finding(radius, "fs-delete", what, command.text)),
                    );
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let end = args[i..]
                        .iter()
                        .position(|w| w.text == ";" || w.text == "+")
                        .map_or(args.len(), |p| i + p);
                    let nested = with_placeholder(&args[i..end], "{}");
                    i = end + 1;
                    let mut inner = self.argv(&nested, command, None);
                    if let Some(f) = inner.as_mut()
                        && broad
                        && f.category.is_some_and(|c| c.starts_with("fs-"))
                    {
                        f.blast_radius = High;
                    }
                    found = worse(found, inner);
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    let file = args.get(i).cloned().unwrap_or_default();
                    let radius = match paths::classify(&file) {
                        Target::System | Target::Sensitive | Target::Device => High,
                        Target::Opaque | Target::Critical => Medium,
                        _ => BlastRadius::Low,
                    };
                    let what = format!("`find` writes `{}`", file.text);
                    found = worse(
                        found,
                        Some(finding(radius, "fs-overwrite", what, command.text)),
                    );
                }
                _ => {}
            }
        }
        found
    }

    fn interpreter(
        &self,
        name: &str,
        args: &[Word],
        command: &Command<'_>,
        stdin: Option<&str>,
    ) -> Option<Finding> {
        if args.iter().any(|w| w.fetches) || command.stdin_fetches {
            return Some(finding(
                High,
                "remote-code",
                format!("`{name}` runs code downloaded at run time"),
                command.text,
            ));
        }
        if safe::is_safe(name, Args(args), &|w| self.unknown(w)) {
            return None;
        }
        if name.starts_with("python")
            && args.first().is_some_and(|w| w.text == "-m")
            && let Some(module) = args.get(1).filter(|m| m.text == "pip")
        {
            return self.named(&module.text, &args[2..], command, stdin);
        }
        match script_operand(name, args) {
            Some(script) if self.downloads.contains(&command_name(&script.text)) => Some(finding(
                High,
                "remote-code",
                format!("`{name}` runs downloaded script `{}`", script.text),
                command.text,
            )),
            Some(_) => Some(generic(command.text, CONFIRMATION_REASON)),
            None => match stdin {
                Some(text) if wrappers::is_shell(name) => self.nested(text, command),
                _ => Some(generic(command.text, CONFIRMATION_REASON)),
            },
        }
    }

    /// `curl … | sh`, `base64 -d | bash`: a stage runs what earlier stages produce.
    fn pipeline(&self, stages: &[Option<usize>]) -> Option<Finding> {
        let commands = &self.script.commands;
        for (j, stage) in stages.iter().enumerate() {
            let Some(command) = stage.and_then(|i| commands.get(i)) else {
                continue;
            };
            let (inner, _) = wrappers::innermost(&command.argv);
            let Some((head, args)) = inner.split_first() else {
                continue;
            };
            let name = command_name(&head.text);
            let runs_input = head.opaque
                || (rules::is_interpreter(&name)
                    && wrappers::peel(&name, args).is_none()
                    && script_operand(&name, args).is_none());
            if !runs_input {
                continue;
            }
            let upstream = stages[..j]
                .iter()
                .filter_map(|s| s.and_then(|i| commands.get(i)));
            for source in upstream {
                let (up, _) = wrappers::innermost(&source.argv);
                let Some((up_head, up_args)) = up.split_first() else {
                    continue;
                };
                let up_name = command_name(&up_head.text);
                let text = format!("{} | {}", source.text, command.text);
                if rules::is_downloader(&up_name) || up.iter().any(|w| w.fetches) {
                    return Some(finding(
                        High,
                        "remote-code",
                        format!("pipes a download into `{name}`"),
                        &text,
                    ));
                }
                if rules::is_decoder(&up_name, up_args) {
                    return Some(finding(
                        High,
                        "obfuscated-command",
                        format!("pipes decoded data into `{name}`"),
                        &text,
                    ));
                }
            }
        }
        None
    }
}

/// The script file an interpreter runs, if any (`None`: it reads stdin).
fn script_operand<'w>(name: &str, args: &'w [Word]) -> Option<&'w Word> {
    if matches!(name, "source" | ".") {
        return args.first();
    }
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if text == "-" {
            return None;
        }
        if text == "--" {
            return args.get(i + 1);
        }
        if (text.starts_with('-') || text.starts_with('+')) && text.len() > 1 && !word.opaque {
            let flags = &text[1..];
            // A shell's `-s` reads the script from stdin; other interpreters' `-c`/`-e`/`-m`
            // give the code inline.
            if wrappers::is_shell(name) && flags.contains('s') {
                return None;
            }
            if !wrappers::is_shell(name) && flags.contains(['c', 'e', 'm', 'E']) {
                return Some(word);
            }
            i += if wrappers::is_shell(name) && flags.contains(['o', 'O']) {
                2
            } else {
                1
            };
            continue;
        }
        return Some(word);
    }
    None
}

/// `find`'s own leading options (`-H`, `-L`, `-P`, `-D opts`, `-O3`); `-delete` and the like
/// are expressions, not options.
fn find_options_end(args: &[Word]) -> usize {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        match word.text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            text if text.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    i.min(args.len())
}

/// Marks words holding `mark` (`{}` of `find -exec`, `xargs -I`) as unknown until run time.
fn with_placeholder(words: &[Word], mark: &str) -> Vec<Word> {
    words
        .iter()
        .map(|w| Word {
            opaque: w.opaque || (!mark.is_empty() && w.text.contains(mark)),
            ..w.clone()
        })
        .collect()
}

fn root_text(roots: &[&Word]) -> String {
    match roots.first() {
        Some(root) => root.text.clone(),
        None => ".".to_owned(),
    }
}

/// What `echo`/`printf`/`cat` (with a heredoc) print, when it is static.
fn emitted_text(command: &Command<'_>, stdin: Option<&str>) -> Option<String> {
    let (inner, _) = wrappers::innermost(&command.argv);
    let (head, args) = inner.split_first()?;
    match command_name(&head.text).as_str() {
        "echo" => {
            let start = args
                .iter()
                .take_while(|a| a.text.starts_with('-') && a.text.len() > 1)
                .count();
            let texts: Vec<&str> = args[start..].iter().map(Word::as_str).collect();
            Some(texts.join(" "))
        }
        "printf" => {
            let texts: Vec<&str> = args.iter().map(Word::as_str).collect();
            Some(texts.join(" ").replace("\\n", "\n"))
        }
        "cat" if args.is_empty() => stdin.map(str::to_owned),
        _ => None,
    }
}

#[cfg(test)]
#[path = "analyzer_tests.rs"]
mod tests;
