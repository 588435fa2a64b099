//! `type: calculator`: docker-agent's `calculate` tool. The expression is parsed by a small
//! recursive-descent parser of our own and evaluated in exact rational arithmetic over big
//! integers, so `0.1 + 0.2` is `0.3` and nothing overflows; no code is ever executed. The sizes
//! a hostile expression could blow up (nesting depth, powers, scientific exponents) are capped
//! before any work is done.

use futures::future::BoxFuture;
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const DESCRIPTION: &str = "Calculate an arithmetic expression using exact rational arithmetic, avoiding floating-point rounding and integer overflow. Supports +, -, *, /, integer remainder %, integer powers ^, parentheses, and scientific notation. No code execution or side effects. Returns an exact result plus a decimal representation, explicitly marked when rounded.";

const EXPRESSION: &str = "Arithmetic expression using decimal numbers (including scientific notation), parentheses, +, -, *, /, %, and ^ for integer powers. Example: (19.99 * 3) * (1 + 8.25 / 100). No variables or function calls. Maximum 8192 bytes.";

/// The toolset's system-prompt text.
pub const CALCULATOR_INSTRUCTION: &str = "## Calculator

Use calculate for numerical calculations instead of doing arithmetic yourself.
Pass a single expression with decimal numbers, parentheses, +, -, *, /, %, or ^.
Powers use integer exponents and associate right-to-left; -2^2 means -(2^2).
% is integer remainder, not a percentage: write 15 / 100 for 15%.
Scientific notation such as 1.5e3 is supported. Variables and functions are not.
The result field is always exact. When approximate is true, decimal is rounded
(to 20 decimal places); use the exact fraction in result for further calculations.";

const MAX_LEN: usize = 8192;
/// Deeper nesting is refused rather than recursed into.
const MAX_DEPTH: usize = 256;
/// The largest `e` exponent a literal may carry (`1e1000`).
const MAX_SCIENTIFIC: u32 = 1000;
/// A power whose result would need more bits than this is refused before it is computed.
const MAX_POWER_BITS: u64 = 1 << 16;
/// Decimal places of a rounded answer (docker-agent's).
const ROUNDED_PLACES: usize = 20;

#[derive(Debug, Deserialize)]
struct Args {
    expression: String,
}

/// docker-agent's answer shape, fields in its order.
#[derive(Debug, Serialize, PartialEq)]
struct Answer {
    result: String,
    decimal: String,
    approximate: bool,
}

/// The `calculate` tool.
#[derive(Debug)]
pub struct CalculatorTool {
    definition: ToolDefinition,
}

impl Default for CalculatorTool {
    fn default() -> Self {
        Self {
            definition: ToolDefinition {
                name: "calculate".to_owned(),
                description: DESCRIPTION.to_owned(),
                parameters: object(json!({"expression": string(EXPRESSION)}), &["expression"]),
                read_only: true,
                category: "calculator",
            },
        }
    }
}

impl Tool for CalculatorTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let result = match parse::<Args>("calculate", args) {
            Ok(a) => match calculate(&a.expression) {
                Ok(answer) => match serde_json::to_string(&answer) {
                    Ok(text) => ToolResult::ok(text),
                    Err(e) => ToolResult::error(format!("Error: {e}")),
                },
                Err(why) => ToolResult::error(format!("Error: {why}")),
            },
            Err(e) => e.into(),
        };
        Box::pin(std::future::ready(result))
    }
}

fn calculate(expression: &str) -> Result<Answer, String> {
    let value = evaluate(expression)?;
    Ok(match terminating_places(&value) {
        Some(places) => {
            let exact = decimal(&value, places);
            Answer {
                result: exact.clone(),
                decimal: exact,
                approximate: false,
            }
        }
        None => Answer {
            result: format!("{}/{}", value.numer(), value.denom()),
            decimal: decimal(&value, ROUNDED_PLACES),
            approximate: true,
        },
    })
}

/// The value of `expression`, or why it has none.
fn evaluate(expression: &str) -> Result<BigRational, String> {
    if expression.len() > MAX_LEN {
        return Err(format!(
            "expression is longer than {MAX_LEN} bytes ({} bytes)",
            expression.len()
        ));
    }
    if expression.trim().is_empty() {
        return Err("expression is required".to_owned());
    }
    let mut p = Parser {
        text: expression.as_bytes(),
        at: 0,
        depth: 0,
    };
    let value = p.sum()?;
    p.skip_spaces();
    match p.peek() {
        None => Ok(value),
        Some(b')') => Err(format!("unmatched `)` at position {}", p.at + 1)),
        Some(_) => Err(p.unexpected()),
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip_spaces(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// The next non-space byte, consumed when it is `want`.
    fn eat(&mut self, want: u8) -> bool {
        self.skip_spaces();
        if self.peek() == Some(want) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn unexpected(&self) -> String {
        let rest = &self.text[self.at..];
        let shown = String::from_utf8_lossy(rest);
        match shown.chars().next() {
            Some(c) if c.is_alphabetic() => format!(
                "unexpected `{c}` at position {}: variables and functions are not supported",
                self.at + 1
            ),
            Some(c) => format!("unexpected `{c}` at position {}", self.at + 1),
            None => "unexpected end of expression".to_owned(),
        }
    }

    /// sum := product (('+' | '-') product)*
    fn sum(&mut self) -> Result<BigRational, String> {
        let mut acc = self.product()?;
        loop {
            if self.eat(b'+') {
                acc += self.product()?;
            } else if self.eat(b'-') {
                acc -= self.product()?;
            } else {
                return Ok(acc);
            }
        }
    }

    /// product := unary (('*' | '/' | '%') unary)*
    fn product(&mut self) -> Result<BigRational, String> {
        let mut acc = self.unary()?;
        loop {
            if self.eat(b'*') {
                acc *= self.unary()?;
            } else if self.eat(b'/') {
                let rhs = self.unary()?;
                if rhs.is_zero() {
                    return Err("division by zero".to_owned());
                }
                acc /= rhs;
            } else if self.eat(b'%') {
                let rhs = self.unary()?;
                acc = remainder(&acc, &rhs)?;
            } else {
                return Ok(acc);
            }
        }
    }

    /// unary := ('-' | '+') unary | power — so `-2^2` is `-(2^2)`.
    fn unary(&mut self) -> Result<BigRational, String> {
        self.nested(|p| {
            if p.eat(b'-') {
                Ok(-p.unary()?)
            } else if p.eat(b'+') {
                p.unary()
            } else {
                p.power()
            }
        })
    }

    /// power := primary ('^' unary)? — right-associative, the exponent may be negative.
    fn power(&mut self) -> Result<BigRational, String> {
        let base = self.primary()?;
        if self.eat(b'^') {
            let exponent = self.unary()?;
            return power(&base, &exponent);
        }
        Ok(base)
    }

    /// primary := number | '(' sum ')'
    fn primary(&mut self) -> Result<BigRational, String> {
        self.skip_spaces();
        match self.peek() {
            Some(b'(') => {
                let open = self.at;
                self.at += 1;
                let value = self.nested(Self::sum)?;
                if !self.eat(b')') {
                    return Err(format!("unmatched `(` at position {}", open + 1));
                }
                Ok(value)
            }
            Some(b'0'..=b'9' | b'.') => self.number(),
            _ => Err(self.unexpected()),
        }
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, String>) -> Result<T, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "expression is nested deeper than {MAX_DEPTH} levels"
            ));
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// digits [ '.' digits ] [ ('e' | 'E') [sign] digits ], at least one digit before the
    /// exponent.
    fn number(&mut self) -> Result<BigRational, String> {
        let start = self.at;
        let mut digits = String::new();
        let mut places: u32 = 0;
        let mut seen_point = false;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' => {
                    digits.push(char::from(c));
                    if seen_point {
                        places += 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                _ => break,
            }
            self.at += 1;
        }
        if digits.is_empty() {
            return Err(format!("invalid number at position {}", start + 1));
        }
        let mut exponent: i64 = 0;
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            let negative = match self.peek() {
                Some(b'-') => {
                    self.at += 1;
                    true
                }
                Some(b'+') => {
                    self.at += 1;
                    false
                }
                _ => false,
            };
            let from = self.at;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.at += 1;
            }
            let text = std::str::from_utf8(&self.text[from..self.at]).unwrap_or_default();
            let e: u32 = text
                .parse()
                .ok()
                .filter(|e| *e <= MAX_SCIENTIFIC)
                .ok_or_else(|| {
                    format!(
                        "invalid exponent in the number at position {} (at most e{MAX_SCIENTIFIC})",
                        start + 1
                    )
                })?;
            exponent = if negative {
                -i64::from(e)
            } else {
                i64::from(e)
            };
        }
        let mantissa: BigInt = digits
            .parse()
            .map_err(|_| format!("invalid number at position {}", start + 1))?;
        let scale = exponent - i64::from(places);
        let ten = BigInt::from(10u8);
        let factor = num_traits::pow(ten, usize::try_from(scale.unsigned_abs()).unwrap_or(0));
        Ok(if scale >= 0 {
            BigRational::from_integer(mantissa * factor)
        } else {
            BigRational::new(mantissa, factor)
        })
    }
}

/// `a % b` on integers: the sign follows `a` (truncated division, as Go's `big.Int.Rem`).
fn remainder(a: &BigRational, b: &BigRational) -> Result<BigRational, String> {
    if !a.is_integer() || !b.is_integer() {
        return Err("% needs integer operands (it is the remainder, not a percentage)".to_owned());
    }
    if b.is_zero() {
        return Err("division by zero".to_owned());
    }
    let (a, b) = (a.to_integer(), b.to_integer());
    let r = a.abs().mod_floor(&b.abs());
    Ok(BigRational::from_integer(if a.is_negative() {
        -r
    } else {
        r
    }))
}

fn power(base: &BigRational, exponent: &BigRational) -> Result<BigRational, String> {
    if !exponent.is_integer() {
        return Err("^ needs an integer exponent".to_owned());
    }
    let e = exponent.to_integer();
    if e.is_zero() {
        return Ok(BigRational::one());
    }
    if base.is_zero() {
        return if e.is_negative() {
            Err("division by zero (0 to a negative power)".to_owned())
        } else {
            Ok(BigRational::zero())
        };
    }
    let magnitude = e.abs().to_u64().unwrap_or(u64::MAX);
    // |±1|^n never grows; anything else grows by its bit size each time.
    let unit = base.numer().abs().is_one() && base.denom().is_one();
    let bits = base.numer().bits().max(base.denom().bits());
    if !unit && (bits.saturating_sub(1).max(1)).saturating_mul(magnitude) > MAX_POWER_BITS {
        return Err(format!(
            "the power is too large to compute (its result would exceed {MAX_POWER_BITS} bits)"
        ));
    }
    let n = if unit {
        usize::from(e.is_odd())
    } else {
        usize::try_from(magnitude).unwrap_or(0)
    };
    let raised = BigRational::new(
        num_traits::pow(base.numer().clone(), n),
        num_traits::pow(base.denom().clone(), n),
    );
    Ok(if e.is_negative() {
        raised.recip()
    } else {
        raised
    })
}

/// The decimal places that write `v` exactly, or `None` when its decimal does not terminate
/// (the reduced denominator has a prime factor other than 2 and 5).
fn terminating_places(v: &BigRational) -> Option<usize> {
    let mut d = v.denom().clone();
    let (two, five) = (BigInt::from(2u8), BigInt::from(5u8));
    let (mut twos, mut fives) = (0usize, 0usize);
    while d.is_even() {
        d /= &two;
        twos += 1;
    }
    while (&d % &five).is_zero() {
        d /= &five;
        fives += 1;
    }
    d.is_one().then_some(twos.max(fives))
}

/// `v` with `places` decimal places, the last rounded half away from zero.
fn decimal(v: &BigRational, places: usize) -> String {
    let scale = num_traits::pow(BigInt::from(10u8), places);
    let scaled = v.abs() * BigRational::from_integer(scale.clone());
    let rounded = scaled.round().to_integer();
    let (whole, frac) = rounded.div_rem(&scale);
    let sign = if v.is_negative() && !rounded.is_zero() {
        "-"
    } else {
        ""
    };
    if places == 0 {
        return format!("{sign}{whole}");
    }
    let frac = frac.to_string();
    format!("{sign}{whole}.{}{frac}", "0".repeat(places - frac.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(expression: &str) -> (String, String, bool) {
        let a = calculate(expression).unwrap();
        (a.result, a.decimal, a.approximate)
    }

    fn exact(expression: &str) -> String {
        let (result, decimal, approximate) = answer(expression);
        assert!(!approximate, "{expression}");
        assert_eq!(result, decimal, "{expression}");
        result
    }

    #[test]
    fn operators_follow_the_usual_precedence() {
        let cases = [
            ("2 + 3 * 4", "14"),
            ("(2 + 3) * 4", "20"),
            ("10 - 4 - 3", "3"),
            ("2 ^ 3 ^ 2", "512"),
            ("-2^2", "-4"),
            ("(-2)^2", "4"),
            ("2^-2", "0.25"),
            ("7 % 3 * 2", "2"),
            ("-7 % 3", "-1"),
            ("1 - -1", "2"),
            ("+5", "5"),
            ("((10 + 5) * 2 - 3) / 9", "3"),
            ("(19.99 * 3) * (1 + 8.25 / 100)", "64.917525"),
        ];
        for (expression, want) in cases {
            assert_eq!(exact(expression), want, "{expression}");
        }
    }

    #[test]
    fn decimals_are_exact() {
        assert_eq!(exact("0.1 + 0.2"), "0.3");
        assert_eq!(exact("1.5e3"), "1500");
        assert_eq!(exact("2.5E-2"), "0.025");
        assert_eq!(exact(".5 + 5."), "5.5");
        assert_eq!(exact("2^64"), "18446744073709551616");
        assert_eq!(exact("1 / 8"), "0.125");
        assert_eq!(exact("-1 / 8"), "-0.125");
    }

    #[test]
    fn a_repeating_decimal_is_a_fraction_and_a_rounded_decimal() {
        assert_eq!(
            answer("1 / 3"),
            ("1/3".to_owned(), "0.33333333333333333333".to_owned(), true)
        );
        assert_eq!(
            answer("-2 / 3"),
            (
                "-2/3".to_owned(),
                "-0.66666666666666666667".to_owned(),
                true
            )
        );
    }

    #[test]
    fn the_answer_is_docker_agents_json() {
        let a = calculate("1/3").unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"result":"1/3","decimal":"0.33333333333333333333","approximate":true}"#
        );
    }

    #[test]
    fn bad_expressions_are_errors_that_say_why() {
        let cases = [
            ("1 / 0", "division by zero"),
            ("5 % 0", "division by zero"),
            ("0 ^ -1", "division by zero (0 to a negative power)"),
            (
                "1.5 % 1",
                "% needs integer operands (it is the remainder, not a percentage)",
            ),
            ("2 ^ 0.5", "^ needs an integer exponent"),
            ("", "expression is required"),
            ("1 +", "unexpected end of expression"),
            ("(1 + 2", "unmatched `(` at position 1"),
            ("1 + 2)", "unmatched `)` at position 6"),
            (
                "sqrt(4)",
                "unexpected `s` at position 1: variables and functions are not supported",
            ),
            ("2 $ 3", "unexpected `$` at position 3"),
            (
                "1e99999",
                "invalid exponent in the number at position 1 (at most e1000)",
            ),
            (
                "10 ^ 100000",
                "the power is too large to compute (its result would exceed 65536 bits)",
            ),
        ];
        for (expression, want) in cases {
            assert_eq!(evaluate(expression).unwrap_err(), want, "{expression}");
        }
    }

    #[test]
    fn hostile_sizes_are_refused_before_any_work() {
        let deep = format!("{}1{}", "(".repeat(3000), ")".repeat(3000));
        assert_eq!(
            evaluate(&deep).unwrap_err(),
            "expression is nested deeper than 256 levels"
        );
        let long = "1+".repeat(5000) + "1";
        assert!(
            evaluate(&long)
                .unwrap_err()
                .starts_with("expression is longer than 8192")
        );
        assert_eq!(exact("1 ^ 99999999999999999999"), "1");
        assert_eq!(exact("(-1) ^ 99999999999999999999"), "-1");
        assert_eq!(exact("(-1) ^ 100000000000000000000"), "1");
    }
}
