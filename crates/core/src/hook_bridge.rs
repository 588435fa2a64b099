//! Hook runs become events: `hook_started` / `hook_finished` for every run, a warning for every
//! failure and `system_message`, so a hook can never fail silently.

use tether_config::HookSpec;
use tether_hooks::{HookObserver, HookRun, RunStatus, duration_ms};
use tether_protocol::{HookEvent, Lane, RuntimeEvent};

use crate::interaction::Sink;

/// Forwards hook runs to the event sink.
#[derive(Debug)]
pub(crate) struct EventObserver {
    pub(crate) sink: Sink,
}

fn event_name(event: HookEvent, lane: Lane) -> String {
    match lane {
        Lane::Preempt => format!("{event} (preempt)"),
        Lane::Default => event.wire_name().to_owned(),
    }
}

impl HookObserver for EventObserver {
    fn started(&self, event: HookEvent, lane: Lane, session_id: &str, hook: &HookSpec) {
        self.sink.emit(
            session_id,
            RuntimeEvent::HookStarted {
                event: event_name(event, lane),
                hook: hook.display_name().to_owned(),
            },
        );
    }

    fn finished(&self, session_id: &str, run: &HookRun) {
        let failed_closed = run.event.fails_closed()
            && matches!(run.status, RunStatus::Failed | RunStatus::TimedOut);
        let allowed = run.status != RunStatus::Blocked
            && !failed_closed
            && !matches!(run.verdict, "deny" | "block");
        self.sink.emit(
            session_id,
            RuntimeEvent::HookFinished {
                event: event_name(run.event, run.lane),
                hook: run.name.clone(),
                status: run.status.as_str().to_owned(),
                exit_code: run.exit_code,
                duration_ms: duration_ms(run.duration),
                allowed,
            },
        );
    }
}
