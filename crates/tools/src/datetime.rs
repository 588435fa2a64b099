//! `type: datetime`: docker-agent's `get_datetime`. The model asks for a Go time layout (the
//! reference time `Mon Jan 2 15:04:05 MST 2006`) because that is what docker-agent's tool takes
//! and its prompt teaches; [`go_format`] renders one from a `jiff` time. A time zone is an IANA
//! name, `UTC`, or `Local` (the default); names are checked for shape before the time-zone
//! database sees them, so no name can point outside it.

use futures::future::BoxFuture;
use jiff::Zoned;
use jiff::tz::TimeZone;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const DESCRIPTION: &str = "Obtain the current date, time, or datetime in the chosen Go time layout, optionally in a specific timezone. Returns only the formatted string. Read-only, no side effects.";

const FORMAT: &str = "Go time layout using the reference Mon Jan 2 15:04:05 MST 2006. Examples: 2006-01-02 for date, 15:04:05 for time, 2006-01-02T15:04:05Z07:00 for RFC3339 datetime, Monday, January 2, 2006 for a long date. Use Go layouts, not strftime or YYYY-MM-DD tokens.";

const TIMEZONE: &str = "Optional IANA timezone, e.g. Europe/Paris, America/New_York, or UTC. Omit or use Local for the host's local timezone.";

/// The toolset's system-prompt text.
pub const DATETIME_INSTRUCTION: &str = "## Date and Time

Call get_datetime to obtain the current date, time, or datetime rather than guessing.
Choose format using Go's reference time: Mon Jan 2 15:04:05 MST 2006.
Examples: \"2006-01-02\" (date), \"15:04:05\" (time), \"2006-01-02T15:04:05Z07:00\" (datetime).
Do not use strftime directives or YYYY-MM-DD tokens. The result is the formatted string only.
Timezone defaults to the host's local timezone; set timezone to an IANA name or UTC when needed.";

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(default)]
    format: String,
    #[serde(default)]
    timezone: String,
}

/// The `get_datetime` tool.
#[derive(Debug)]
pub struct DatetimeTool {
    definition: ToolDefinition,
}

impl Default for DatetimeTool {
    fn default() -> Self {
        Self {
            definition: ToolDefinition {
                name: "get_datetime".to_owned(),
                description: DESCRIPTION.to_owned(),
                parameters: object(
                    json!({"format": string(FORMAT), "timezone": string(TIMEZONE)}),
                    &["format"],
                ),
                read_only: true,
                category: "datetime",
            },
        }
    }
}

impl Tool for DatetimeTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let result = match parse::<Args>("get_datetime", args) {
            Ok(a) => match now_in(&a.format, &a.timezone) {
                Ok(text) => ToolResult::ok(text),
                Err(why) => ToolResult::error(why),
            },
            Err(e) => e.into(),
        };
        Box::pin(std::future::ready(result))
    }
}

/// The longest layout taken: real ones are tens of bytes, and the answer grows with it.
const MAX_FORMAT: usize = 256;

fn now_in(format: &str, timezone: &str) -> Result<String, String> {
    if format.trim().is_empty() {
        return Err(
            "Error: format is required; use a Go time layout such as 2006-01-02 or 15:04:05."
                .to_owned(),
        );
    }
    if format.len() > MAX_FORMAT {
        return Err(format!(
            "Error: format is longer than {MAX_FORMAT} bytes ({} bytes)",
            format.len()
        ));
    }
    let tz = zone(timezone)
        .map_err(|why| format!("Error: invalid timezone {}: {why}", quoted(timezone)))?;
    Ok(go_format(&Zoned::now().with_time_zone(tz), format))
}

/// Go's `%q` of a plain string.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn zone(name: &str) -> Result<TimeZone, String> {
    match name {
        "" | "Local" => Ok(TimeZone::try_system().unwrap_or(TimeZone::UTC)),
        "UTC" => Ok(TimeZone::UTC),
        _ => {
            let shaped = name.len() <= 64
                && !name.starts_with('/')
                && !name.split('/').any(|part| part.is_empty() || part == "..")
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"/_+-".contains(&b));
            if !shaped {
                return Err(format!("unknown time zone {name}"));
            }
            TimeZone::get(name).map_err(|_| format!("unknown time zone {name}"))
        }
    }
}

/// The layout's elements, as Go's `time` package reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Chunk {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    TzName,
    /// `Z` first when the offset is zero; with colons; with seconds; hours only.
    Offset {
        z: bool,
        colons: bool,
        seconds: bool,
        hours_only: bool,
    },
    /// `.000` (zeros kept) or `.999` (trailing zeros dropped), with its separator.
    Fraction {
        digits: usize,
        trim: bool,
        sep: char,
    },
}

/// The first layout element in `layout`: the text before it, the element and its length.
fn next_chunk(layout: &str) -> Option<(usize, Chunk, usize)> {
    let b = layout.as_bytes();
    let starts = |i: usize, s: &str| layout[i..].starts_with(s);
    for i in 0..b.len() {
        let found = match b[i] {
            b'J' if starts(i, "January") => Some((Chunk::LongMonth, 7)),
            b'J' if starts(i, "Jan") => Some((Chunk::Month, 3)),
            b'M' if starts(i, "Monday") => Some((Chunk::LongWeekDay, 6)),
            b'M' if starts(i, "Mon") => Some((Chunk::WeekDay, 3)),
            b'M' if starts(i, "MST") => Some((Chunk::TzName, 3)),
            b'0' if starts(i, "002") => Some((Chunk::ZeroYearDay, 3)),
            b'0' => match b.get(i + 1) {
                Some(b'1') => Some((Chunk::ZeroMonth, 2)),
                Some(b'2') => Some((Chunk::ZeroDay, 2)),
                Some(b'3') => Some((Chunk::ZeroHour12, 2)),
                Some(b'4') => Some((Chunk::ZeroMinute, 2)),
                Some(b'5') => Some((Chunk::ZeroSecond, 2)),
                Some(b'6') => Some((Chunk::Year, 2)),
                _ => None,
            },
            b'1' if starts(i, "15") => Some((Chunk::Hour, 2)),
            b'1' => Some((Chunk::NumMonth, 1)),
            b'2' if starts(i, "2006") => Some((Chunk::LongYear, 4)),
            b'2' => Some((Chunk::Day, 1)),
            b'_' if starts(i, "_2006") => None,
            b'_' if starts(i, "__2") => Some((Chunk::UnderYearDay, 3)),
            b'_' if starts(i, "_2") => Some((Chunk::UnderDay, 2)),
            b'3' => Some((Chunk::Hour12, 1)),
            b'4' => Some((Chunk::Minute, 1)),
            b'5' => Some((Chunk::Second, 1)),
            b'P' if starts(i, "PM") => Some((Chunk::PM, 2)),
            b'p' if starts(i, "pm") => Some((Chunk::Pm, 2)),
            b'-' | b'Z' => offset_chunk(&layout[i..]),
            b'.' | b',' => fraction_chunk(&layout[i..]),
            _ => None,
        };
        if let Some((chunk, len)) = found {
            return Some((i, chunk, len));
        }
    }
    None
}

fn offset_chunk(rest: &str) -> Option<(Chunk, usize)> {
    let z = rest.starts_with('Z');
    let body = &rest[1..];
    let forms = [
        ("070000", false, true, false),
        ("07:00:00", true, true, false),
        ("0700", false, false, false),
        ("07:00", true, false, false),
        ("07", false, false, true),
    ];
    forms
        .iter()
        .find_map(|(form, colons, seconds, hours_only)| {
            body.starts_with(form).then_some((
                Chunk::Offset {
                    z,
                    colons: *colons,
                    seconds: *seconds,
                    hours_only: *hours_only,
                },
                form.len() + 1,
            ))
        })
}

fn fraction_chunk(rest: &str) -> Option<(Chunk, usize)> {
    let b = rest.as_bytes();
    let digit = *b.get(1)?;
    if digit != b'0' && digit != b'9' {
        return None;
    }
    let run = b[1..].iter().take_while(|c| **c == digit).count();
    // Go reads a run of 0s or 9s as a fraction only when no other digit follows it.
    if b.get(1 + run).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some((
        Chunk::Fraction {
            digits: run.min(9),
            trim: digit == b'9',
            sep: char::from(b[0]),
        },
        1 + run,
    ))
}

/// `t` written with Go's `layout`.
fn go_format(t: &Zoned, layout: &str) -> String {
    let mut out = String::with_capacity(layout.len() + 8);
    let mut rest = layout;
    let month = usize::try_from(t.month() - 1).unwrap_or(0);
    let weekday = usize::from(t.weekday().to_monday_zero_offset().unsigned_abs());
    let hour12 = match t.hour() % 12 {
        0 => 12,
        h => h,
    };
    while let Some((at, chunk, len)) = next_chunk(rest) {
        out.push_str(&rest[..at]);
        rest = &rest[at + len..];
        match chunk {
            Chunk::LongMonth => out.push_str(MONTHS[month]),
            Chunk::Month => out.push_str(&MONTHS[month][..3]),
            Chunk::NumMonth => out.push_str(&t.month().to_string()),
            Chunk::ZeroMonth => out.push_str(&format!("{:02}", t.month())),
            Chunk::LongWeekDay => out.push_str(DAYS[weekday]),
            Chunk::WeekDay => out.push_str(&DAYS[weekday][..3]),
            Chunk::Day => out.push_str(&t.day().to_string()),
            Chunk::UnderDay => out.push_str(&format!("{:>2}", t.day())),
            Chunk::ZeroDay => out.push_str(&format!("{:02}", t.day())),
            Chunk::UnderYearDay => out.push_str(&format!("{:>3}", t.day_of_year())),
            Chunk::ZeroYearDay => out.push_str(&format!("{:03}", t.day_of_year())),
            Chunk::Hour => out.push_str(&format!("{:02}", t.hour())),
            Chunk::Hour12 => out.push_str(&hour12.to_string()),
            Chunk::ZeroHour12 => out.push_str(&format!("{hour12:02}")),
            Chunk::Minute => out.push_str(&t.minute().to_string()),
            Chunk::ZeroMinute => out.push_str(&format!("{:02}", t.minute())),
            Chunk::Second => out.push_str(&t.second().to_string()),
            Chunk::ZeroSecond => out.push_str(&format!("{:02}", t.second())),
            Chunk::LongYear => out.push_str(&format!("{:04}", t.year())),
            Chunk::Year => out.push_str(&format!("{:02}", t.year().rem_euclid(100))),
            Chunk::PM => out.push_str(if t.hour() >= 12 { "PM" } else { "AM" }),
            Chunk::Pm => out.push_str(if t.hour() >= 12 { "pm" } else { "am" }),
            Chunk::TzName => {
                let info = t.time_zone().to_offset_info(t.timestamp());
                let name = info.abbreviation();
                if name.is_empty() {
                    out.push_str(&offset_text(t.offset().seconds(), false, false, false));
                } else {
                    out.push_str(name);
                }
            }
            Chunk::Offset {
                z,
                colons,
                seconds,
                hours_only,
            } => {
                let secs = t.offset().seconds();
                if z && secs == 0 {
                    out.push('Z');
                } else {
                    out.push_str(&offset_text(secs, colons, seconds, hours_only));
                }
            }
            Chunk::Fraction { digits, trim, sep } => {
                let nanos = format!("{:09}", t.subsec_nanosecond());
                let mut frac = &nanos[..digits];
                if trim {
                    frac = frac.trim_end_matches('0');
                }
                if !frac.is_empty() {
                    out.push(sep);
                    out.push_str(frac);
                }
            }
        }
    }
    out.push_str(rest);
    out
}

fn offset_text(secs: i32, colons: bool, with_seconds: bool, hours_only: bool) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let abs = secs.unsigned_abs();
    let (h, m, s) = (abs / 3600, abs / 60 % 60, abs % 60);
    let sep = if colons { ":" } else { "" };
    match (hours_only, with_seconds) {
        (true, _) => format!("{sign}{h:02}"),
        (false, true) => format!("{sign}{h:02}{sep}{m:02}{sep}{s:02}"),
        (false, false) => format!("{sign}{h:02}{sep}{m:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(tz: &str) -> Zoned {
        // Tuesday 2026-03-03 07:05:09.120 in UTC.
        let ts: jiff::Timestamp = "2026-03-03T07:05:09.12Z".parse().unwrap();
        ts.to_zoned(TimeZone::get(tz).unwrap())
    }

    #[test]
    fn go_layouts_render_like_go() {
        let utc = at("UTC");
        let cases = [
            ("2006-01-02", "2026-03-03"),
            ("15:04:05", "07:05:09"),
            ("2006-01-02T15:04:05Z07:00", "2026-03-03T07:05:09Z"),
            ("Monday, January 2, 2006", "Tuesday, March 3, 2026"),
            ("Mon Jan _2 3:4:5 PM MST 06", "Tue Mar  3 7:5:9 AM UTC 26"),
            ("02/01/06 03pm", "03/03/26 07am"),
            ("15:04:05.000", "07:05:09.120"),
            ("15:04:05.999", "07:05:09.12"),
            ("15:04:05,000000", "07:05:09,120000"),
            ("day 002 of 2006", "day 062 of 2026"),
            ("-0700 -07:00 -07", "+0000 +00:00 +00"),
            ("no tokens here", "no tokens here"),
            ("2006 1234", "2026 3375"),
        ];
        for (layout, want) in cases {
            assert_eq!(go_format(&utc, layout), want, "{layout}");
        }
    }

    #[test]
    fn offsets_and_zone_names_follow_the_zone() {
        let ny = at("America/New_York");
        assert_eq!(
            go_format(&ny, "2006-01-02T15:04:05Z07:00 MST"),
            "2026-03-03T02:05:09-05:00 EST"
        );
        let kolkata = at("Asia/Kolkata");
        assert_eq!(go_format(&kolkata, "Z0700 Z07:00:00"), "+0530 +05:30:00");
    }

    #[test]
    fn bad_arguments_are_errors_that_say_why() {
        assert_eq!(
            now_in(" ", ""),
            Err(
                "Error: format is required; use a Go time layout such as 2006-01-02 or 15:04:05."
                    .to_owned()
            )
        );
        for tz in ["Not/A_Zone", "../../etc/passwd", "/etc/localtime", "a//b"] {
            assert_eq!(
                now_in("2006", tz),
                Err(format!(
                    "Error: invalid timezone {}: unknown time zone {tz}",
                    quoted(tz)
                )),
                "{tz}"
            );
        }
        assert!(now_in("2006", "Europe/Paris").is_ok());
        assert!(now_in("2006", "Local").is_ok());
    }
}
