//! Policies grouped by the requests their scope can match, so a decision evaluates only those.
//!
//! Cedar evaluates every policy of the set it is given, and most of a team's policies are
//! scoped to one event (`action == Action::"pre_tool_use"`) and one tool (`resource ==
//! Tool::"shell"`). At load each policy goes into every bucket of an (event, resource) its scope
//! can match; a policy whose scope leaves the action or the resource open goes into every
//! bucket of that axis. A bucket may hold policies whose scope does not match after all (an
//! `is` constraint, the principal): Cedar still evaluates the scope, so a bucket answers
//! exactly as the whole set would, only sooner.
//!
//! Requests carry no entity data (the entity store is empty), so `in` holds only between
//! equal entities: `action in [A, B]` is `action == A || action == B`, `resource in R` is
//! `resource == R`.

use std::collections::{HashMap, HashSet};

use cedar_policy::{ActionConstraint, EntityUid, Policy, PolicySet, ResourceConstraint};
use tether_config::POLICY_EVENTS;
use tether_protocol::HookEvent;

/// The policies of one event, by resource.
#[derive(Debug)]
struct EventBuckets<B> {
    /// For each resource some policy names: the policies that can match it.
    by_resource: HashMap<EntityUid, B>,
    /// For any other resource: the policies that leave the resource open (or only typed).
    other: B,
}

/// The static policies of a set, bucketed by event (in `POLICY_EVENTS` order) and resource;
/// a bucket is whatever the caller makes of its policies (see `ScopeIndex::build`).
#[derive(Debug)]
pub(crate) struct ScopeIndex<B> {
    events: Vec<EventBuckets<B>>,
}

/// The resource an indexed policy can match: any, or exactly this one.
enum ResourceScope {
    Any,
    Exactly(EntityUid),
}

fn resource_scope(p: &Policy) -> ResourceScope {
    match p.resource_constraint() {
        // `is T` is left to Cedar: any resource, as far as the index is concerned.
        ResourceConstraint::Any | ResourceConstraint::Is(_) => ResourceScope::Any,
        ResourceConstraint::In(r) | ResourceConstraint::Eq(r) | ResourceConstraint::IsIn(_, r) => {
            ResourceScope::Exactly(r)
        }
    }
}

fn action_matches(p: &Policy, action: &EntityUid) -> bool {
    match p.action_constraint() {
        ActionConstraint::Any => true,
        ActionConstraint::Eq(a) => &a == action,
        ActionConstraint::In(list) => list.contains(action),
    }
}

impl<B> ScopeIndex<B> {
    /// The index of `set`, each bucket made by `bucket` from its policies (in no particular
    /// order); `None` when the set holds policies linked from templates, which the index does
    /// not split (the whole set is evaluated then).
    pub(crate) fn build<'p>(
        set: &'p PolicySet,
        action_uid: impl Fn(HookEvent) -> EntityUid,
        bucket: impl Fn(Vec<&'p Policy>) -> Result<B, String>,
    ) -> Result<Option<Self>, String> {
        let policies: Vec<(&Policy, ResourceScope)> =
            set.policies().map(|p| (p, resource_scope(p))).collect();
        if policies.iter().any(|(p, _)| !p.is_static()) {
            return Ok(None);
        }
        let mut events = Vec::with_capacity(POLICY_EVENTS.len());
        for event in POLICY_EVENTS {
            let action = action_uid(event);
            let here: Vec<&(&Policy, ResourceScope)> = policies
                .iter()
                .filter(|(p, _)| action_matches(p, &action))
                .collect();
            let open = || {
                here.iter()
                    .filter(|(_, r)| matches!(r, ResourceScope::Any))
                    .map(|(p, _)| *p)
            };
            let named: HashSet<&EntityUid> = here
                .iter()
                .filter_map(|(_, r)| match r {
                    ResourceScope::Exactly(uid) => Some(uid),
                    ResourceScope::Any => None,
                })
                .collect();
            let mut by_resource = HashMap::with_capacity(named.len());
            for uid in named {
                let exact = here.iter().filter_map(|(p, r)| match r {
                    ResourceScope::Exactly(u) if u == uid => Some(*p),
                    _ => None,
                });
                by_resource.insert(uid.clone(), bucket(open().chain(exact).collect())?);
            }
            events.push(EventBuckets {
                by_resource,
                other: bucket(open().collect())?,
            });
        }
        Ok(Some(Self { events }))
    }

    /// The policies that can apply to `event` on `resource`; `None` for an event policy hooks
    /// do not run on.
    pub(crate) fn policies(&self, event: HookEvent, resource: &EntityUid) -> Option<&B> {
        let at = POLICY_EVENTS.iter().position(|e| *e == event)?;
        let buckets = self.events.get(at)?;
        Some(buckets.by_resource.get(resource).unwrap_or(&buckets.other))
    }
}
