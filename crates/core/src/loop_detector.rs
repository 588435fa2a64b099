//! The tool-call loop detector (docs/design.md, Loop detector): the same batch of calls, with the same
//! arguments, too many times in a row ends the run.

use serde_json::Value;
use tether_protocol::ToolCall;

/// Batches made only of these are polling and never count.
const EXEMPT: [&str; 3] = [
    "view_background_agent",
    "list_background_agents",
    "view_background_job",
];

#[derive(Debug)]
pub(crate) struct LoopDetector {
    threshold: u32,
    last: Option<String>,
    consecutive: u32,
}

/// JSON with object keys sorted at every level; invalid JSON is used verbatim.
fn canonical(arguments: &str) -> String {
    // serde_json's default map is ordered, so a round trip sorts keys recursively.
    serde_json::from_str::<Value>(arguments)
        .map_or_else(|_| arguments.to_owned(), |v| v.to_string())
}

impl LoopDetector {
    /// `threshold` 0 means the default, 5.
    pub(crate) fn new(threshold: u32) -> Self {
        Self {
            threshold: if threshold == 0 { 5 } else { threshold },
            last: None,
            consecutive: 0,
        }
    }

    /// Records a batch; returns `Some(count)` when it trips (and resets).
    pub(crate) fn record(&mut self, batch: &[ToolCall]) -> Option<u32> {
        if batch.is_empty()
            || batch
                .iter()
                .all(|c| EXEMPT.contains(&c.function.name.as_str()))
        {
            return None;
        }
        let signature: Vec<String> = batch
            .iter()
            .map(|c| format!("{}\0{}", c.function.name, canonical(&c.function.arguments)))
            .collect();
        let signature = signature.join("\0");
        if self.last.as_ref() == Some(&signature) {
            self.consecutive += 1;
        } else {
            self.last = Some(signature);
            self.consecutive = 1;
        }
        if self.consecutive >= self.threshold {
            let n = self.consecutive;
            self.last = None;
            self.consecutive = 0;
            return Some(n);
        }
        None
    }
}

/// The error text when the detector trips.
pub(crate) fn message(count: u32, tool: &str) -> String {
    format!(
        "Agent terminated: detected {count} consecutive identical calls to {tool}. This indicates a degenerate loop where the model is not making progress."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, args: &str) -> ToolCall {
        ToolCall::new("id", name, args)
    }

    #[test]
    fn trips_on_the_threshold_with_canonical_arguments() {
        let mut d = LoopDetector::new(3);
        assert_eq!(d.record(&[call("shell", r#"{"a":1,"b":2}"#)]), None);
        assert_eq!(d.record(&[call("shell", r#"{"b":2, "a":1}"#)]), None);
        assert_eq!(d.record(&[call("shell", r#"{"a":1,"b":2}"#)]), Some(3));
        // Reset after tripping.
        assert_eq!(d.record(&[call("shell", r#"{"a":1,"b":2}"#)]), None);
    }

    #[test]
    fn a_different_batch_resets_and_empty_or_exempt_batches_are_ignored() {
        let mut d = LoopDetector::new(2);
        assert_eq!(d.record(&[call("shell", "{}")]), None);
        assert_eq!(d.record(&[]), None);
        assert_eq!(d.record(&[call("view_background_job", "{}")]), None);
        assert_eq!(d.record(&[call("shell", "{}")]), Some(2));
        assert_eq!(d.record(&[call("shell", "{}")]), None);
        assert_eq!(d.record(&[call("read_file", "{}")]), None);
        assert_eq!(d.record(&[call("shell", "{}")]), None);
    }

    #[test]
    fn zero_means_five() {
        let mut d = LoopDetector::new(0);
        let hits: Vec<_> = (0..5).map(|_| d.record(&[call("x", "not json")])).collect();
        assert_eq!(hits, [None, None, None, None, Some(5)]);
    }
}
