//! Conversations kept server-side (`--conversations-max`, keyed by `X-Conversation-Id`): at
//! most N, the least recently used dropped first, idle ones dropped after the TTL. A turn
//! works on a copy and commits it only when it succeeds, so a failed turn changes nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tether_core::Session;

/// One conversation: its session as of its last successful turn. The lock serializes turns
/// of the same conversation.
pub(super) type Slot = Arc<tokio::sync::Mutex<Option<Session>>>;

#[derive(Debug)]
pub(super) struct Conversations {
    max: usize,
    ttl: Duration,
    slots: Mutex<HashMap<(String, String), (Instant, Slot)>>,
}

impl Conversations {
    pub(super) fn new(max: usize, ttl: Duration) -> Self {
        Self {
            max,
            ttl,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// The conversation `id` with `agent` (a new, empty one if unknown or expired).
    pub(super) fn slot(&self, agent: &str, id: &str) -> Slot {
        let now = Instant::now();
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let ttl = self.ttl;
        slots.retain(|_, (used, _)| now.duration_since(*used) < ttl);
        let key = (agent.to_owned(), id.to_owned());
        if let Some((used, slot)) = slots.get_mut(&key) {
            *used = now;
            return Arc::clone(slot);
        }
        while slots.len() >= self.max {
            let Some(oldest) = slots
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            slots.remove(&oldest);
        }
        let slot = Slot::default();
        slots.insert(key, (now, Arc::clone(&slot)));
        slot
    }

    /// Drops the conversations idle for longer than the TTL.
    pub(super) fn sweep(&self) {
        let now = Instant::now();
        let ttl = self.ttl;
        self.slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, (used, _)| now.duration_since(*used) < ttl);
    }

    pub(super) fn ttl(&self) -> Duration {
        self.ttl
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.slots.lock().map(|s| s.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_least_recently_used_goes_first() {
        let c = Conversations::new(2, Duration::from_secs(3600));
        *c.slot("root", "a").lock().await = Some(Session::new("s1".to_owned(), "root"));
        c.slot("root", "b");
        c.slot("root", "a");
        c.slot("root", "c");
        assert_eq!(c.len(), 2);
        assert!(
            c.slot("root", "a").lock().await.is_some(),
            "a was used last"
        );
        assert!(c.slot("root", "b").lock().await.is_none(), "b was dropped");
        assert!(c.slot("other", "a").lock().await.is_none(), "per agent");
    }

    #[tokio::test]
    async fn idle_conversations_expire() {
        let c = Conversations::new(5, Duration::ZERO);
        *c.slot("root", "a").lock().await = Some(Session::new("s1".to_owned(), "root"));
        assert!(c.slot("root", "a").lock().await.is_none());
        c.sweep();
        assert_eq!(c.len(), 0);
    }
}
