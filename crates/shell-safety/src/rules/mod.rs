//! The destructive taxonomy: one function per command family, dispatched by command name.
//!
//! Rules receive an already-normalised name and evaluated arguments (wrappers peeled, quotes
//! removed) and answer with a [`Hit`] or nothing. They are plain code rather than a pattern
//! table because the interesting distinctions are about options and operands (`rm -r` on `/`
//! versus on `build/`, `git push` with or without `--force`), which regexes over text get wrong
//! in both directions. Categories follow the reference's naming (`fs-delete`, `dk-volume-del`,
//! …) and extend it to the families it lacks.

pub(crate) mod containers;
mod fs;
mod system;
pub(crate) mod vcs;

pub(crate) use system::history_setting_hides;

use crate::BlastRadius;
use crate::word::Word;

/// A destructive rule matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) radius: BlastRadius,
    pub(crate) category: &'static str,
    /// What matched, for the reason text ("recursive delete of `/`").
    pub(crate) what: String,
}

impl Hit {
    pub(crate) fn new(
        radius: BlastRadius,
        category: &'static str,
        what: impl Into<String>,
    ) -> Self {
        Self {
            radius,
            category,
            what: what.into(),
        }
    }
}

/// What a rule may know about the command besides its argv.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Context<'a> {
    /// Text arriving on stdin (heredoc, here-string, or echoed into a pipe).
    pub(crate) stdin: Option<&'a str>,
}

/// Asks every family about `name args…`; the first family that knows the command answers.
pub(crate) fn check(name: &str, args: &[Word], ctx: Context<'_>) -> Option<Hit> {
    let args = Args(args);
    fs::check(name, args)
        .or_else(|| vcs::check(name, args))
        .or_else(|| containers::check(name, args))
        .or_else(|| system::check(name, args, ctx))
}

/// Programs that fetch remote content.
pub(crate) fn is_downloader(name: &str) -> bool {
    matches!(
        name,
        "curl"
            | "wget"
            | "fetch"
            | "http"
            | "https"
            | "xh"
            | "xhs"
            | "aria2c"
            | "lwp-download"
            | "lynx"
    )
}

/// Programs that execute code read from stdin or a file operand.
pub(crate) fn is_interpreter(name: &str) -> bool {
    crate::wrappers::is_shell(name)
        || matches!(
            name,
            "python"
                | "python2"
                | "python3"
                | "perl"
                | "ruby"
                | "node"
                | "nodejs"
                | "php"
                | "lua"
                | "deno"
                | "bun"
                | "osascript"
                | "pwsh"
                | "powershell"
                | "source"
                | "."
        )
}

/// Programs that turn encoded text back into something runnable.
pub(crate) fn is_decoder(name: &str, args: &[Word]) -> bool {
    let args = Args(args);
    match name {
        "base64" | "base32" | "basenc" => args.flag('d', "decode"),
        "xxd" => args.short('r'),
        "openssl" => args.has("-d"),
        "gunzip" | "zcat" | "bzcat" | "xzcat" | "rev" | "uudecode" => true,
        _ => false,
    }
}

/// Argument helpers shared by the rules.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Args<'a>(pub(crate) &'a [Word]);

impl<'a> Args<'a> {
    /// Arguments before `--`.
    fn options_part(self) -> &'a [Word] {
        let end = self
            .0
            .iter()
            .position(|w| w.text == "--")
            .unwrap_or(self.0.len());
        &self.0[..end]
    }

    /// Arguments up to the `--` that ends the options, for checks that must not miss an
    /// option: a `--` right after an option may be that option's value (`rg -e -- --pre=sh`),
    /// so only a `--` after an operand, or first, counts.
    fn options_part_strict(self) -> &'a [Word] {
        let end = self
            .0
            .iter()
            .enumerate()
            .position(|(i, w)| w.text == "--" && (i == 0 || !self.0[i - 1].text.starts_with('-')))
            .unwrap_or(self.0.len());
        &self.0[..end]
    }

    /// A short option cluster (`-rf`) contains `c`.
    pub(crate) fn short(self, c: char) -> bool {
        self.options_part()
            .iter()
            .any(|w| w.is_option() && !w.text.starts_with("--") && w.text[1..].contains(c))
    }

    /// `--name` or `--name=…` appears.
    pub(crate) fn long(self, name: &str) -> bool {
        self.options_part().iter().any(|w| {
            w.text
                .strip_prefix("--")
                .and_then(|rest| rest.strip_prefix(name))
                .is_some_and(|tail| tail.is_empty() || tail.starts_with('='))
        })
    }

    pub(crate) fn flag(self, short: char, long: &str) -> bool {
        self.short(short) || self.long(long)
    }

    /// `--name`, or any abbreviation of it (`--out=f` for `--output`), with or without `=…`:
    /// getopt_long and git's parser accept a unique prefix, and an ambiguous one is an error,
    /// so matching every prefix errs only towards asking.
    pub(crate) fn long_prefix(self, name: &str) -> bool {
        self.options_part_strict().iter().any(|w| {
            w.text.strip_prefix("--").is_some_and(|rest| {
                let given = rest.split_once('=').map_or(rest, |(n, _)| n);
                !given.is_empty() && name.starts_with(given)
            })
        })
    }

    /// The short flag (see [`Self::options_part_strict`]) or any abbreviation of the long one
    /// (see [`Self::long_prefix`]).
    pub(crate) fn flag_prefix(self, short: char, long: &str) -> bool {
        self.short_strict(short) || self.long_prefix(long)
    }

    /// [`Self::short`] over [`Self::options_part_strict`].
    pub(crate) fn short_strict(self, c: char) -> bool {
        self.options_part_strict()
            .iter()
            .any(|w| w.is_option() && !w.text.starts_with("--") && w.text[1..].contains(c))
    }

    /// Some word before `--` may turn into an option we cannot read: an expansion whose value
    /// `unknown` says may be anything (`rg $x foo` after `x=--pre=sh`), or a glob or brace
    /// expansion that can produce a leading `-` (`rg foo *` beside a file named `--pre=sh`).
    pub(crate) fn hides_option(self, unknown: &dyn Fn(&Word) -> bool) -> bool {
        self.options_part_strict().iter().any(|w| {
            (w.opaque && unknown(w))
                || (w.glob
                    && (w.text.starts_with(['*', '?', '[', '{'])
                        || (w.text.starts_with('-') && w.text.contains(['*', '?', '[', '{']))))
        })
    }

    /// Some word may stand for any number of words (a glob, or an expansion `unknown` says
    /// may be anything): the operand count is unknown until run time.
    pub(crate) fn hides_operands(self, unknown: &dyn Fn(&Word) -> bool) -> bool {
        self.0.iter().any(|w| w.glob || (w.opaque && unknown(w)))
    }

    /// Some argument is exactly `text`.
    pub(crate) fn has(self, text: &str) -> bool {
        self.0.iter().any(|w| w.text == text)
    }

    /// Some argument starts with `prefix`.
    pub(crate) fn has_prefix(self, prefix: &str) -> bool {
        self.0.iter().any(|w| w.text.starts_with(prefix))
    }

    /// Arguments that are not options (everything after `--`).
    pub(crate) fn operands(self) -> Vec<&'a Word> {
        let mut after_dashes = false;
        self.0
            .iter()
            .filter(|w| {
                if after_dashes {
                    return true;
                }
                if w.text == "--" {
                    after_dashes = true;
                    return false;
                }
                !w.is_option()
            })
            .collect()
    }

    /// The first operand (usually a subcommand) and the arguments after it.
    pub(crate) fn subcommand(self) -> Option<(&'a str, Self)> {
        let index = self.0.iter().position(|w| !w.is_option())?;
        Some((self.0[index].text.as_str(), Self(&self.0[index + 1..])))
    }

    /// The value of `--name=v` or `--name v`.
    pub(crate) fn long_value(self, name: &str) -> Option<&'a str> {
        let mut iter = self.0.iter();
        while let Some(w) = iter.next() {
            if let Some(rest) = w.text.strip_prefix("--").and_then(|r| r.strip_prefix(name)) {
                if let Some(value) = rest.strip_prefix('=') {
                    return Some(value);
                }
                if rest.is_empty() {
                    return iter.next().map(Word::as_str);
                }
            }
        }
        None
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn words(self) -> &'a [Word] {
        self.0
    }
}

/// Renders words back into a short command-like string for reason texts.
pub(crate) fn render(name: &str, args: Args<'_>) -> String {
    let mut out = name.to_owned();
    for word in args.0.iter().take(8) {
        out.push(' ');
        out.push_str(&word.text);
    }
    if args.0.len() > 8 {
        out.push_str(" …");
    }
    out
}
