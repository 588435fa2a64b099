//! `type: lsp`: the server's `command`, `args`, `file_types`, `working_dir` and `version`.
//! `file_types` on another type is an error; the other fields are shared with `type: mcp`
//! and checked there when the type is not `lsp`.

use super::Validator;
use crate::LspServer;
use crate::diagnostic::Origin;
use crate::raw::RawToolset;
use crate::toolset::ToolsetKind;

impl Validator<'_> {
    /// The server of a `type: lsp` toolset (its fields taken out of `t`); `None` for other
    /// types, or when a field is wrong (the error is recorded).
    pub(super) fn lsp_toolset(
        &mut self,
        path: &str,
        kind: ToolsetKind,
        origin: &Origin,
        t: &mut RawToolset,
    ) -> Option<LspServer> {
        if kind != ToolsetKind::Lsp {
            if let Some(f) = &t.file_types {
                self.wrong_type(path, &f.referenced, "file_types", "`type: lsp`", kind);
            }
            return None;
        }
        let before = self.diags.len();
        let command = match t.command.take() {
            Some(c) if !c.value.trim().is_empty() => c.value,
            Some(c) => {
                self.error(
                    self.origin(&c.referenced, format!("{path}.command")),
                    "`command` is empty",
                );
                String::new()
            }
            None => {
                self.error(origin.clone(), "lsp toolset requires a command to be set");
                String::new()
            }
        };
        let args = t
            .args
            .take()
            .map(|a| a.value.into_iter().map(|s| s.0).collect())
            .unwrap_or_default();
        let mut file_types = Vec::new();
        for (i, f) in t
            .file_types
            .take()
            .map(|f| f.value)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            let ext = f.value.trim().to_ascii_lowercase();
            let ext = ext.strip_prefix('.').unwrap_or(&ext).to_owned();
            if ext.is_empty() || ext.contains(['/', '.', '*']) {
                self.error_hint(
                    self.origin(&f.referenced, format!("{path}.file_types[{i}]")),
                    format!("`{}` is not a file extension", f.value),
                    "give extensions such as `.py` or `ts`",
                );
                continue;
            }
            file_types.push(format!(".{ext}"));
        }
        let working_dir = t.working_dir.take().map(|w| w.value);
        let version = t.version.take().map(|v| v.value.0);
        if self.diags.len() > before {
            return None;
        }
        Some(LspServer {
            command,
            args,
            env: Vec::new(),
            file_types,
            working_dir,
            version,
        })
    }
}
