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
