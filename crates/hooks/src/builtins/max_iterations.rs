//! `max_iterations`: a hard stop after N model calls per run (before_llm_call). Stateless:
//! the runtime supplies the 1-based `iteration`.

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use crate::registry::{Builtin, BuiltinCall};

#[derive(Debug, Clone, Copy, Default)]
pub struct MaxIterations;

fn limit(args: &[String]) -> Option<i64> {
    args.first()?.trim().parse::<i64>().ok().filter(|n| *n > 0)
}

/// The block reason when the limit is passed.
pub(crate) fn reason(limit: i64) -> String {
    format!("Agent terminated: max_iterations builtin reached its limit of {limit} model call(s).")
}

impl Builtin for MaxIterations {
    fn name(&self) -> &'static str {
        "max_iterations"
    }

    fn check_args(&self, args: &[String]) -> Result<(), String> {
        limit(args).map(|_| ()).ok_or_else(|| {
            "needs one argument, a positive integer (e.g. `args: [\"50\"]`)".to_owned()
        })
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let (Some(n), i) = (limit(call.args), call.input.iteration) else {
                return Ok(None);
            };
            if i <= 0 || i <= n {
                return Ok(None);
            }
            Ok(Some(HookOutput::block(reason(n))))
        })
    }
}
