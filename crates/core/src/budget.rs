//! Budgets (docs/design.md, Budgets): the file's `budget` and the named `budgets` are pots of
//! cost, tokens and working time. The pots' limits are the runtime's ([`Budgets`]); what was
//! spent is the session's ([`Spending`], shared with the sub-agents and background tasks it
//! starts, so they spend from the same pots as their caller). Every model call charges the pots
//! of the agent that made it, every turn charges its duration, and the run loop checks them
//! before each turn.

use std::sync::Mutex;
use std::time::Duration;

use tether_config::{Agent, AgentFile, Budget};

#[derive(Debug, Default, Clone, Copy)]
struct Spent {
    cost: f64,
    tokens: u64,
    time: Duration,
}

#[derive(Debug)]
struct Pot {
    /// `None`: the file's `budget`.
    name: Option<String>,
    limit: Budget,
}

impl Pot {
    fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("budget `{n}`"),
            None => "the run's budget".to_owned(),
        }
    }
}

/// The pots and their limits, as the agent file gives them.
#[derive(Debug, Default)]
pub(crate) struct Budgets {
    pots: Vec<Pot>,
}

/// One session's spending, pot by pot.
#[derive(Debug, Default)]
pub(crate) struct Spending {
    /// Indexed like [`Budgets`]' pots; grows on first charge.
    spent: Mutex<Vec<Spent>>,
    /// Models already reported as unpriced.
    unpriced: Mutex<Vec<String>>,
}

impl Spending {
    fn add(&self, pot: usize, f: impl FnOnce(&mut Spent)) {
        if let Ok(mut spent) = self.spent.lock() {
            if spent.len() <= pot {
                spent.resize(pot + 1, Spent::default());
            }
            f(&mut spent[pot]);
        }
    }

    fn of(&self, pot: usize) -> Spent {
        self.spent
            .lock()
            .ok()
            .and_then(|s| s.get(pot).copied())
            .unwrap_or_default()
    }
}

impl Budgets {
    pub(crate) fn new(file: &AgentFile) -> Self {
        let pot = |name: Option<String>, limit: &Budget| Pot {
            name,
            limit: limit.clone(),
        };
        let mut pots: Vec<Pot> = file.budget.iter().map(|b| pot(None, b)).collect();
        pots.extend(file.budgets.iter().map(|(n, b)| pot(Some(n.clone()), b)));
        Self { pots }
    }

    /// The pots `agent` spends from: the file's budget, then those it names.
    pub(crate) fn pots_of(&self, agent: &Agent) -> Vec<usize> {
        self.pots
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.name
                    .as_ref()
                    .is_none_or(|n| agent.budgets.iter().any(|b| b == n))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Charges one model call. Returns a warning the first time a model whose calls cannot be
    /// priced spends from a pot with a `max_cost`.
    pub(crate) fn charge_call(
        &self,
        spending: &Spending,
        pots: &[usize],
        model: &str,
        tokens: u64,
        cost: Option<f64>,
    ) -> Option<String> {
        let mut unpriced = None;
        for &i in pots {
            let pot = &self.pots[i];
            spending.add(i, |s| {
                s.tokens += tokens;
                s.cost += cost.unwrap_or(0.0);
            });
            if cost.is_none() && pot.limit.max_cost.is_some() && unpriced.is_none() {
                unpriced = Some(pot.label());
            }
        }
        let label = unpriced?;
        let mut seen = spending.unpriced.lock().ok()?;
        if seen.iter().any(|m| m == model) {
            return None;
        }
        seen.push(model.to_owned());
        Some(format!(
            "{label} has a max_cost, but `{model}` has no price: its calls count nothing toward it (set `cost` on the model)"
        ))
    }

    pub(crate) fn charge_time(&self, spending: &Spending, pots: &[usize], elapsed: Duration) {
        for &i in pots {
            spending.add(i, |s| s.time += elapsed);
        }
    }

    /// Why the agent may not start another turn: the first of its pots past a limit.
    pub(crate) fn exceeded(&self, spending: &Spending, pots: &[usize]) -> Option<String> {
        pots.iter().find_map(|&i| {
            let pot = &self.pots[i];
            let s = spending.of(i);
            let l = &pot.limit;
            let what = if let Some(max) = l.max_cost.filter(|m| s.cost >= *m) {
                format!("spent ${:.4} of ${max} (max_cost)", s.cost)
            } else if let Some(max) = l.max_tokens.filter(|m| s.tokens >= *m) {
                format!("used {} tokens of {max} (max_tokens)", s.tokens)
            } else if let Some(max) = l.max_time.filter(|m| s.time >= *m) {
                format!(
                    "worked {:.1}s of {}s (max_time)",
                    s.time.as_secs_f64(),
                    max.as_secs_f64()
                )
            } else {
                return None;
            };
            Some(format!(
                "Stopped: {} is exhausted: {what}. Raise the limit in the agent file to go on.",
                pot.label()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(yaml: &str) -> AgentFile {
        tether_config::load_str(yaml, "a.yaml", std::path::Path::new(".")).unwrap()
    }

    #[test]
    fn named_pots_are_shared_and_the_file_budget_applies_to_all() {
        let f = file(
            "budget: {max_tokens: 1000}\nbudgets:\n  tight: {max_cost: 0.01}\nagents:\n  root: {budgets: [tight]}\n  other: {}\n",
        );
        let b = Budgets::new(&f);
        let s = Spending::default();
        let root = b.pots_of(&f.agents[0]);
        let other = b.pots_of(&f.agents[1]);
        assert_eq!((root.as_slice(), other.as_slice()), (&[0, 1][..], &[0][..]));
        assert_eq!(b.charge_call(&s, &other, "m", 400, Some(0.02)), None);
        // `other` spent from the shared run budget only.
        assert_eq!(b.exceeded(&s, &root), None);
        assert!(b.charge_call(&s, &root, "m", 100, Some(0.01)).is_none());
        let why = b.exceeded(&s, &root).unwrap();
        assert!(
            why.contains("budget `tight` is exhausted: spent $0.0100"),
            "{why}"
        );
        assert_eq!(b.exceeded(&s, &other), None);
        b.charge_call(&s, &other, "m", 500, None);
        let why = b.exceeded(&s, &other).unwrap();
        assert!(
            why.contains("the run's budget is exhausted: used 1000 tokens"),
            "{why}"
        );
    }

    #[test]
    fn an_unpriced_model_is_reported_once_and_time_adds_up() {
        let f =
            file("budgets:\n  b: {max_cost: 1, max_time: 2s}\nagents:\n  root: {budgets: [b]}\n");
        let b = Budgets::new(&f);
        let s = Spending::default();
        let pots = b.pots_of(&f.agents[0]);
        let warning = b.charge_call(&s, &pots, "custom/x", 10, None).unwrap();
        assert!(warning.contains("`custom/x` has no price"), "{warning}");
        assert_eq!(b.charge_call(&s, &pots, "custom/x", 10, None), None);
        b.charge_time(&s, &pots, Duration::from_millis(1500));
        assert_eq!(b.exceeded(&s, &pots), None);
        b.charge_time(&s, &pots, Duration::from_millis(500));
        assert!(b.exceeded(&s, &pots).unwrap().contains("(max_time)"));
    }
}
