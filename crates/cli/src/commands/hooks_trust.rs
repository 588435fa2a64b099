//! `tether hooks trust AGENT.yaml`: show the command hooks an agent file would run (and those
//! of the agent files it fetches), then record their hashes; `--list` and `--revoke`. The only
//! writer of the trust store (crate::trust).

use std::path::Path;

use crate::args::TrustArgs;
use crate::common::{self, user_error};
use crate::trust::{self, Store, TrustedFile};
use crate::{out, status};

pub(crate) fn run(args: &TrustArgs) -> anyhow::Result<u8> {
    let path = trust::store_path();
    if args.list {
        return list(&path, args.json);
    }
    if let Some(target) = &args.revoke {
        return revoke(&path, target, args.json);
    }
    let Some(agent_file) = &args.agent_file else {
        return Err(user_error("name the agent file to trust"));
    };
    // Every process a run starts (hooks, tool commands, MCP servers) carries the run's
    // marker: trust is the user's to give, never a model's through its tools.
    if std::env::var_os(tether_exec::MARKER).is_some() {
        return Err(user_error(
            "`tether hooks trust` does not run under Tether (a hook, a tool call or an MCP server): run it yourself",
        ));
    }
    let file = common::load(agent_file)?;
    let dir = super::run::working_dir(args.working_dir.as_ref())?;
    let units: Vec<_> = trust::units(agent_file, &file, &dir)
        .into_iter()
        .filter(|u| !u.hooks.is_empty())
        .collect();
    if units.is_empty() {
        if args.json {
            out::json_line(&serde_json::json!({"trusted": {}}))?;
        } else {
            out::line(&format!(
                "`{}` has no command hooks to trust",
                agent_file.display()
            ))?;
        }
        return Ok(status::OK);
    }
    let mut store = Store::load(&path)?;
    store.version = 1;
    let now = jiff::Timestamp::now().to_string();
    let mut text = String::new();
    let mut trusted = serde_json::Map::new();
    let mut count = 0;
    for unit in units {
        text.push_str(&format!(
            "command hooks of `{}` (run in {}):\n",
            unit.key,
            dir.display()
        ));
        for hook in &unit.hooks {
            text.push_str(&format!("  {}\n", trust::describe(hook)));
        }
        count += unit.hooks.len();
        let record = TrustedFile {
            trusted_at: now.clone(),
            hooks: unit.hooks,
        };
        trusted.insert(unit.key.clone(), serde_json::to_value(&record)?);
        store.files.insert(unit.key, record);
    }
    store.save(&path)?;
    if args.json {
        out::json_line(&serde_json::json!({"trusted": trusted}))?;
    } else {
        text.push_str(&format!(
            "trusted {count} command hook{} (recorded in {})",
            if count == 1 { "" } else { "s" },
            path.display()
        ));
        out::line(&text)?;
    }
    Ok(status::OK)
}

fn list(path: &Path, json: bool) -> anyhow::Result<u8> {
    let store = Store::load(path)?;
    if json {
        out::json_line(&store.files)?;
        return Ok(status::OK);
    }
    if store.files.is_empty() {
        out::line("no trusted agent files")?;
        return Ok(status::OK);
    }
    let mut text = String::new();
    for (key, file) in &store.files {
        text.push_str(&format!(
            "{key}  ({} hook{}, trusted {})\n",
            file.hooks.len(),
            if file.hooks.len() == 1 { "" } else { "s" },
            file.trusted_at
        ));
        for hook in &file.hooks {
            text.push_str(&format!("  {}\n", trust::describe(hook)));
        }
    }
    out::line(text.trim_end())?;
    Ok(status::OK)
}

fn revoke(path: &Path, target: &str, json: bool) -> anyhow::Result<u8> {
    let mut store = Store::load(path)?;
    let as_file = Path::new(target);
    let key = if as_file.exists() {
        trust::file_key(as_file)
    } else {
        target.to_owned()
    };
    let Some(removed) = store.files.remove(&key) else {
        return Err(user_error(format!(
            "`{key}` is not trusted (see `tether hooks trust --list`)"
        )));
    };
    store.save(path)?;
    if json {
        out::json_line(&serde_json::json!({"revoked": key, "hooks": removed.hooks.len()}))?;
    } else {
        out::line(&format!(
            "revoked the trust in {} command hook{} of `{key}`",
            removed.hooks.len(),
            if removed.hooks.len() == 1 { "" } else { "s" }
        ))?;
    }
    Ok(status::OK)
}
