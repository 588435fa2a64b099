//! `add_directory_listing`: the working directory's visible top-level entries, sorted, at
//! most 100.

use std::path::Path;

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use super::context;
use crate::registry::{Builtin, BuiltinCall};

const MAX_ENTRIES: usize = 100;

#[derive(Debug, Clone, Copy, Default)]
pub struct AddDirectoryListing;

pub(crate) fn text(cwd: &str) -> String {
    let Ok(entries) = std::fs::read_dir(Path::new(cwd)) else {
        return String::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                return None;
            }
            let dir = e.file_type().is_ok_and(|t| t.is_dir());
            Some(if dir { format!("{name}/") } else { name })
        })
        .collect();
    if names.is_empty() {
        return String::new();
    }
    names.sort_unstable();
    let mut text = format!("Top-level entries in {cwd}:\n");
    for name in names.iter().take(MAX_ENTRIES) {
        text.push_str("\n- ");
        text.push_str(name);
    }
    if names.len() > MAX_ENTRIES {
        text.push_str(&format!("\n... and {} more", names.len() - MAX_ENTRIES));
    }
    text
}

impl Builtin for AddDirectoryListing {
    fn name(&self) -> &'static str {
        "add_directory_listing"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            if call.input.cwd.is_empty() {
                return Ok(None);
            }
            Ok(context(&call, text(&call.input.cwd)))
        })
    }
}
