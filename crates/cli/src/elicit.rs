//! Answering an MCP server's request for input (elicitation) one field at a time, with
//! whatever reads the user's lines: the terminal in `--exec`, the console in a session.
//! End of input declines; an empty answer leaves an optional field out.

use std::future::Future;

use serde_json::{Map, Value};
use tether_mcp::{Elicitation, ElicitationAnswer};

/// One field's prompt, e.g. `name (string, required): `.
fn field_prompt(key: &str, schema: &Value, required: bool) -> String {
    let title = schema.get("title").and_then(Value::as_str).unwrap_or(key);
    let mut kind = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string")
        .to_owned();
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = choices
            .iter()
            .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned))
            .collect();
        kind = format!("one of {}", names.join(", "));
    }
    let mut text = format!(
        "  {title} ({kind}{})",
        if required { ", required" } else { "" }
    );
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        text.push_str(&format!(" — {d}"));
    }
    text.push_str(": ");
    text
}

/// The typed value of an answer, or why it does not fit.
fn parse(answer: &str, schema: &Value) -> Result<Value, String> {
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        return choices
            .iter()
            .find(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned) == answer)
            .cloned()
            .ok_or_else(|| format!("`{answer}` is not one of the choices"));
    }
    match schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string")
    {
        "boolean" => match answer.to_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err(format!("`{answer}` is not yes or no")),
        },
        "integer" => answer
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("`{answer}` is not an integer")),
        "number" => answer
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("`{answer}` is not a number")),
        _ => Ok(Value::String(answer.to_owned())),
    }
}

/// Asks whether to answer, then each field; `ask` prints its question and returns the next
/// line (`None` at end of input). `say` shows a note.
pub(crate) async fn answer<A, F>(
    request: &Elicitation,
    mut ask: A,
    say: impl Fn(&str),
) -> ElicitationAnswer
where
    A: FnMut(String) -> F,
    F: Future<Output = Option<String>>,
{
    let who = if request.server.is_empty() {
        "The agent".to_owned()
    } else {
        format!("MCP server `{}`", request.server)
    };
    let q = format!("{who} asks: {}\nAnswer? ([y]es/[n]o) ", request.message);
    match ask(q).await.map(|a| a.trim().to_lowercase()).as_deref() {
        None => return ElicitationAnswer::Decline,
        Some("y" | "yes") => {}
        Some(_) => return ElicitationAnswer::Decline,
    }
    let required: Vec<&str> = request
        .schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    let empty = Map::new();
    let properties = request
        .schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (key, schema) in properties {
        let needed = required.contains(&key.as_str());
        // Two tries per field: a typo should not throw the whole form away.
        let mut tries = 0;
        loop {
            let Some(line) = ask(field_prompt(key, schema, needed)).await else {
                return ElicitationAnswer::Decline;
            };
            let line = line.trim();
            if line.is_empty() {
                if needed {
                    say(&format!("`{key}` is required"));
                } else {
                    if let Some(d) = schema.get("default") {
                        out.insert(key.clone(), d.clone());
                    }
                    break;
                }
            } else {
                match parse(line, schema) {
                    Ok(v) => {
                        out.insert(key.clone(), v);
                        break;
                    }
                    Err(e) => say(&e),
                }
            }
            tries += 1;
            if tries == 2 {
                return ElicitationAnswer::Decline;
            }
        }
    }
    ElicitationAnswer::Accept(out)
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;

    fn request() -> Elicitation {
        Elicitation {
            server: "notes".into(),
            message: "Who are you?".into(),
            schema: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "age": {"type": "integer"},
                    "color": {"type": "string", "enum": ["red", "blue"]},
                    "ok": {"type": "boolean"}
                },
                "required": ["name"]
            }),
        }
    }

    /// Answers each question from the queue of its field (`?` is the opening question).
    async fn run(answers: &[(&str, &[&str])]) -> ElicitationAnswer {
        let queues: Mutex<Vec<(String, VecDeque<String>)>> = Mutex::new(
            answers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.iter().map(|s| (*s).to_owned()).collect()))
                .collect(),
        );
        answer(
            &request(),
            |q: String| {
                let key = if q.starts_with("MCP server") {
                    "?".to_owned()
                } else {
                    q.trim().split(' ').next().unwrap_or("").to_owned()
                };
                let next = queues
                    .lock()
                    .unwrap()
                    .iter_mut()
                    .find(|(k, _)| *k == key)
                    .and_then(|(_, q)| q.pop_front());
                async move { next }
            },
            |_| {},
        )
        .await
    }

    #[tokio::test]
    async fn fields_are_typed_retried_once_and_end_of_input_declines() {
        let obj = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            run(&[
                ("?", &["y"]),
                ("age", &["x", "42"]),
                ("color", &["blue"]),
                ("name", &["Ada"]),
                ("ok", &["yes"]),
            ])
            .await,
            ElicitationAnswer::Accept(obj(
                json!({"age": 42, "color": "blue", "name": "Ada", "ok": true})
            ))
        );
        assert_eq!(
            run(&[
                ("?", &["y"]),
                ("age", &[""]),
                ("color", &[""]),
                ("name", &["Ada"]),
                ("ok", &[""])
            ])
            .await,
            ElicitationAnswer::Accept(obj(json!({"name": "Ada"})))
        );
        assert_eq!(run(&[("?", &["n"])]).await, ElicitationAnswer::Decline);
        assert_eq!(run(&[]).await, ElicitationAnswer::Decline);
        // A required field left empty twice, a wrong enum twice, end of input mid-form.
        let all_empty: &[&str] = &["", ""];
        assert_eq!(
            run(&[
                ("?", &["y"]),
                ("age", all_empty),
                ("color", all_empty),
                ("name", all_empty),
                ("ok", all_empty)
            ])
            .await,
            ElicitationAnswer::Decline
        );
        assert_eq!(
            run(&[
                ("?", &["y"]),
                ("age", &[""]),
                ("color", &["green", "pink"]),
                ("name", &["A"]),
                ("ok", &[""])
            ])
            .await,
            ElicitationAnswer::Decline
        );
        assert_eq!(run(&[("?", &["y"])]).await, ElicitationAnswer::Decline);
    }
}
