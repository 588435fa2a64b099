//! The API's answer to an `ask`: the question waits on a channel until the client answers it
//! with `POST /api/sessions/:id/resume`; nothing runs meanwhile.

use std::sync::Mutex;

use futures::future::BoxFuture;
use tether_core::{Confirmation, ConfirmationRequest};
use tokio::sync::{mpsc, oneshot};

use crate::router::Asker;

/// One session's pending question, if any.
#[derive(Debug, Default)]
pub(crate) struct ParkingAsker {
    inner: Mutex<Parking>,
}

#[derive(Debug, Default)]
struct Parking {
    /// Told when a question is parked, so its event goes out only once an answer can land.
    parked: Option<mpsc::UnboundedSender<()>>,
    pending: Option<oneshot::Sender<Confirmation>>,
}

impl ParkingAsker {
    /// A turn starts: `parked` hears each question as it starts waiting.
    pub(crate) fn attach(&self, parked: mpsc::UnboundedSender<()>) {
        if let Ok(mut p) = self.inner.lock() {
            p.parked = Some(parked);
            p.pending = None;
        }
    }

    /// The turn is over: nothing waits any more.
    pub(crate) fn detach(&self) {
        if let Ok(mut p) = self.inner.lock() {
            p.parked = None;
            p.pending = None;
        }
    }

    /// Answers the waiting question; `Err` when none waits.
    pub(crate) fn answer(&self, answer: Confirmation) -> Result<(), Confirmation> {
        let pending = self.inner.lock().ok().and_then(|mut p| p.pending.take());
        match pending {
            Some(tx) => tx.send(answer),
            None => Err(answer),
        }
    }
}

impl Asker for ParkingAsker {
    fn confirm<'a>(&'a self, _request: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.inner.lock() {
            p.pending = Some(tx);
            if let Some(parked) = &p.parked {
                let _ = parked.send(());
            }
        }
        Box::pin(async move {
            rx.await.unwrap_or(Confirmation::No {
                reason: Some("the question was dropped before anyone answered it".to_owned()),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ConfirmationRequest {
        ConfirmationRequest {
            session_id: "s".to_owned(),
            agent: "root".to_owned(),
            tool_call_id: "c1".to_owned(),
            tool_name: "shell".to_owned(),
            arguments: serde_json::json!({}),
            metadata: None,
        }
    }

    #[tokio::test]
    async fn a_question_waits_for_its_answer_and_an_answer_needs_a_question() {
        let asker = ParkingAsker::default();
        assert_eq!(asker.answer(Confirmation::Yes), Err(Confirmation::Yes));
        let (parked, mut heard) = mpsc::unbounded_channel();
        asker.attach(parked);
        let request = request();
        let question = asker.confirm(&request);
        assert_eq!(heard.recv().await, Some(()));
        assert_eq!(asker.answer(Confirmation::All), Ok(()));
        assert_eq!(question.await, Confirmation::All);
        assert!(asker.answer(Confirmation::Yes).is_err());
    }

    #[tokio::test]
    async fn a_question_left_when_the_turn_ends_is_a_denial() {
        let asker = ParkingAsker::default();
        let (parked, _heard) = mpsc::unbounded_channel();
        asker.attach(parked);
        let request = request();
        let question = asker.confirm(&request);
        asker.detach();
        assert!(matches!(
            question.await,
            Confirmation::No { reason: Some(_) }
        ));
    }
}
