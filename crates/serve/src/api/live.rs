//! The sessions a server holds: each one's lock (one turn at a time), its pending question,
//! and the API settings kept with it in the store, where another server process finds them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tether_config::PermissionPattern;
use tether_core::{Session, SessionStore};
use tokio_util::sync::CancellationToken;

use super::ApiError;
use super::asker::ParkingAsker;
use crate::hub::Hub;

/// The key of the store's `extra` the API keeps its settings under.
const EXTRA_KEY: &str = "api";

/// What docker-agent keeps on its session and Tether's core does not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Settings {
    pub title: String,
    /// Yolo for the session (`tools_approved`).
    pub tools_approved: bool,
    /// Session `permissions.allow`: approved without asking.
    pub allow: Vec<String>,
}

impl Settings {
    pub(crate) fn of(session: &Session) -> Self {
        session
            .extra
            .get(EXTRA_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    /// Writes the settings into `session` (what the approval ladder reads, and `extra`).
    pub(crate) fn apply(&self, session: &mut Session) {
        session.tools_approved = self.tools_approved;
        session.approved_tools = self
            .allow
            .iter()
            .filter_map(|p| PermissionPattern::parse(p).ok())
            .collect();
        if let Ok(v) = serde_json::to_value(self) {
            session.extra.insert(EXTRA_KEY.to_owned(), v);
        }
    }
}

/// One session while the server knows it.
#[derive(Debug)]
pub(crate) struct Live {
    pub id: String,
    /// Held for a whole turn.
    pub state: Arc<tokio::sync::Mutex<Session>>,
    pub asker: Arc<ParkingAsker>,
    pub settings: Mutex<Settings>,
    /// The running turn's token.
    pub cancel: Mutex<Option<CancellationToken>>,
}

impl Live {
    fn new(session: Session) -> Arc<Self> {
        Arc::new(Self {
            id: session.id.clone(),
            settings: Mutex::new(Settings::of(&session)),
            state: Arc::new(tokio::sync::Mutex::new(session)),
            asker: Arc::new(ParkingAsker::default()),
            cancel: Mutex::new(None),
        })
    }

    pub(crate) fn settings(&self) -> Settings {
        self.settings.lock().map(|s| s.clone()).unwrap_or_default()
    }

    pub(crate) fn set_settings(&self, f: impl FnOnce(&mut Settings)) -> Settings {
        match self.settings.lock() {
            Ok(mut s) => {
                f(&mut s);
                s.clone()
            }
            Err(_) => Settings::default(),
        }
    }

    pub(crate) fn cancel_turn(&self) {
        if let Some(t) = self.cancel.lock().ok().and_then(|c| c.clone()) {
            t.cancel();
        }
    }
}

/// The sessions in memory, loaded from the store on first use.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<Live>>>,
}

impl Sessions {
    /// The session `id`, from memory or the store.
    pub(crate) fn get(&self, hub: &Hub, id: &str) -> Result<Arc<Live>, ApiError> {
        if let Some(live) = self.map.lock().ok().and_then(|m| m.get(id).cloned()) {
            return Ok(live);
        }
        let session = load(hub, id)?.ok_or_else(|| ApiError::no_session(id))?;
        let live = Live::new(session);
        let mut map = self
            .map
            .lock()
            .map_err(|_| ApiError::internal("the session map is poisoned"))?;
        Ok(Arc::clone(map.entry(id.to_owned()).or_insert(live)))
    }

    pub(crate) fn insert(&self, session: Session) -> Arc<Live> {
        let live = Live::new(session);
        if let Ok(mut map) = self.map.lock() {
            map.insert(live.id.clone(), Arc::clone(&live));
        }
        live
    }

    pub(crate) fn remove(&self, id: &str) -> Option<Arc<Live>> {
        self.map.lock().ok().and_then(|mut m| m.remove(id))
    }

    /// Sessions in memory only (servers without a store).
    pub(crate) fn ids(&self) -> Vec<String> {
        self.map
            .lock()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Cancels every running turn (shutdown).
    pub(crate) fn cancel_all(&self) {
        if let Ok(map) = self.map.lock() {
            map.values().for_each(|l| l.cancel_turn());
        }
    }
}

/// The stored session `id`, restored; `None` if the store has none.
pub(crate) fn load(hub: &Hub, id: &str) -> Result<Option<Session>, ApiError> {
    let Some(store) = hub.factory().store() else {
        return Ok(None);
    };
    let stored = store
        .load(id)
        .map_err(|e| ApiError::internal(format!("cannot load session {id}: {e}")))?;
    Ok(stored.map(tether_core::restore))
}

/// Saves `session`'s metadata (settings included) to the store.
pub(crate) fn persist(hub: &Hub, session: &Session) -> Result<(), ApiError> {
    match hub.factory().store() {
        Some(store) => SessionStore::update(store.as_ref(), session)
            .map_err(|e| ApiError::internal(format!("cannot save session {}: {e}", session.id))),
        None => Ok(()),
    }
}

/// Brings a held session up to date with the store (another server may have run it) and
/// with the settings the client set.
pub(crate) fn refresh(hub: &Hub, live: &Live, session: &mut Session) -> Result<(), ApiError> {
    if hub.factory().store().is_some() {
        *session = load(hub, &live.id)?.ok_or_else(|| ApiError::no_session(&live.id))?;
        let stored = Settings::of(session);
        live.set_settings(|s| *s = stored);
    }
    live.settings().apply(session);
    Ok(())
}
