//! Filesystem deletes, overwrites and permission changes, and block-device tools.
//!
//! The radius depends on what the operands point at ([`paths::classify`]): recursion over `/`,
//! `~`, `.` or a system directory is high, over a project directory medium, one ordinary file
//! low. Operands we cannot resolve (`$DIR/`) are treated as possibly critical when recursive.

use super::{Args, Hit, render};
use crate::BlastRadius::{self, High, Low, Medium};
use crate::paths::{self, Target};
use crate::word::Word;
use crate::wrappers;

pub(super) fn check(name: &str, args: Args<'_>) -> Option<Hit> {
    match name {
        "rm" => Some(rm(args)),
        "rmdir" => Some(simple_delete(name, args, Low)),
        "unlink" => Some(simple_delete(name, args, Low)),
        "shred" | "srm" | "wipe" => Some(shred(name, args)),
        "truncate" => Some(truncate(args)),
        "dd" => dd(args),
        "cp" | "install" => copy_onto(name, args),
        "mv" => mv(args),
        "ln" => ln(args),
        "tee" => tee(args),
        "rsync" => rsync(args),
        "curl" | "wget" => download_onto(name, args),
        "chmod" => Some(chmod(args)),
        "chown" | "chgrp" => Some(chown(name, args)),
        "setfacl" => Some(acl(name, args)),
        "chattr" | "chflags" => Some(acl(name, args)),
        _ => block_device(name, args),
    }
}

/// The operand with the most critical target.
fn worst<'a>(operands: &[&'a Word]) -> Option<(Target, &'a Word)> {
    // Keep the first of equally critical operands, so the reason names it.
    operands
        .iter()
        .fold(None, |best: Option<(Target, &'a Word)>, w| {
            let target = paths::classify(w);
            match best {
                Some((t, _)) if t >= target => best,
                _ => Some((target, *w)),
            }
        })
}

fn rm(args: Args<'_>) -> Hit {
    let recursive = args.short('r') || args.short('R') || args.long("recursive");
    let kind = if recursive {
        "recursive delete"
    } else {
        "delete"
    };
    if args.long("no-preserve-root") {
        return Hit::new(High, "fs-delete", "`rm --no-preserve-root` may delete `/`");
    }
    let operands = args.operands();
    let Some((target, word)) = worst(&operands) else {
        let radius = if recursive { High } else { Medium };
        return Hit::new(
            radius,
            "fs-delete",
            format!("{kind} of paths read from standard input"),
        );
    };
    if operands.iter().any(|w| paths::is_history_file(w)) {
        return Hit::new(High, "history-tamper", "deletes shell history");
    }
    let radius = match (target, recursive) {
        (Target::System | Target::Device | Target::Sensitive, _)
        | (Target::Critical | Target::Opaque, true) => High,
        (Target::Critical | Target::Opaque | Target::Glob, false)
        | (Target::HomeChild | Target::Glob | Target::Ordinary, true) => Medium,
        (Target::HomeChild | Target::Ordinary, false) => Low,
    };
    Hit::new(radius, "fs-delete", format!("{kind} of `{}`", word.text))
}

fn simple_delete(name: &str, args: Args<'_>, base: BlastRadius) -> Hit {
    let radius = match worst(&args.operands()) {
        Some((Target::System | Target::Device | Target::Sensitive | Target::Critical, _)) => High,
        Some((Target::Opaque | Target::Glob, _)) => Medium,
        _ => base,
    };
    Hit::new(radius, "fs-delete", format!("`{}`", render(name, args)))
}

fn shred(name: &str, args: Args<'_>) -> Hit {
    let operands = args.operands();
    if operands.iter().any(|w| paths::is_history_file(w)) {
        return Hit::new(High, "history-tamper", "shreds shell history");
    }
    match worst(&operands) {
        Some((Target::Device, word)) => Hit::new(
            High,
            "block-device",
            format!("overwrites block device `{}`", word.text),
        ),
        Some((Target::System | Target::Sensitive | Target::Critical | Target::Opaque, word)) => {
            Hit::new(
                High,
                "fs-delete",
                format!("irrecoverably overwrites `{}`", word.text),
            )
        }
        _ => Hit::new(
            Medium,
            "fs-delete",
            format!("irrecoverably overwrites files: `{}`", render(name, args)),
        ),
    }
}

fn truncate(args: Args<'_>) -> Hit {
    // `-s SIZE` / `-r FILE` take values: only the last operands are files, but the size
    // itself rates as an ordinary path, so all operands can be rated together.
    let operands = args.operands();
    if operands.iter().any(|w| paths::is_history_file(w)) {
        return Hit::new(High, "history-tamper", "truncates shell history");
    }
    let (radius, word) = match worst(&operands) {
        Some((Target::System | Target::Device | Target::Sensitive | Target::Critical, w)) => {
            (High, w.text.as_str())
        }
        Some((Target::Opaque | Target::Glob, w)) => (Medium, w.text.as_str()),
        Some((_, w)) => (Low, w.text.as_str()),
        None => (Low, ""),
    };
    Hit::new(radius, "fs-overwrite", format!("truncates `{word}`"))
}

fn dd(args: Args<'_>) -> Option<Hit> {
    let output = args.words().iter().find_map(|w| {
        w.text.strip_prefix("of=").map(|path| Word {
            text: path.to_owned(),
            ..w.clone()
        })
    })?;
    if paths::is_harmless_sink(&output.text) {
        return None;
    }
    Some(match paths::classify(&output) {
        Target::Device => Hit::new(
            High,
            "block-device",
            format!("`dd` writes to block device `{}`", output.text),
        ),
        Target::System | Target::Sensitive | Target::Critical => Hit::new(
            High,
            "fs-overwrite",
            format!("`dd` overwrites `{}`", output.text),
        ),
        _ => Hit::new(
            Medium,
            "fs-overwrite",
            format!("`dd` overwrites `{}`", output.text),
        ),
    })
}

/// The destination of `cp`/`mv`/`install`/`ln`: `-t DIR` or the last operand.
fn destination<'a>(args: Args<'a>, operands: &[&'a Word]) -> Option<Word> {
    if let Some(dir) = args.long_value("target-directory") {
        return Some(Word::literal(dir));
    }
    let words = args.words();
    if let Some(pos) = words.iter().position(|w| w.text == "-t") {
        return words.get(pos + 1).cloned();
    }
    if operands.len() < 2 {
        return None;
    }
    operands.last().map(|w| (*w).clone())
}

fn copy_onto(name: &str, args: Args<'_>) -> Option<Hit> {
    let operands = args.operands();
    let dest = destination(args, &operands)?;
    match paths::classify(&dest) {
        Target::Device => Some(Hit::new(
            High,
            "block-device",
            format!("`{name}` writes to block device `{}`", dest.text),
        )),
        Target::System | Target::Sensitive => Some(Hit::new(
            High,
            "fs-overwrite",
            format!(
                "`{name}` overwrites system or credential path `{}`",
                dest.text
            ),
        )),
        _ => None,
    }
}

/// `curl -o /usr/local/bin/x`, `wget -O /etc/…`: a download written over a system path.
fn download_onto(name: &str, args: Args<'_>) -> Option<Hit> {
    let flag = if name == "wget" {
        ('O', "output-document")
    } else {
        ('o', "output")
    };
    let file = wrappers::option_value(args.words(), flag.0, flag.1)?;
    let word = Word::literal(&file);
    matches!(
        paths::classify(&word),
        Target::System | Target::Sensitive | Target::Device
    )
    .then(|| {
        Hit::new(
            High,
            "fs-overwrite",
            format!("`{name}` downloads over `{file}`"),
        )
    })
}

fn mv(args: Args<'_>) -> Option<Hit> {
    let operands = args.operands();
    let dest = destination(args, &operands)?;
    if dest.text == "/dev/null" {
        return Some(Hit::new(
            High,
            "fs-delete",
            "`mv` into `/dev/null` destroys the files",
        ));
    }
    let sources: Vec<&Word> = operands
        .iter()
        .copied()
        .filter(|w| w.text != dest.text)
        .collect();
    let moved = worst(&sources).filter(|(t, _)| {
        matches!(
            t,
            Target::System | Target::Sensitive | Target::Critical | Target::Device
        )
    });
    let replaced = Some((paths::classify(&dest), &dest))
        .filter(|(t, _)| matches!(t, Target::System | Target::Sensitive | Target::Device));
    let (target, word) = moved.or(replaced)?;
    let category = if target == Target::Device {
        "block-device"
    } else {
        "fs-overwrite"
    };
    Some(Hit::new(
        High,
        category,
        format!("`mv` moves or replaces `{}`", word.text),
    ))
}

fn ln(args: Args<'_>) -> Option<Hit> {
    let operands = args.operands();
    let dest = destination(args, &operands)?;
    if paths::is_history_file(&dest) {
        return Some(Hit::new(
            High,
            "history-tamper",
            "replaces shell history with a link",
        ));
    }
    match paths::classify(&dest) {
        Target::System | Target::Sensitive | Target::Device => Some(Hit::new(
            High,
            "fs-overwrite",
            format!("`ln` replaces `{}`", dest.text),
        )),
        _ => None,
    }
}

fn tee(args: Args<'_>) -> Option<Hit> {
    let append = args.flag('a', "append");
    let files: Vec<&Word> = args
        .operands()
        .into_iter()
        .filter(|w| !paths::is_harmless_sink(&w.text))
        .collect();
    if files.iter().any(|w| paths::is_history_file(w)) {
        return Some(Hit::new(
            High,
            "history-tamper",
            "`tee` writes shell history",
        ));
    }
    let (target, word) = worst(&files)?;
    let verb = if append { "appends to" } else { "overwrites" };
    Some(match target {
        Target::Device => Hit::new(
            High,
            "block-device",
            format!("`tee` writes to block device `{}`", word.text),
        ),
        Target::System | Target::Sensitive | Target::Critical => Hit::new(
            High,
            "fs-overwrite",
            format!("`tee` {verb} `{}`", word.text),
        ),
        Target::Opaque | Target::Glob => Hit::new(
            Medium,
            "fs-overwrite",
            format!("`tee` {verb} `{}`", word.text),
        ),
        Target::HomeChild | Target::Ordinary => {
            let category = if append { "fs-write" } else { "fs-overwrite" };
            Hit::new(Low, category, format!("`tee` {verb} `{}`", word.text))
        }
    })
}

fn rsync(args: Args<'_>) -> Option<Hit> {
    let deletes = args.words().iter().any(|w| {
        w.text.starts_with("--delete") || w.text == "--del" || w.text == "--remove-source-files"
    });
    let operands = args.operands();
    let dest = operands.last()?;
    let target = paths::classify(dest);
    match (deletes, target) {
        (true, Target::Critical | Target::System | Target::Sensitive | Target::Opaque) => {
            Some(Hit::new(
                High,
                "fs-delete",
                format!("`rsync --delete` into `{}`", dest.text),
            ))
        }
        (true, _) => Some(Hit::new(
            Medium,
            "fs-delete",
            format!("`rsync` deletes files in `{}`", dest.text),
        )),
        (false, Target::System | Target::Sensitive | Target::Device) => Some(Hit::new(
            High,
            "fs-overwrite",
            format!("`rsync` overwrites `{}`", dest.text),
        )),
        _ => None,
    }
}

/// Modes that make files world-writable or setuid/setgid.
fn risky_mode(mode: &str) -> bool {
    if !mode.is_empty() && mode.chars().all(|c| c.is_ascii_digit()) {
        let digits: Vec<u32> = mode.chars().filter_map(|c| c.to_digit(8)).collect();
        let others = digits.last().copied().unwrap_or(0);
        let special = if digits.len() == 4 { digits[0] } else { 0 };
        return others & 2 != 0 || special & 6 != 0;
    }
    mode.split(',').any(|clause| {
        let who_end = clause.find(['+', '=', '-']).unwrap_or(clause.len());
        let (who, perms) = clause.split_at(who_end);
        let adds = perms.starts_with('+') || perms.starts_with('=');
        adds && ((who.contains(['o', 'a']) && perms.contains('w')) || perms.contains('s'))
    })
}

fn chmod(args: Args<'_>) -> Hit {
    let recursive = args.flag('R', "recursive");
    let operands = args.operands();
    let (mode, targets) = if args.long("reference") {
        ("", operands.as_slice())
    } else {
        match operands.split_first() {
            Some((mode, rest)) => (mode.text.as_str(), rest),
            None => ("", operands.as_slice()),
        }
    };
    let risky = risky_mode(mode);
    let radius = match worst(targets).map(|(t, _)| t) {
        Some(Target::System | Target::Device) => High,
        Some(Target::Critical | Target::Opaque) if recursive => High,
        Some(Target::Sensitive) if risky || recursive => High,
        Some(Target::Critical | Target::Opaque) => Medium,
        _ if recursive || risky => Medium,
        _ => Low,
    };
    Hit::new(
        radius,
        "fs-permissions",
        format!("`{}`", render("chmod", args)),
    )
}

fn chown(name: &str, args: Args<'_>) -> Hit {
    let recursive = args.flag('R', "recursive");
    let operands = args.operands();
    let targets = if args.long("reference") {
        operands.as_slice()
    } else {
        operands.get(1..).unwrap_or(&[])
    };
    let radius = match worst(targets).map(|(t, _)| t) {
        Some(Target::System | Target::Device) => High,
        Some(Target::Critical | Target::Opaque) if recursive => High,
        Some(Target::Critical | Target::Opaque | Target::Sensitive) => Medium,
        _ if recursive => Medium,
        _ => Low,
    };
    Hit::new(
        radius,
        "fs-permissions",
        format!("`{}`", render(name, args)),
    )
}

fn acl(name: &str, args: Args<'_>) -> Hit {
    let radius = match worst(&args.operands()).map(|(t, _)| t) {
        Some(Target::System | Target::Device | Target::Critical) => High,
        _ => Medium,
    };
    Hit::new(
        radius,
        "fs-permissions",
        format!("`{}`", render(name, args)),
    )
}

fn block_device(name: &str, args: Args<'_>) -> Option<Hit> {
    let lists = args.flag('l', "list") || args.has("print");
    let destructive = match name {
        _ if name.starts_with("mkfs") || name.starts_with("newfs") => true,
        "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "mformat" | "blkdiscard" => true,
        "fdisk" | "sfdisk" | "gdisk" | "cfdisk" | "sgdisk" | "parted" | "gparted" => !lists,
        "wipefs" => args.flag('a', "all") || args.flag('o', "offset"),
        "badblocks" => args.short('w'),
        "hdparm" => args.has_prefix("--security-erase") || args.has_prefix("--trim-sector"),
        "cryptsetup" => [
            "luksFormat",
            "erase",
            "luksErase",
            "reencrypt",
            "luksKillSlot",
        ]
        .iter()
        .any(|sub| args.has(sub)),
        "lvremove" | "vgremove" | "pvremove" | "lvreduce" => true,
        "zpool" => ["destroy", "labelclear"].iter().any(|sub| args.has(sub)),
        "zfs" => ["destroy", "rollback"].iter().any(|sub| args.has(sub)),
        "mdadm" => args.long("zero-superblock") || args.long("create") || args.short('C'),
        "diskutil" => args.subcommand().is_some_and(|(sub, _)| {
            sub.starts_with("erase")
                || matches!(
                    sub,
                    "partitionDisk" | "zeroDisk" | "secureErase" | "reformat"
                )
        }),
        _ => return None,
    };
    destructive.then(|| {
        Hit::new(
            High,
            "block-device",
            format!("disk or filesystem tool: `{}`", render(name, args)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_writable_and_setuid_modes_are_risky() {
        let risky: Vec<bool> = [
            "777", "0666", "4755", "755", "644", "o+w", "a+rwx", "u+s", "u+x", "go-w",
        ]
        .iter()
        .map(|m| risky_mode(m))
        .collect();
        assert_eq!(
            risky,
            [
                true, true, true, false, false, true, true, true, false, false
            ]
        );
    }
}
