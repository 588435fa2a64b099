//! Messages typed while the agent works (docs/design.md, Queued messages): steering messages, drained whole at
//! three points of a run, and follow-ups, one per end of turn. Non-blocking and bounded.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Steering messages waiting at most.
pub const STEERING_CAPACITY: usize = 5;
/// Follow-ups waiting at most.
pub const FOLLOWUP_CAPACITY: usize = 20;

/// Why a message could not be queued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueueError {
    /// Too many steering messages are waiting; not retryable until the next drain.
    #[error("steer queue full")]
    SteeringFull,
    /// Too many follow-ups are waiting; not retryable until one is taken.
    #[error("follow-up queue full")]
    FollowupFull,
}

#[derive(Debug, Default)]
pub(crate) struct Queues {
    steering: Mutex<VecDeque<String>>,
    followups: Mutex<VecDeque<String>>,
}

impl Queues {
    pub(crate) fn steer(&self, text: String) -> Result<(), QueueError> {
        let mut q = self.steering.lock().map_err(|_| QueueError::SteeringFull)?;
        if q.len() >= STEERING_CAPACITY {
            return Err(QueueError::SteeringFull);
        }
        q.push_back(text);
        Ok(())
    }

    pub(crate) fn follow_up(&self, text: String) -> Result<(), QueueError> {
        let mut q = self
            .followups
            .lock()
            .map_err(|_| QueueError::FollowupFull)?;
        if q.len() >= FOLLOWUP_CAPACITY {
            return Err(QueueError::FollowupFull);
        }
        q.push_back(text);
        Ok(())
    }

    /// Every waiting steering message, in submission order.
    pub(crate) fn drain_steering(&self) -> Vec<String> {
        self.steering
            .lock()
            .map(|mut q| q.drain(..).collect())
            .unwrap_or_default()
    }

    /// The oldest follow-up.
    pub(crate) fn next_followup(&self) -> Option<String> {
        self.followups.lock().ok().and_then(|mut q| q.pop_front())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_are_bounded_and_ordered() {
        let q = Queues::default();
        for i in 0..STEERING_CAPACITY {
            q.steer(format!("s{i}")).unwrap();
        }
        assert_eq!(q.steer("x".into()), Err(QueueError::SteeringFull));
        assert_eq!(q.drain_steering(), ["s0", "s1", "s2", "s3", "s4"]);
        assert!(q.drain_steering().is_empty());
        q.follow_up("a".into()).unwrap();
        q.follow_up("b".into()).unwrap();
        assert_eq!(q.next_followup().as_deref(), Some("a"));
        assert_eq!(q.next_followup().as_deref(), Some("b"));
        assert_eq!(q.next_followup(), None);
    }
}
