//! Hooks trusted by content hash. A command hook of an agent file runs only once the user has
//! trusted it with `tether hooks trust AGENT.yaml`, when `settings.trust_hooks: true` or
//! `TETHER_TRUST_HOOKS=1` asks for it, and always for an agent file fetched from a URL or an
//! OCI registry. The hash covers what decides what runs: the command text, `args`, `env`,
//! `working_dir` and the bytes of the script the command starts.
//!
//! The store, `$TETHER_HOME/trusted-hooks.json`, is keyed by the agent file's canonical path
//! (or the URL / OCI reference it came from) and written by the `hooks trust` command only:
//! nothing a model says (model hooks, evaluators, tool calls) reaches this module's writer.
//! The user's own hooks (`settings.hooks`, `hooks.d/`, `--hook-*` flags) and builtins need no
//! trust.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tether_config::{AgentFile, ExternalSource, HookKind, HookSource, HookSpec, HooksConfig};

use crate::common::user_error;

/// The store's file name under `$TETHER_HOME`.
pub(crate) const STORE_FILE: &str = "trusted-hooks.json";
/// The variable that turns trust on for every agent file.
pub(crate) const ENV: &str = "TETHER_TRUST_HOOKS";
/// Scripts bigger than this are not scripts; they are hashed by their first bytes and size.
const MAX_SCRIPT: u64 = 16 * 1024 * 1024;
/// Interpreters whose first argument is the script that runs (`bash ./check.sh`).
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node", "deno", "bun", "ruby",
    "perl", "php", "lua", "tclsh", "pwsh",
];

/// One command hook as trust sees it; also one record of the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HookPrint {
    pub(crate) event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) matcher: Option<String>,
    pub(crate) command: String,
    /// The script the command starts, resolved as the runner resolves it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) script: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) script_sha256: Option<String>,
    /// Over the command, `args`, `env`, `working_dir` and the script's bytes.
    pub(crate) sha256: String,
}

/// The command hooks one file brings, and whether they must be trusted to run.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    /// The store key: a canonical path, a URL or `oci:REFERENCE`.
    pub(crate) key: String,
    /// Trust is needed whatever the settings say (fetched from a URL or a registry).
    pub(crate) always: bool,
    pub(crate) hooks: Vec<HookPrint>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TrustedFile {
    pub(crate) trusted_at: String,
    pub(crate) hooks: Vec<HookPrint>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Store {
    pub(crate) version: u32,
    pub(crate) files: BTreeMap<String, TrustedFile>,
}

/// How one hook stands against the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    Trusted,
    /// Never trusted.
    New,
    /// Trusted once with another hash: its script, args, env or working_dir changed.
    Changed,
}

impl Standing {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Trusted => "trusted",
            Self::New => "untrusted (new)",
            Self::Changed => "untrusted (changed)",
        }
    }
}

pub(crate) fn store_path() -> PathBuf {
    crate::common::tether_home().join(STORE_FILE)
}

impl Store {
    /// Reads the store; a missing file is an empty store, a corrupt one an error (never
    /// silently all-untrusted, never silently overwritten).
    pub(crate) fn load(path: &Path) -> anyhow::Result<Self> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                user_error(format!(
                    "cannot read the hook trust store {}: {e}",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self {
                version: 1,
                files: BTreeMap::new(),
            }),
            Err(e) => Err(user_error(format!(
                "cannot read the hook trust store {}: {e}",
                path.display()
            ))),
        }
    }

    /// Writes the whole store atomically (a private temporary file renamed over it).
    pub(crate) fn save(&self, path: &Path) -> anyhow::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(self)?;
        bytes.push(b'\n');
        tether_exec::private::write_whole(path, &bytes).map_err(|e| {
            anyhow::anyhow!("cannot write the hook trust store {}: {e}", path.display())
        })
    }

    pub(crate) fn standing(&self, key: &str, hook: &HookPrint) -> Standing {
        let Some(file) = self.files.get(key) else {
            return Standing::New;
        };
        if file.hooks.iter().any(|h| h.sha256 == hook.sha256) {
            Standing::Trusted
        } else if file
            .hooks
            .iter()
            .any(|h| h.event == hook.event && h.command == hook.command)
        {
            Standing::Changed
        } else {
            Standing::New
        }
    }
}

/// Whether trust is asked for every agent file: `settings.trust_hooks` or `TETHER_TRUST_HOOKS`.
pub(crate) fn required(user: &tether_config::UserConfig) -> bool {
    user.trust_hooks || std::env::var(ENV).is_ok_and(|v| matches!(v.as_str(), "1" | "true"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256(bytes: &[u8]) -> String {
    hex(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref())
}

/// `word` without the quotes around it (`"./x.sh"` → `./x.sh`).
fn unquote(word: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = word.strip_prefix(q).and_then(|w| w.strip_suffix(q)) {
            return inner;
        }
    }
    word
}

/// The script `command` starts: its first word when that is a path, or the first argument of
/// an interpreter (`bash ./check.sh`), resolved against `dir` as the runner would.
pub(crate) fn script_of(command: &str, dir: &Path, project: &Path) -> Option<PathBuf> {
    let vars = ["TETHER_PROJECT_DIR", "CLAUDE_PROJECT_DIR"];
    let text = crate::programs::with_project_dir(command, project, &vars);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    let mut words = line
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with(['"', '\'', '/', '.']))
        .map(unquote);
    let mut word = words.next()?;
    // `env [-i] [A=1] python3 x.py`: the program env starts counts.
    while word.rsplit('/').next() == Some("env") {
        word = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    }
    let name = word.rsplit('/').next().unwrap_or(word);
    if INTERPRETERS.contains(&name) {
        word = words.find(|w| !w.starts_with('-'))?;
    }
    if !word.contains('/') {
        return None;
    }
    let word = match word.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|h| Path::new(&h).join(rest))?,
        None => PathBuf::from(word),
    };
    // `a/./b` is `a/b`: one spelling per script in the store.
    let path: PathBuf = dir.join(word).components().collect();
    path.is_file().then_some(path)
}

fn script_hash(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_SCRIPT).read_to_end(&mut bytes).ok()?;
    Some(sha256(&bytes))
}

/// The print of one command hook that runs in `working_dir`.
pub(crate) fn print(
    event: &str,
    matcher: Option<&str>,
    spec: &HookSpec,
    working_dir: &Path,
) -> Option<HookPrint> {
    let HookKind::Command { command } = &spec.kind else {
        return None;
    };
    let dir = match spec.working_dir.as_deref() {
        Some(w) => working_dir.join(w),
        None => working_dir.to_path_buf(),
    };
    let script = script_of(command, &dir, working_dir);
    let script_sha256 = script.as_deref().and_then(script_hash);
    let covered = serde_json::json!({
        "command": command,
        "args": spec.args,
        "env": spec.env,
        "working_dir": spec.working_dir,
        "script": script_sha256,
    });
    Some(HookPrint {
        event: event.to_owned(),
        matcher: matcher.map(str::to_owned),
        command: command.clone(),
        script: script.map(|p| p.display().to_string()),
        script_sha256,
        sha256: sha256(covered.to_string().as_bytes()),
    })
}

/// The prints of `hooks`' command hooks that come from the file itself.
fn prints(hooks: &HooksConfig, working_dir: &Path, out: &mut Vec<HookPrint>) {
    for (event, entry, spec) in hooks.iter() {
        if spec.source != HookSource::Yaml {
            continue;
        }
        let matcher = event.uses_matcher().then(|| entry.matcher.source());
        if let Some(p) = print(event.wire_name(), matcher, spec, working_dir)
            && !out.contains(&p)
        {
            out.push(p);
        }
    }
}

/// The store key of the agent file at `path`.
pub(crate) fn file_key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The units of the agent file at `path` (loaded as `file`, externals attached): the file's
/// own command hooks, then each external agent's.
pub(crate) fn units(path: &Path, file: &AgentFile, working_dir: &Path) -> Vec<Unit> {
    let mut own = Vec::new();
    for agent in &file.agents {
        prints(&agent.hooks, working_dir, &mut own);
    }
    let mut units = vec![Unit {
        key: file_key(path),
        always: false,
        hooks: own,
    }];
    for external in &file.externals {
        let Some(loaded) = &external.file else {
            continue;
        };
        let key = match &external.source {
            ExternalSource::Url(url) => url.clone(),
            ExternalSource::Oci(_) => format!("oci:{}", external.reference),
            ExternalSource::File(p) => file_key(&file.dir.join(p)),
        };
        let always = always_checked(&external.source);
        let mut hooks = Vec::new();
        if let Some(agent) = loaded.default_agent() {
            prints(&agent.hooks, working_dir, &mut hooks);
        }
        if !hooks.is_empty() && !units.iter().any(|u: &Unit| u.key == key) {
            units.push(Unit { key, always, hooks });
        }
    }
    units
}

/// A file from a URL or an OCI reference: its hooks need trust whatever the settings say.
fn always_checked(source: &ExternalSource) -> bool {
    matches!(source, ExternalSource::Url(_) | ExternalSource::Oci(_))
}

/// The hooks that may not run yet: every untrusted hook of a unit that needs trust.
pub(crate) fn pending<'a>(
    store: &Store,
    units: &'a [Unit],
    required: bool,
) -> Vec<(&'a Unit, &'a HookPrint, Standing)> {
    units
        .iter()
        .filter(|u| required || u.always)
        .flat_map(|u| u.hooks.iter().map(move |h| (u, h)))
        .map(|(u, h)| (u, h, store.standing(&u.key, h)))
        .filter(|(_, _, s)| *s != Standing::Trusted)
        .collect()
}

/// A hook as the listings show it: event, matcher, command, script and its hash.
pub(crate) fn describe(h: &HookPrint) -> String {
    let mut text = h.event.clone();
    if let Some(m) = &h.matcher {
        text.push_str(&format!(" (matcher {m})"));
    }
    // All of it: this is what the user agrees to run.
    text.push_str(&format!(
        ": {}",
        h.command.trim().replace('\n', "\n        ")
    ));
    if let (Some(s), Some(hash)) = (&h.script, &h.script_sha256) {
        text.push_str(&format!("\n      script {s} sha256:{}", &hash[..16]));
    }
    text
}

/// Each of one file's command hooks against the store, for `tether hooks check`; nothing when
/// trust is not asked for.
#[derive(Debug)]
pub(crate) struct Review(Option<(String, Store, PathBuf)>);

impl Review {
    pub(crate) fn new(
        path: &Path,
        working_dir: &Path,
        user: &tether_config::UserConfig,
    ) -> anyhow::Result<Self> {
        if !required(user) {
            return Ok(Self(None));
        }
        Ok(Self(Some((
            file_key(path),
            Store::load(&store_path())?,
            working_dir.to_path_buf(),
        ))))
    }

    /// `None` for a hook that needs no trust (not a command hook of the file, or trust is
    /// not asked for).
    pub(crate) fn standing(
        &self,
        event: tether_protocol::HookEvent,
        entry: &tether_config::MatcherEntry,
        spec: &HookSpec,
    ) -> Option<Standing> {
        let (key, store, working_dir) = self.0.as_ref()?;
        if spec.source != HookSource::Yaml {
            return None;
        }
        let matcher = event.uses_matcher().then(|| entry.matcher.source());
        let hook = print(event.wire_name(), matcher, spec, working_dir)?;
        Some(store.standing(key, &hook))
    }
}

/// What happens to untrusted hooks at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// `--exec`, `tether serve`: refuse to start.
    Refuse,
    /// The interactive console: show the change and ask once.
    Ask,
}

/// Lets the run start only when every command hook that needs trust has it, `--trust-hooks`
/// trusts them for this run, or (interactive) the user says yes for this run. Never writes
/// the store.
pub(crate) fn check(
    path: &Path,
    file: &AgentFile,
    working_dir: &Path,
    user: &tether_config::UserConfig,
    trust_once: bool,
    gate: Gate,
) -> anyhow::Result<()> {
    if trust_once {
        return Ok(());
    }
    let required = required(user);
    // Without the setting only files from a URL or an OCI reference need trust: a plain file
    // skips hashing its hooks (a cost on every start).
    let remote = file
        .externals
        .iter()
        .any(|e| e.file.is_some() && always_checked(&e.source));
    if !required && !remote {
        return Ok(());
    }
    let units = units(path, file, working_dir);
    if !required && !units.iter().any(|u| u.always && !u.hooks.is_empty()) {
        return Ok(());
    }
    let store = Store::load(&store_path())?;
    let pending = pending(&store, &units, required);
    if pending.is_empty() {
        return Ok(());
    }
    let report = report(&pending);
    let advice = format!(
        "review them, then run `tether hooks trust {}` (or pass `--trust-hooks` for one run)",
        path.display()
    );
    match gate {
        Gate::Refuse => Err(user_error(format!("{report}{advice}"))),
        Gate::Ask => {
            let stdin = std::io::stdin();
            let mut stderr = std::io::stderr();
            if ask(&report, &mut stdin.lock(), &mut stderr)? {
                Ok(())
            } else {
                Err(user_error(format!("command hooks not trusted; {advice}")))
            }
        }
    }
}

/// The untrusted hooks, per file, each marked new or changed.
pub(crate) fn report(pending: &[(&Unit, &HookPrint, Standing)]) -> String {
    let mut text = String::new();
    let mut last: Option<&str> = None;
    for (unit, hook, standing) in pending {
        if last != Some(unit.key.as_str()) {
            text.push_str(&format!(
                "command hooks of `{}` are not trusted:\n",
                unit.key
            ));
            last = Some(&unit.key);
        }
        let mark = match standing {
            Standing::Changed => "changed",
            Standing::New | Standing::Trusted => "new",
        };
        text.push_str(&format!("  [{mark}] {}\n", describe(hook)));
    }
    text
}

/// Shows `report` and asks once whether to run the hooks this time; only `y`/`yes` agrees.
pub(crate) fn ask(
    report: &str,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> anyhow::Result<bool> {
    write!(output, "{report}run them this once? [y/N] ")?;
    output.flush()?;
    let mut answer = String::new();
    input.read_line(&mut answer)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// The trust rules, for docs/hooks.md.
pub(crate) const DOCS: &str = "
## Trusted hooks

A command hook runs a program with your rights, so an agent file from a cloned repository or a download should not run one you have not looked at. With `settings.trust_hooks: true` in the user config, or `TETHER_TRUST_HOOKS=1`, an agent file's command hooks run only once trusted; an agent file fetched from a URL or an OCI registry (an external agent of `sub_agents` / `handoffs`) always needs trust, whatever the settings.

- `tether hooks trust AGENT.yaml` shows every command hook the file (and each agent file it fetches) would run: its event, matcher, full command, and the script it starts with that script's sha256. It records them in `$TETHER_HOME/trusted-hooks.json` (0600, replaced whole, never half written), keyed by the file's real path, or the URL or `oci:REFERENCE` it came from. Trusting a file again replaces what was recorded for it. `--working-dir DIR` finds the scripts where the hooks will run (default: the current directory). `tether hooks trust --list` shows the trusted files and their hooks; `tether hooks trust --revoke AGENT.yaml` (or a URL / `oci:` key from the list) forgets one.
- What is trusted is a sha256 over each hook's command text, `args`, `env`, `working_dir` and the bytes of its script: the command's first word when it is a path to a file (`./hooks/check.sh`, `\"$TETHER_PROJECT_DIR\"/hooks/check.sh`, `~/bin/x`), else the first argument of an interpreter (`bash ./check.sh`, `python3 hooks/check.py`, through `env` too), resolved against the hook's `working_dir` as the runner resolves it. Change one byte of any of them and the hook is untrusted again: when trust is on, `hooks check` marks each of the file's command hooks `trusted`, `untrusted (new)` or `untrusted (changed)` (`trust` in `--json`).
- At start, an untrusted hook stops `tether run --exec` with exit status 1 and a message that lists the new and changed hooks and names `tether hooks trust`; every `tether serve` mode refuses to start the same way. The interactive console shows the same list and asks once (`run them this once? [y/N]`): yes runs them for this session only, anything else exits 1. `--trust-hooks` (on `run` and `serve`) runs them for one run without asking and records nothing.
- Only the `tether hooks trust` command writes the store. No model output can: model hooks, evaluators and tool calls are never read as trust, and `tether hooks trust` refuses to record anything when it runs under Tether (its processes carry `TETHER_EXEC_RUN`), so an agent cannot trust its own hooks through its shell tool. The store is an ordinary file of yours, though: an agent whose tools may write under `$TETHER_HOME` (a shell tool without a sandbox, a filesystem toolset allowed there) could edit it directly, so keep `$TETHER_HOME` out of what agents may write.
- Builtins need no trust, nor do other hook types (they run no program of the file's). Hooks you wrote yourself need none either: the user config's `settings.hooks`, its `hooks.d/` drop-ins and the `--hook-*` flags are yours already.
";

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
