//! `add_date`: `Today's date: YYYY-MM-DD` in the local time zone, computed at each call.

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use super::context;
use crate::registry::{Builtin, BuiltinCall};

#[derive(Debug, Clone, Copy, Default)]
pub struct AddDate;

/// The text for a given date.
pub(crate) fn text(date: jiff::civil::Date) -> String {
    format!("Today's date: {}", date.strftime("%Y-%m-%d"))
}

impl Builtin for AddDate {
    fn name(&self) -> &'static str {
        "add_date"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move { Ok(context(&call, text(jiff::Zoned::now().date()))) })
    }
}
