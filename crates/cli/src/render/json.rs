//! `--json`: one JSON object per line on stdout, each with its `type` and the `session_id`.

use std::io::Write;

use serde_json::Value;
use tether_core::EventSink;
use tether_protocol::RuntimeEvent;

#[derive(Debug, Default)]
pub(crate) struct JsonSink;

/// The line for one event.
pub(crate) fn line(session_id: &str, event: &RuntimeEvent) -> String {
    let mut value = serde_json::to_value(event).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert(
            "session_id".to_owned(),
            Value::String(session_id.to_owned()),
        );
    }
    value.to_string()
}

impl EventSink for JsonSink {
    fn emit(&self, session_id: &str, event: RuntimeEvent) {
        // Turn boundaries exist for telemetry; the documented `--json` stream is unchanged.
        if matches!(
            event,
            RuntimeEvent::TurnStarted { .. } | RuntimeEvent::TurnEnded { .. }
        ) {
            return;
        }
        let mut text = line(session_id, &event);
        text.push('\n');
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes());
        let _ = o.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_type_and_session_id() {
        let l = line(
            "s1",
            &RuntimeEvent::Warning {
                message: "w".into(),
            },
        );
        assert_eq!(l, r#"{"message":"w","session_id":"s1","type":"warning"}"#);
    }
}
