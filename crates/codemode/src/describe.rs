//! What the model reads about `run_tools_with_javascript`: how scripts work, then one JSDoc
//! block per function with the tool's description and argument schema.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::Function;

const PROMPT: &str = "Run a JavaScript script that calls tools.

Rather than calling the tools below one at a time, write a script that calls as many of them as the task needs: combine their results, loop, branch on what a call returned, and return only what matters.

How scripts run:
 - Every tool below is a plain JavaScript function that takes one object of arguments and returns the tool's output as a string.
 - Calls are synchronous: never use \"await\", \"async\" or promises.
 - A call that is refused or fails throws an Error whose message says why; catch it to go on.
 - The script's body runs inside a function: end it with \"return\" and the result (a string, or an object or array, returned as JSON).
 - console.log, console.info, console.debug, console.trace and console.warn print to stdout, console.error to stderr; both come back with the result.
 - Group related calls into one script to save round trips.

Functions:
";

/// The tool's description: how scripts run, then each function.
pub fn description(functions: &[Function<'_>]) -> String {
    let mut text = PROMPT.to_owned();
    for f in functions {
        text.push_str(&jsdoc(f));
    }
    text
}

/// The tool's argument schema: one `script` string.
pub fn parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "script": {"type": "string", "description": "The JavaScript to run (the body of a function: `return` its result)."}
        },
        "required": ["script"],
        "additionalProperties": false
    })
}

/// Whether `name` can be written as a bare identifier in a script.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn jsdoc(f: &Function<'_>) -> String {
    let mut doc = String::from("\n/**\n");
    for line in f.description.lines() {
        let _ = writeln!(doc, " * {}", line.trim_end());
    }
    doc.push_str(" *\n * @param args - the arguments, an object of this JSON schema:\n");
    let schema = serde_json::to_string_pretty(f.parameters).unwrap_or_default();
    for line in schema.lines() {
        let _ = writeln!(doc, " *   {line}");
    }
    doc.push_str(" * @returns the tool's output\n */\n");
    if is_identifier(f.name) {
        let _ = writeln!(doc, "function {}(args: object): string", f.name);
    } else {
        // A name such as `github-official_list_issues` is a global, reachable by index.
        let _ = writeln!(doc, "globalThis[{:?}](args: object): string", f.name);
    }
    doc
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    #[test]
    fn each_function_gets_its_description_schema_and_signature() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
        let text = description(&[
            Function {
                name: "read_file",
                description: "Reads a file.\nWhole.",
                parameters: &schema,
            },
            Function {
                name: "gh-issues",
                description: "Lists issues.",
                parameters: &json!({}),
            },
        ]);
        let functions = text.split_once("Functions:\n").map(|(_, f)| f);
        assert_eq!(
            functions,
            Some(
                "
/**
 * Reads a file.
 * Whole.
 *
 * @param args - the arguments, an object of this JSON schema:
 *   {
 *     \"properties\": {
 *       \"path\": {
 *         \"type\": \"string\"
 *       }
 *     },
 *     \"required\": [
 *       \"path\"
 *     ],
 *     \"type\": \"object\"
 *   }
 * @returns the tool's output
 */
function read_file(args: object): string

/**
 * Lists issues.
 *
 * @param args - the arguments, an object of this JSON schema:
 *   {}
 * @returns the tool's output
 */
globalThis[\"gh-issues\"](args: object): string
"
            )
        );
    }

    #[test]
    fn identifiers_are_told_from_other_names() {
        assert!(is_identifier("read_file"));
        assert!(is_identifier("$x1"));
        assert!(!is_identifier("1x"));
        assert!(!is_identifier("a-b"));
        assert!(!is_identifier(""));
    }
}
