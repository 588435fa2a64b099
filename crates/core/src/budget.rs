//! Budgets (docs/design.md, Budgets): the file's `budget` and the named `budgets` are pots of
//! cost, tokens and working time that live as long as the runtime. Every model call charges
//! the pots of the agent that made it (so sub-agents and background tasks spend from the same
//! pots as their caller), every turn charges its duration, and the run loop checks them before
//! each turn.

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
    spent: Mutex<Spent>,
}

impl Pot {
    fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("budget `{n}`"),
            None => "the run's budget".to_owned(),
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Budgets {
    pots: Vec<Pot>,
    /// Models already reported as unpriced.
    unpriced: Mutex<Vec<String>>,
}

impl Budgets {
    pub(crate) fn new(file: &AgentFile) -> Self {
        let pot = |name: Option<String>, limit: &Budget| Pot {
            name,
            limit: limit.clone(),
            spent: Mutex::new(Spent::default()),
        };
        let mut pots: Vec<Pot> = file.budget.iter().map(|b| pot(None, b)).collect();
        pots.extend(file.budgets.iter().map(|(n, b)| pot(Some(n.clone()), b)));
        Self {
            pots,
            unpriced: Mutex::default(),
        }
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
        pots: &[usize],
        model: &str,
        tokens: u64,
        cost: Option<f64>,
    ) -> Option<String> {
        let mut unpriced = None;
        for &i in pots {
            let pot = &self.pots[i];
            if let Ok(mut s) = pot.spent.lock() {
                s.tokens += tokens;
                s.cost += cost.unwrap_or(0.0);
            }
            if cost.is_none() && pot.limit.max_cost.is_some() && unpriced.is_none() {
                unpriced = Some(pot.label());
            }
        }
        let label = unpriced?;
        let mut seen = self.unpriced.lock().ok()?;
        if seen.iter().any(|m| m == model) {
            return None;
        }
        seen.push(model.to_owned());
        Some(format!(
            "{label} has a max_cost, but `{model}` has no price: its calls count nothing toward it (set `cost` on the model)"
        ))
    }

    pub(crate) fn charge_time(&self, pots: &[usize], elapsed: Duration) {
        for &i in pots {
            if let Ok(mut s) = self.pots[i].spent.lock() {
                s.time += elapsed;
            }
        }
    }

    /// Why the agent may not start another turn: the first of its pots past a limit.
    pub(crate) fn exceeded(&self, pots: &[usize]) -> Option<String> {
        pots.iter().find_map(|&i| {
            let pot = &self.pots[i];
            let s = *pot.spent.lock().ok()?;
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
        let root = b.pots_of(&f.agents[0]);
        let other = b.pots_of(&f.agents[1]);
        assert_eq!((root.as_slice(), other.as_slice()), (&[0, 1][..], &[0][..]));
        assert_eq!(b.charge_call(&other, "m", 400, Some(0.02)), None);
        // `other` spent from the shared run budget only.
        assert_eq!(b.exceeded(&root), None);
        assert!(b.charge_call(&root, "m", 100, Some(0.01)).is_none());
        let why = b.exceeded(&root).unwrap();
        assert!(
            why.contains("budget `tight` is exhausted: spent $0.0100"),
            "{why}"
        );
        assert_eq!(b.exceeded(&other), None);
        b.charge_call(&other, "m", 500, None);
        let why = b.exceeded(&other).unwrap();
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
        let pots = b.pots_of(&f.agents[0]);
        let warning = b.charge_call(&pots, "custom/x", 10, None).unwrap();
        assert!(warning.contains("`custom/x` has no price"), "{warning}");
        assert_eq!(b.charge_call(&pots, "custom/x", 10, None), None);
        b.charge_time(&pots, Duration::from_millis(1500));
        assert_eq!(b.exceeded(&pots), None);
        b.charge_time(&pots, Duration::from_millis(500));
        assert!(b.exceeded(&pots).unwrap().contains("(max_time)"));
    }
}
