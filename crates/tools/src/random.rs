//! `type: random`: docker-agent's `random_int`, a uniformly random integer between two
//! inclusive bounds the model gives. Drawn from the operating system's generator (`ring`'s
//! `SystemRandom`) by rejection, so every value of the range is equally likely, whatever its
//! width (up to the whole `i64` range).

use futures::future::BoxFuture;
use ring::rand::{SecureRandom, SystemRandom};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::object;
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const DESCRIPTION: &str = "Generate a uniformly random integer between min and max (both inclusive). Supply both bounds on every call. Negative values are allowed; min must be less than or equal to max.";

#[derive(Debug, Deserialize)]
struct Args {
    min: Option<i64>,
    max: Option<i64>,
}

/// The `random_int` tool.
#[derive(Debug)]
pub struct RandomTool {
    definition: ToolDefinition,
}

impl Default for RandomTool {
    fn default() -> Self {
        Self {
            definition: ToolDefinition {
                name: "random_int".to_owned(),
                description: DESCRIPTION.to_owned(),
                parameters: object(
                    json!({
                        "max": {"description": "Maximum integer value (inclusive); must be greater than or equal to min", "type": "integer"},
                        "min": {"description": "Minimum integer value (inclusive)", "type": "integer"},
                    }),
                    &["min", "max"],
                ),
                read_only: true,
                category: "random",
            },
        }
    }
}

impl Tool for RandomTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let result = match parse::<Args>("random_int", args) {
            Ok(Args {
                min: Some(min),
                max: Some(max),
            }) => match between(min, max, &SystemRandom::new()) {
                Ok(n) => ToolResult::ok(n.to_string()),
                Err(why) => ToolResult::error(why),
            },
            Ok(_) => ToolResult::error("min and max are required"),
            Err(e) => e.into(),
        };
        Box::pin(std::future::ready(result))
    }
}

/// A uniform integer in `min..=max`.
fn between(min: i64, max: i64, rng: &dyn SecureRandom) -> Result<i64, String> {
    if min > max {
        return Err("min must be less than or equal to max".to_owned());
    }
    // The width of the range less one fits a u64 even for the whole i64 range.
    let span = max.abs_diff(min);
    let offset = if span == u64::MAX {
        draw(rng)?
    } else {
        let width = span + 1;
        // Values at or above the last whole multiple of `width` would favour small offsets.
        let limit = u64::MAX - (u64::MAX % width + 1) % width;
        loop {
            let v = draw(rng)?;
            if v <= limit {
                break v % width;
            }
        }
    };
    Ok(min.wrapping_add_unsigned(offset))
}

fn draw(rng: &dyn SecureRandom) -> Result<u64, String> {
    let mut bytes = [0u8; 8];
    rng.fill(&mut bytes)
        .map_err(|_| "failed to generate random integer: the system generator failed".to_owned())?;
    Ok(u64::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_within_the_inclusive_bounds() {
        let rng = SystemRandom::new();
        assert_eq!(between(4, 4, &rng), Ok(4));
        let mut seen = [false; 3];
        for _ in 0..500 {
            let v = between(-1, 1, &rng).unwrap();
            assert!((-1..=1).contains(&v), "{v}");
            seen[usize::try_from(v + 1).unwrap()] = true;
        }
        assert_eq!(seen, [true; 3], "every value of a small range comes up");
        for _ in 0..100 {
            let v = between(i64::MAX - 1, i64::MAX, &rng).unwrap();
            assert!(v >= i64::MAX - 1);
        }
        between(i64::MIN, i64::MAX, &rng).unwrap();
    }

    #[test]
    fn reversed_bounds_are_an_error() {
        assert_eq!(
            between(5, 1, &SystemRandom::new()),
            Err("min must be less than or equal to max".to_owned())
        );
    }
}
