//! What each tool asks its server and how the answer reads.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tether_tools::ToolResult;

use crate::server::{LspServer, Running};
use crate::tools::Kind;
use crate::{edit, render, uri};

/// How long `lsp_diagnostics` waits for a server to publish after it got new text.
const DIAGNOSTICS_WAIT: Duration = Duration::from_secs(5);

/// A whole-number argument of at least 1.
fn one_based(args: &Map<String, Value>, key: &str) -> Result<Option<u32>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(n) if n >= 1 => Ok(Some(n)),
            _ => Err(format!(
                "`{key}` must be a whole number of at least 1 (positions are 1-based)"
            )),
        },
    }
}

fn required(args: &Map<String, Value>, key: &str) -> Result<u32, String> {
    one_based(args, key)?.ok_or_else(|| format!("`{key}` is required"))
}

fn string<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

/// `lsp_workspace` and `lsp_workspace_symbols`: every server, answers joined.
pub(crate) async fn broadcast(
    servers: &[Arc<LspServer>],
    kind: Kind,
    args: &Map<String, Value>,
) -> ToolResult {
    let query = match string(args, "query") {
        Ok(q) => q.unwrap_or_default(),
        Err(e) => return ToolResult::error(e),
    };
    let answers = futures::future::join_all(servers.iter().map(|s| async move {
        // Asked once more of a server started again when the first one turns out dead, as
        // file tools are (see `on_file`).
        let mut r = Err(String::new());
        for _ in 0..2 {
            let running = match s.running().await {
                Ok(running) => running,
                Err(e) => {
                    r = Err(e);
                    break;
                }
            };
            r = match kind {
                Kind::Workspace => Ok(workspace(s, &running)),
                _ => workspace_symbols(&running, query).await,
            };
            if r.is_ok() || running.client.is_alive() {
                break;
            }
        }
        (s.config().command.clone(), r)
    }))
    .await;
    let sections: Vec<String> = answers
        .into_iter()
        .map(|(command, r)| match r {
            Ok(text) => text,
            Err(e) => format!("[LSP {command}] Error: {e}"),
        })
        .filter(|t| !t.is_empty())
        .collect();
    if sections.is_empty() {
        return ToolResult::ok("No results");
    }
    ToolResult::ok(sections.join("\n---\n"))
}

fn workspace(server: &LspServer, r: &Running) -> String {
    let config = server.config();
    let mut out = String::from("Workspace Information:\n");
    out.push_str(&format!("- Root: {}\n", server.root().display()));
    out.push_str(&format!("- LSP Command: {}\n", config.command));
    if let Some(info) = &r.info {
        out.push_str(&format!("- Server: {info}\n"));
    }
    if config.file_types.is_empty() {
        out.push_str("- File types: all\n");
    } else {
        out.push_str(&format!("- File types: {}\n", config.file_types.join(", ")));
    }
    out.push_str("\nAvailable Capabilities:\n");
    for (label, kind) in [
        ("Hover", Kind::Hover),
        ("Go to Definition", Kind::Definition),
        ("Find References", Kind::References),
        ("Find Implementations", Kind::Implementations),
        ("Document Symbols", Kind::DocumentSymbols),
        ("Workspace Symbols", Kind::WorkspaceSymbols),
        ("Code Actions", Kind::CodeActions),
        ("Formatting", Kind::Format),
        ("Rename", Kind::Rename),
        ("Call Hierarchy", Kind::CallHierarchy),
        ("Type Hierarchy", Kind::TypeHierarchy),
        ("Signature Help", Kind::SignatureHelp),
        ("Inlay Hints", Kind::InlayHints),
    ] {
        let yes = kind
            .capability()
            .is_some_and(|(provider, method)| r.offers(provider, method));
        out.push_str(&format!("- {label}: {}\n", if yes { "Yes" } else { "No" }));
    }
    out
}

async fn workspace_symbols(r: &Running, query: &str) -> Result<String, String> {
    let answer = r
        .client
        .request("workspace/symbol", json!({"query": query}))
        .await
        .map_err(|e| format!("Workspace symbols request failed: {e}"))?;
    if render::is_empty(&answer) {
        return Ok(if query.is_empty() {
            "No symbols found in workspace".to_owned()
        } else {
            format!("No symbols found matching '{query}'")
        });
    }
    Ok(render::symbols(&answer))
}

/// A tool about one file, on the server that takes it; the file's current text is sent first.
pub(crate) async fn on_file(
    server: &LspServer,
    kind: Kind,
    path: &Path,
    args: &Map<String, Value>,
) -> Result<ToolResult, String> {
    // Arguments first: a bad call starts nothing.
    let position = match kind {
        Kind::Hover
        | Kind::Definition
        | Kind::References
        | Kind::Rename
        | Kind::CallHierarchy
        | Kind::TypeHierarchy
        | Kind::Implementations
        | Kind::SignatureHelp => {
            let (line, character) = (required(args, "line")?, required(args, "character")?);
            Some(json!({"line": line - 1, "character": character - 1}))
        }
        _ => None,
    };
    let direction = match kind {
        Kind::CallHierarchy => Some(match string(args, "direction")? {
            Some(d @ ("incoming" | "outgoing")) => d,
            _ => {
                return Ok(ToolResult::error(
                    "direction must be 'incoming' or 'outgoing'",
                ));
            }
        }),
        Kind::TypeHierarchy => Some(match string(args, "direction")? {
            Some(d @ ("supertypes" | "subtypes")) => d,
            _ => {
                return Ok(ToolResult::error(
                    "direction must be 'supertypes' or 'subtypes'",
                ));
            }
        }),
        _ => None,
    };
    let new_name = match kind {
        Kind::Rename => match string(args, "new_name")? {
            Some(n) if !n.is_empty() => n,
            _ => return Ok(ToolResult::error("new_name is required")),
        },
        _ => "",
    };
    let call = Call {
        server,
        kind,
        path,
        args,
        position,
        direction,
        new_name,
    };
    // A server that died since the last call may not have been noticed yet (its output not
    // yet read as closed): the first write then fails. The call is made once more on a server
    // started again, unless files were already written: LSP requests change nothing on disk
    // (tools apply the edits they get), so asking again is safe up to that point.
    let mut retried = false;
    loop {
        let r = server.running().await?;
        let wrote = AtomicBool::new(false);
        match attempt(&call, &r, &wrote).await {
            Err(_) if !retried && !r.client.is_alive() && !wrote.load(Ordering::Acquire) => {
                retried = true;
            }
            other => return other,
        }
    }
}

/// What a file tool was asked, its arguments checked.
struct Call<'a> {
    server: &'a LspServer,
    kind: Kind,
    path: &'a Path,
    args: &'a Map<String, Value>,
    position: Option<Value>,
    direction: Option<&'a str>,
    new_name: &'a str,
}

/// One try of a file tool on the running server `r`; `wrote` is set before the first file is
/// written.
async fn attempt(c: &Call<'_>, r: &Running, wrote: &AtomicBool) -> Result<ToolResult, String> {
    let Call {
        server,
        kind,
        path,
        args,
        ref position,
        direction,
        new_name,
    } = *c;
    let file = path.display().to_string();
    let uri = uri::from_path(path);
    let text =
        tether_tools::read_real_path(path).map_err(|e| format!("cannot read {file}: {e}"))?;
    let sent = r.client.sync(&uri, uri::language_id(path), &text).await?;
    let doc = json!({"uri": uri});
    let at = |p: &Option<Value>| json!({"textDocument": doc, "position": p});
    let ask = |method: &'static str, params: Value, what: &'static str| {
        let client = &r.client;
        async move {
            client
                .request(method, params)
                .await
                .map_err(|e| format!("{what} failed: {e}"))
        }
    };
    let ok = |s: String| Ok(ToolResult::ok(s));
    match kind {
        Kind::Workspace | Kind::WorkspaceSymbols => Err("not a file tool".to_owned()),
        Kind::Hover => {
            let v = ask("textDocument/hover", at(position), "Hover request").await?;
            match v.get("contents") {
                Some(c) if !v.is_null() => ok(render::markup(c)),
                _ => ok("No information available at this position".to_owned()),
            }
        }
        Kind::Definition => {
            let v = ask(
                "textDocument/definition",
                at(position),
                "Definition request",
            )
            .await?;
            if v.is_null() {
                return ok("No definition found at this position".to_owned());
            }
            ok(render::locations(&v))
        }
        Kind::Implementations => {
            let v = ask(
                "textDocument/implementation",
                at(position),
                "Implementations request",
            )
            .await?;
            if render::is_empty(&v) {
                return ok("No implementations found".to_owned());
            }
            ok(render::locations(&v))
        }
        Kind::References => {
            let include = match args.get("include_declaration") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err("`include_declaration` must be true or false".to_owned()),
            };
            let mut params = at(position);
            params["context"] = json!({"includeDeclaration": include});
            let v = ask("textDocument/references", params, "References request").await?;
            if render::is_empty(&v) {
                return ok("No references found".to_owned());
            }
            ok(render::locations(&v))
        }
        Kind::DocumentSymbols => {
            let v = ask(
                "textDocument/documentSymbol",
                json!({"textDocument": doc}),
                "Document symbols request",
            )
            .await?;
            if render::is_empty(&v) {
                return ok("No symbols found in file".to_owned());
            }
            ok(render::symbols(&v))
        }
        Kind::Diagnostics => {
            if sent || r.client.diagnostics(&uri).is_none() {
                r.client.wait_diagnostics(&uri, DIAGNOSTICS_WAIT).await;
            }
            if !r.client.is_alive() && r.client.diagnostics(&uri).is_none() {
                return Err("the language server exited before publishing diagnostics".to_owned());
            }
            match r.client.diagnostics(&uri) {
                Some(list) if !list.is_empty() => ok(render::diagnostics(&file, &list)),
                _ => ok(format!("No diagnostics for {file}")),
            }
        }
        Kind::CodeActions => {
            let start = required(args, "start_line")?;
            let end = one_based(args, "end_line")?.unwrap_or(start).max(start);
            let diagnostics: Vec<_> = r
                .client
                .diagnostics(&uri)
                .unwrap_or_default()
                .into_iter()
                .filter(|d| (start - 1..end).contains(&d.range.start.line))
                .collect();
            let params = json!({
                "textDocument": doc,
                "range": {"start": {"line": start - 1, "character": 0}, "end": {"line": end - 1, "character": 999_999}},
                "context": {"diagnostics": diagnostics},
            });
            let v = ask("textDocument/codeAction", params, "Code actions request").await?;
            if render::is_empty(&v) {
                return ok(format!("No code actions available for {file}:{start}"));
            }
            ok(render::code_actions(&file, u64::from(start), &v))
        }
        Kind::Rename => {
            let mut params = at(position);
            params["newName"] = json!(new_name);
            let v = ask("textDocument/rename", params, "Rename").await?;
            if v.is_null() {
                return Ok(ToolResult::error("Cannot rename symbol at this position"));
            }
            rename(server, r, &v, new_name, wrote).await
        }
        Kind::Format => {
            let params =
                json!({"textDocument": doc, "options": {"tabSize": 4, "insertSpaces": false}});
            let v = ask("textDocument/formatting", params, "Format request").await?;
            let edits = if render::is_empty(&v) {
                Vec::new()
            } else {
                edit::text_edits(&v)?
            };
            if edits.is_empty() {
                return ok(format!("No formatting changes needed for {file}"));
            }
            let real = edit::writable(server.root(), path)?;
            let new = edit::apply(&text, &edits)?;
            wrote.store(true, Ordering::Release);
            tether_tools::write_real_path(&real, new.as_bytes())
                .map_err(|e| format!("Failed to apply formatting: {e}"))?;
            r.client.sync(&uri, uri::language_id(path), &new).await?;
            ok(format!(
                "Formatted {file}\nApplied {} formatting change(s)",
                edits.len()
            ))
        }
        Kind::CallHierarchy | Kind::TypeHierarchy => {
            let direction = direction.unwrap_or_default();
            hierarchy(r, kind, direction, at(position)).await
        }
        Kind::SignatureHelp => {
            let v = ask(
                "textDocument/signatureHelp",
                at(position),
                "Signature help request",
            )
            .await?;
            if v.is_null() {
                return ok("No signature help available at this position".to_owned());
            }
            ok(render::signature_help(&v))
        }
        Kind::InlayHints => {
            let start = one_based(args, "start_line")?.unwrap_or(1);
            let end = one_based(args, "end_line")?.unwrap_or(100_000).max(start);
            let params = json!({
                "textDocument": doc,
                "range": {"start": {"line": start - 1, "character": 0}, "end": {"line": end - 1, "character": 999_999}},
            });
            let v = ask("textDocument/inlayHint", params, "Inlay hints request").await?;
            ok(render::inlay_hints(
                &file,
                u64::from(start),
                u64::from(end),
                &v,
            ))
        }
    }
}

async fn hierarchy(
    r: &Running,
    kind: Kind,
    direction: &str,
    params: Value,
) -> Result<ToolResult, String> {
    let (prepare, what) = if kind == Kind::CallHierarchy {
        ("textDocument/prepareCallHierarchy", "call")
    } else {
        ("textDocument/prepareTypeHierarchy", "type")
    };
    let items = r.client.request(prepare, params).await.map_err(|e| {
        let what = if what == "call" { "Call" } else { "Type" };
        format!("{what} hierarchy preparation failed: {e}")
    })?;
    let items = items.as_array().cloned().unwrap_or_default();
    if items.is_empty() {
        return Ok(ToolResult::ok(format!(
            "No {what} hierarchy information available at this position"
        )));
    }
    let mut out = String::new();
    for item in items {
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let method = match (kind, direction) {
            (Kind::CallHierarchy, "incoming") => "callHierarchy/incomingCalls",
            (Kind::CallHierarchy, _) => "callHierarchy/outgoingCalls",
            (_, "supertypes") => "typeHierarchy/supertypes",
            _ => "typeHierarchy/subtypes",
        };
        let v = r
            .client
            .request(method, json!({"item": item}))
            .await
            .map_err(|e| {
                if kind == Kind::CallHierarchy {
                    format!("Failed to get {direction} calls: {e}")
                } else {
                    format!("Failed to get {direction}: {e}")
                }
            })?;
        out.push_str(&match (kind, direction) {
            (Kind::CallHierarchy, "incoming") => render::incoming_calls(&name, &v),
            (Kind::CallHierarchy, _) => render::outgoing_calls(&name, &v),
            (_, "supertypes") => render::type_hierarchy(&name, "Supertypes", &v),
            _ => render::type_hierarchy(&name, "Subtypes", &v),
        });
    }
    Ok(ToolResult::ok(out))
}

/// Applies a rename's workspace edit: every file checked first, then written; the server gets
/// the new texts.
async fn rename(
    server: &LspServer,
    r: &Running,
    v: &Value,
    new_name: &str,
    wrote: &AtomicBool,
) -> Result<ToolResult, String> {
    let files = edit::workspace_edit(v)?;
    let mut planned = Vec::new();
    for (path, edits) in &files {
        if edits.is_empty() {
            continue;
        }
        let real = edit::writable(server.root(), path)?;
        let text = tether_tools::read_real_path(&real)
            .map_err(|e| format!("Failed to apply changes to {}: {e}", path.display()))?;
        let new = edit::apply(&text, edits)
            .map_err(|e| format!("Failed to apply changes to {}: {e}", path.display()))?;
        planned.push((path, real, new, edits.len()));
    }
    if planned.is_empty() {
        return Ok(ToolResult::ok("No changes were needed"));
    }
    let mut out = format!(
        "Renamed to '{new_name}'\nModified {} file(s):\n",
        planned.len()
    );
    wrote.store(true, Ordering::Release);
    for (path, real, new, n) in &planned {
        tether_tools::write_real_path(real, new.as_bytes())
            .map_err(|e| format!("Failed to apply changes to {}: {e}", path.display()))?;
        let uri = uri::from_path(real);
        r.client.sync(&uri, uri::language_id(real), new).await?;
        out.push_str(&format!("- {} ({n} change(s))\n", path.display()));
    }
    Ok(ToolResult::ok(out))
}
