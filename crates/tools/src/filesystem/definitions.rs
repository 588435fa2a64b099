//! The filesystem tools as the model sees them: docker-agent's names, descriptions and
//! argument schemas, exactly as recorded in `TestExec_OpenAI_ToolCall.yaml` (including the
//! `["null", "array"]` types its Go schema generator emits), in docker-agent's order.

use serde_json::{Value, json};

use super::Op;
use crate::schema::{object, string, string_array};

/// One row per tool: (operation, name, description, read-only, schema).
pub(super) fn table() -> [(Op, &'static str, &'static str, bool, Value); 9] {
    [
        (
            Op::DirectoryTree,
            "directory_tree",
            "Get a recursive tree view of files and directories as a JSON structure.",
            true,
            object(
                json!({"path": string("The directory path to traverse (relative to working directory)")}),
                &["path"],
            ),
        ),
        (
            Op::EditFile,
            "edit_file",
            "Make line-based edits to a text file. Each edit replaces exact line sequences with new content.",
            false,
            object(
                json!({
                    "edits": {
                        "description": "Array of edit operations",
                        "items": object(
                            json!({
                                "newText": string("The replacement text"),
                                "oldText": string("The exact text to replace"),
                            }),
                            &["newText", "oldText"],
                        ),
                        "type": ["null", "array"],
                    },
                    "path": string("The file path to edit"),
                }),
                &["edits", "path"],
            ),
        ),
        (
            Op::ListDirectory,
            "list_directory",
            "Get a detailed listing of all files and directories in a specified path.",
            true,
            object(
                json!({"path": string("The directory path to list")}),
                &["path"],
            ),
        ),
        (
            Op::ReadFile,
            "read_file",
            "Read the complete contents of a file from the file system. Supports text files and images (jpg, png, gif, webp). Images are returned as image content that you can view directly.",
            true,
            object(json!({"path": string("The file path to read")}), &["path"]),
        ),
        (
            Op::ReadMultipleFiles,
            "read_multiple_files",
            "Read the contents of multiple files simultaneously.",
            true,
            object(
                json!({
                    "json": {
                        "description": "Whether to return the result as JSON",
                        "type": ["boolean", "null"],
                    },
                    "paths": string_array("Array of file paths to read"),
                }),
                &["json", "paths"],
            ),
        ),
        (
            Op::SearchFilesContent,
            "search_files_content",
            "Searches for text or regex patterns in the content of files matching a GLOB pattern.",
            true,
            object(
                json!({
                    "excludePatterns": string_array("Patterns to exclude from search"),
                    "is_regex": {
                        "description": "If true, treat query as regex; otherwise literal text",
                        "type": ["boolean", "null"],
                    },
                    "path": string("The starting directory path"),
                    "query": string("The text or regex pattern to search for"),
                }),
                &["excludePatterns", "is_regex", "path", "query"],
            ),
        ),
        (
            Op::WriteFile,
            "write_file",
            "Create a new file or completely overwrite an existing file with new content.",
            false,
            object(
                json!({
                    "content": string("The content to write to the file"),
                    "path": string("The file path to write"),
                }),
                &["content", "path"],
            ),
        ),
        (
            Op::CreateDirectory,
            "create_directory",
            "Create one or more new directories or nested directory structures.",
            false,
            object(
                json!({"paths": string_array("Array of directory paths to create")}),
                &["paths"],
            ),
        ),
        (
            Op::RemoveDirectory,
            "remove_directory",
            "Remove one or more empty directories.",
            false,
            object(
                json!({"paths": string_array("Array of directory paths to remove")}),
                &["paths"],
            ),
        ),
    ]
}
