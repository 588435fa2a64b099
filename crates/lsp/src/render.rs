//! The texts the model reads, as docker-agent writes them: paths, 1-based lines and columns.

use serde_json::Value;

use crate::uri::display;

/// Whether an answer holds nothing.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

fn line_of(v: &Value, at: &str) -> u64 {
    v.pointer(at).and_then(Value::as_u64).unwrap_or_default()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Hover contents: a string, a `MarkupContent`/`MarkedString` object, or a list of them.
pub(crate) fn markup(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("value").and_then(Value::as_str) {
            Some(s) => s.to_owned(),
            None => v.to_string(),
        },
        Value::Array(items) => items.iter().map(markup).collect::<Vec<_>>().join("\n\n"),
        other => other.to_string(),
    }
}

fn location(uri: &str, range: &Value) -> String {
    format!(
        "- {}:{}:{}",
        display(uri),
        line_of(range, "/start/line") + 1,
        line_of(range, "/start/character") + 1
    )
}

/// A `Location`, a list of them, or `LocationLink`s.
pub(crate) fn locations(v: &Value) -> String {
    let one = |l: &Value| -> Option<String> {
        if let Some(uri) = l.get("uri").and_then(Value::as_str) {
            return Some(location(uri, l.get("range")?));
        }
        let uri = l.get("targetUri").and_then(Value::as_str)?;
        Some(location(uri, l.get("targetSelectionRange")?))
    };
    match v {
        Value::Array(list) => {
            let lines: Vec<String> = list.iter().filter_map(one).collect();
            if lines.is_empty() {
                return "No locations found".to_owned();
            }
            format!("Found {} location(s):\n{}", lines.len(), lines.join("\n"))
        }
        other => one(other).unwrap_or_else(|| other.to_string()),
    }
}

pub(crate) fn symbol_kind(kind: u64) -> String {
    const NAMES: [&str; 26] = [
        "File",
        "Module",
        "Namespace",
        "Package",
        "Class",
        "Method",
        "Property",
        "Field",
        "Constructor",
        "Enum",
        "Interface",
        "Function",
        "Variable",
        "Constant",
        "String",
        "Number",
        "Boolean",
        "Array",
        "Object",
        "Key",
        "Null",
        "EnumMember",
        "Struct",
        "Event",
        "Operator",
        "TypeParameter",
    ];
    usize::try_from(kind)
        .ok()
        .and_then(|k| k.checked_sub(1))
        .and_then(|k| NAMES.get(k))
        .map_or_else(|| format!("Kind{kind}"), |n| (*n).to_owned())
}

/// `DocumentSymbol`s (a tree, by line) or `SymbolInformation`s (a list with locations).
pub(crate) fn symbols(v: &Value) -> String {
    let Some(list) = v.as_array() else {
        return v.to_string();
    };
    if list.first().is_some_and(|s| s.get("location").is_none()) {
        let mut lines = Vec::new();
        tree(list, "", &mut lines);
        return lines.join("\n");
    }
    let lines: Vec<String> = list
        .iter()
        .map(|s| {
            let kind = symbol_kind(s.get("kind").and_then(Value::as_u64).unwrap_or_default());
            let uri = s
                .pointer("/location/uri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut line = format!(
                "- {kind} {} ({}:{})",
                str_of(s, "name"),
                display(uri),
                line_of(s, "/location/range/start/line") + 1
            );
            let container = str_of(s, "containerName");
            if !container.is_empty() {
                line.push_str(&format!(" [in {container}]"));
            }
            line
        })
        .collect();
    if lines.is_empty() {
        return "No symbols found".to_owned();
    }
    lines.join("\n")
}

fn tree(list: &[Value], indent: &str, lines: &mut Vec<String>) {
    for s in list {
        let kind = symbol_kind(s.get("kind").and_then(Value::as_u64).unwrap_or_default());
        lines.push(format!(
            "{indent}- {kind} {} (line {})",
            str_of(s, "name"),
            line_of(s, "/range/start/line") + 1
        ));
        if let Some(children) = s.get("children").and_then(Value::as_array) {
            tree(children, &format!("{indent}  "), lines);
        }
    }
}

pub(crate) fn diagnostics(file: &str, list: &[lsp_types::Diagnostic]) -> String {
    let mut lines = vec![format!("Diagnostics for {file}:")];
    for d in list {
        let severity = match d.severity {
            Some(lsp_types::DiagnosticSeverity::ERROR) => "Error",
            Some(lsp_types::DiagnosticSeverity::WARNING) => "Warning",
            Some(lsp_types::DiagnosticSeverity::INFORMATION) => "Info",
            Some(lsp_types::DiagnosticSeverity::HINT) => "Hint",
            _ => "Unknown",
        };
        lines.push(format!(
            "- [{severity}] Line {}: {}",
            d.range.start.line + 1,
            d.message
        ));
    }
    lines.join("\n")
}

pub(crate) fn code_actions(file: &str, line: u64, v: &Value) -> String {
    let Some(list) = v.as_array() else {
        return v.to_string();
    };
    let mut lines = vec![format!("Available code actions for {file}:{line}:")];
    for (i, a) in list.iter().enumerate() {
        let kind = match str_of(a, "kind") {
            "" => "action",
            k => k,
        };
        let preferred = if a.get("isPreferred").and_then(Value::as_bool) == Some(true) {
            " (preferred)"
        } else {
            ""
        };
        lines.push(format!(
            "{}. [{kind}] {}{preferred}",
            i + 1,
            str_of(a, "title")
        ));
    }
    lines.join("\n")
}

fn item(v: &Value) -> String {
    let kind = symbol_kind(v.get("kind").and_then(Value::as_u64).unwrap_or_default());
    let detail = match str_of(v, "detail") {
        "" => String::new(),
        d => format!(" [{d}]"),
    };
    format!(
        "- {kind} {} ({}:{}){detail}",
        str_of(v, "name"),
        display(str_of(v, "uri")),
        line_of(v, "/range/start/line") + 1
    )
}

pub(crate) fn incoming_calls(target: &str, v: &Value) -> String {
    let list = v.as_array().map(Vec::as_slice).unwrap_or_default();
    if list.is_empty() {
        return format!("No incoming calls to '{target}'");
    }
    let mut lines = vec![format!("Incoming calls to '{target}':")];
    for call in list {
        let from = call.get("from").cloned().unwrap_or_default();
        let at: Vec<String> = call
            .get("fromRanges")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|r| (line_of(r, "/start/line") + 1).to_string())
            .collect();
        lines.push(format!(
            "{} calls at line(s) {}",
            item(&from),
            at.join(", ")
        ));
    }
    lines.join("\n")
}

pub(crate) fn outgoing_calls(source: &str, v: &Value) -> String {
    let list = v.as_array().map(Vec::as_slice).unwrap_or_default();
    if list.is_empty() {
        return format!("No outgoing calls from '{source}'");
    }
    let mut lines = vec![format!("Outgoing calls from '{source}':")];
    for call in list {
        lines.push(item(&call.get("to").cloned().unwrap_or_default()));
    }
    lines.join("\n")
}

/// `direction` is `Supertypes` or `Subtypes`.
pub(crate) fn type_hierarchy(name: &str, direction: &str, v: &Value) -> String {
    let list = v.as_array().map(Vec::as_slice).unwrap_or_default();
    if list.is_empty() {
        return format!("No {} for '{name}'", direction.to_lowercase());
    }
    let mut lines = vec![format!("{direction} of '{name}':")];
    lines.extend(list.iter().map(item));
    lines.join("\n")
}

pub(crate) fn signature_help(v: &Value) -> String {
    let signatures = v
        .get("signatures")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if signatures.is_empty() {
        return "No signature help available".to_owned();
    }
    let active_signature = v
        .get("activeSignature")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let mut lines = Vec::new();
    for (i, sig) in (0u64..).zip(signatures) {
        if i > 0 {
            lines.push(String::new());
        }
        let active = if i == active_signature {
            " [ACTIVE]"
        } else {
            ""
        };
        lines.push(format!("Function: {}{active}", str_of(sig, "label")));
        if let Some(doc) = sig.get("documentation").filter(|d| !d.is_null()) {
            let doc = markup(doc);
            if !doc.is_empty() {
                lines.extend([String::new(), doc]);
            }
        }
        let params = sig
            .get("parameters")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if params.is_empty() {
            continue;
        }
        lines.extend([String::new(), "Parameters:".to_owned()]);
        let active_param = match sig.get("activeParameter").and_then(Value::as_u64) {
            Some(p) if p > 0 => p,
            _ => v
                .get("activeParameter")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        };
        let label_text = str_of(sig, "label");
        for (j, p) in (0u64..).zip(params) {
            let label = match p.get("label") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(r)) if r.len() == 2 => {
                    // Offsets into the signature's label, in UTF-16 units.
                    let (a, b) = (r[0].as_u64().unwrap_or(0), r[1].as_u64().unwrap_or(0));
                    let units: Vec<u16> = label_text.encode_utf16().collect();
                    let (a, b) = (
                        usize::try_from(a).unwrap_or(0),
                        usize::try_from(b).unwrap_or(0),
                    );
                    units
                        .get(a..b)
                        .map_or_else(|| format!("[{a}:{b}]"), String::from_utf16_lossy)
                }
                Some(other) => other.to_string(),
                None => String::new(),
            };
            let marker = if j == active_param { " [ACTIVE]" } else { "" };
            let mut line = format!("{}. {label}{marker}", j + 1);
            if let Some(doc) = p.get("documentation").filter(|d| !d.is_null()) {
                let doc = markup(doc);
                if !doc.is_empty() {
                    line.push_str(&format!(" - {doc}"));
                }
            }
            lines.push(line);
        }
        lines.extend([
            String::new(),
            format!(
                "Currently typing parameter {} of {}",
                active_param + 1,
                params.len()
            ),
        ]);
    }
    lines.join("\n")
}

pub(crate) fn inlay_hints(file: &str, start: u64, end: u64, v: &Value) -> String {
    let list = v.as_array().map(Vec::as_slice).unwrap_or_default();
    if list.is_empty() {
        return format!("No inlay hints for {file}:{start}-{end}");
    }
    let mut lines = vec![format!("Inlay hints for {file}:{start}-{end}:")];
    for h in list {
        let label = match h.get("label") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("value").and_then(Value::as_str))
                .collect(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let kind = match h.get("kind").and_then(Value::as_u64) {
            Some(1) => "type",
            Some(2) => "parameter",
            _ => "hint",
        };
        lines.push(format!(
            "- Line {}, Col {}: '{label}' ({kind})",
            line_of(h, "/position/line") + 1,
            line_of(h, "/position/character") + 1
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn locations_are_one_based_paths() {
        let one = json!({"uri": "file:///w/a%20b.py", "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}});
        assert_eq!(locations(&one), "- /w/a b.py:1:5");
        let link = json!([{"targetUri": "file:///w/x.ts", "targetRange": {}, "targetSelectionRange": {"start": {"line": 9, "character": 0}}}]);
        assert_eq!(locations(&link), "Found 1 location(s):\n- /w/x.ts:10:1");
    }

    #[test]
    fn document_symbols_are_an_indented_tree() {
        let v = json!([{"name": "C", "kind": 5, "range": {"start": {"line": 2}}, "children": [
            {"name": "m", "kind": 6, "range": {"start": {"line": 3}}}]}]);
        assert_eq!(symbols(&v), "- Class C (line 3)\n  - Method m (line 4)");
        assert_eq!(symbol_kind(99), "Kind99");
        assert_eq!(symbol_kind(0), "Kind0");
    }

    #[test]
    fn signature_parameters_given_as_offsets_show_their_text() {
        let v = json!({"signatures": [{"label": "f(a, b)", "parameters": [
            {"label": [2, 3]}, {"label": [5, 6]}]}], "activeParameter": 1});
        assert_eq!(
            signature_help(&v),
            "Function: f(a, b) [ACTIVE]\n\nParameters:\n1. a\n2. b [ACTIVE]\n\nCurrently typing parameter 2 of 2"
        );
    }
}
