//! TOON (Token-Oriented Object Notation) re-encoding of tool output, for the `toon` toolset
//! option.
//!
//! TOON is a compact, indentation-based notation for JSON data meant to save model tokens:
//! `key: value` lines, inline primitive arrays (`tags[3]: a,b,c`), tables for arrays of uniform
//! objects (`items[2]{id,name}:` then one comma-separated row per object) and `- ` list items
//! for everything else. The output here matches, byte for byte, what `gotoon` v0.1.1 (the Go
//! library docker-agent uses) produces for the values Go's `encoding/json` decodes, quirks
//! included: a model prompted for docker-agent then sees the same text here.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Re-encodes `output` as TOON when it is a JSON object; `None` leaves it unchanged.
///
/// Like docker-agent, which decodes into a Go `map[string]any`: anything but an object (or
/// `null`) is left alone, and `null` becomes the empty string.
pub fn toonify(output: &str) -> Option<String> {
    let text = replace_lone_surrogates(output);
    let mut numbers = NumberLiterals { rest: &text };
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    let value = Decode(&mut numbers).deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    match value {
        Json::Object(fields) => {
            let mut lines = Lines::default();
            encode_object(&fields, 0, &mut lines);
            Some(lines.text)
        }
        // Go decodes `null` into a nil map, which gotoon encodes as no lines at all.
        Json::Null => Some(String::new()),
        Json::Bool(_) | Json::Number(_) | Json::String(_) | Json::Array(_) => None,
    }
}

/// A JSON value as Go's `encoding/json` sees it: every number is a float64, and object keys
/// are sorted bytewise, which is both `BTreeMap`'s order and gotoon's (`sort.Strings`).
#[derive(Debug)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Self>),
    Object(BTreeMap<String, Self>),
}

impl Json {
    fn is_primitive(&self) -> bool {
        matches!(
            self,
            Self::Null | Self::Bool(_) | Self::Number(_) | Self::String(_)
        )
    }
}

/// Rewrites each `\u` escape (four hex digits) of a UTF-16 surrogate that is not half of a valid pair as
/// `\ufffd`: Go decodes it to U+FFFD where serde_json rejects the text (JavaScript tools
/// that cut a string inside an emoji produce these).
fn replace_lone_surrogates(text: &str) -> Cow<'_, str> {
    const HIGH: std::ops::Range<u16> = 0xD800..0xDC00;
    const LOW: std::ops::Range<u16> = 0xDC00..0xE000;
    let bytes = text.as_bytes();
    let unit_at = |at: usize| -> Option<u16> {
        let escape = bytes.get(at..at + 6)?.strip_prefix(b"\\u")?;
        u16::from_str_radix(std::str::from_utf8(escape).ok()?, 16).ok()
    };
    let mut fixed: Option<String> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => in_string = !in_string,
            b'\\' if in_string => match unit_at(i) {
                Some(high)
                    if HIGH.contains(&high)
                        && unit_at(i + 6).is_some_and(|low| LOW.contains(&low)) =>
                {
                    i += 12;
                    continue;
                }
                Some(unit) if HIGH.contains(&unit) || LOW.contains(&unit) => {
                    let out = fixed.get_or_insert_with(String::new);
                    out.push_str(text.get(copied..i).unwrap_or_default());
                    out.push_str("\\ufffd");
                    copied = i + 6;
                    i += 6;
                    continue;
                }
                // Any other escape is two bytes as far as finding the string's end goes.
                _ => i += 1,
            },
            _ => {}
        }
        i += 1;
    }
    match fixed {
        Some(mut out) => {
            out.push_str(text.get(copied..).unwrap_or_default());
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    }
}

/// The number literals of a JSON text, in document order.
///
/// serde_json (without its `float_roundtrip` feature) can round a long decimal one ulp away
/// from the nearest float64, which Go never does; re-parsing the literal with Rust's
/// correctly rounded parser gives Go's value.
#[derive(Debug)]
struct NumberLiterals<'a> {
    rest: &'a str,
}

impl<'a> NumberLiterals<'a> {
    /// Only called once serde_json has accepted the text up to this literal, so a plain scan
    /// that skips strings is enough.
    fn next_literal(&mut self) -> Option<&'a str> {
        let bytes = self.rest.as_bytes();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'"' => {
                    i += 1;
                    while let Some(&c) = bytes.get(i) {
                        i += if c == b'\\' { 2 } else { 1 };
                        if c == b'"' {
                            break;
                        }
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let len = bytes
                        .get(i..)?
                        .iter()
                        .take_while(|c| c.is_ascii_digit() || b"-+.eE".contains(c))
                        .count();
                    let literal = self.rest.get(i..i + len)?;
                    self.rest = self.rest.get(i + len..)?;
                    return Some(literal);
                }
                _ => i += 1,
            }
        }
        None
    }
}

/// Builds a [`Json`] from serde_json's events, taking numbers from the literal text.
struct Decode<'n, 'a>(&'n mut NumberLiterals<'a>);

impl Decode<'_, '_> {
    fn number<E: de::Error>(self, parsed: f64) -> Result<Json, E> {
        let value = self
            .0
            .next_literal()
            .and_then(|literal| literal.parse::<f64>().ok())
            .unwrap_or(parsed);
        // Go rejects a literal beyond float64's range, and docker-agent then keeps the output.
        if value.is_finite() {
            Ok(Json::Number(value))
        } else {
            Err(E::custom("number out of range"))
        }
    }
}

impl<'de> DeserializeSeed<'de> for Decode<'_, '_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Decode<'_, '_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Json, E> {
        self.number(value as f64)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Json, E> {
        self.number(value as f64)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json, E> {
        self.number(value)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let numbers = self.0;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Decode(&mut *numbers))? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let numbers = self.0;
        let mut fields = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Decode(&mut *numbers))?;
            // A repeated key keeps its last value, as in Go.
            fields.insert(key, value);
        }
        Ok(Json::Object(fields))
    }
}

/// Output lines, two spaces of indent per level, joined by `\n` with no final newline.
#[derive(Debug, Default)]
struct Lines {
    text: String,
    started: bool,
}

impl Lines {
    fn push(&mut self, depth: usize, line: &str) {
        if self.started {
            self.text.push('\n');
        }
        self.started = true;
        for _ in 0..depth {
            self.text.push_str("  ");
        }
        self.text.push_str(line);
    }
}

type Object = BTreeMap<String, Json>;

fn encode_object(fields: &Object, depth: usize, lines: &mut Lines) {
    for (key, value) in fields {
        encode_field(key, value, depth, lines);
    }
}

fn encode_field(key: &str, value: &Json, depth: usize, lines: &mut Lines) {
    match value {
        Json::Array(items) => encode_array(key, items, depth, lines),
        Json::Object(fields) => {
            lines.push(depth, &format!("{}:", encode_key(key)));
            encode_object(fields, depth + 1, lines);
        }
        primitive => {
            let line = format!("{}: {}", encode_key(key), encode_primitive(primitive));
            lines.push(depth, &line);
        }
    }
}

/// gotoon tries, in order: inline primitives, a table, then a `- ` list. (Its separate path
/// for arrays of primitive arrays prints exactly what the list does.)
fn encode_array(key: &str, items: &[Json], depth: usize, lines: &mut Lines) {
    if items.iter().all(Json::is_primitive) {
        lines.push(depth, &inline_array(key, items));
    } else if let Some(fields) = table_fields(items) {
        lines.push(depth, &header(key, items.len(), &fields));
        encode_rows(items, depth + 1, lines);
    } else {
        lines.push(depth, &header(key, items.len(), &[]));
        encode_list_items(items, depth + 1, lines);
    }
}

fn encode_list_items(items: &[Json], depth: usize, lines: &mut Lines) {
    for item in items {
        match item {
            Json::Array(inner) if inner.iter().all(Json::is_primitive) => {
                lines.push(depth, &format!("- {}", inline_array("", inner)));
            }
            // gotoon has no form for an array holding non-primitives inside a list: it
            // drops the item (the header still counts it).
            Json::Array(_) => {}
            Json::Object(fields) => encode_list_object(fields, depth, lines),
            primitive => lines.push(depth, &format!("- {}", encode_primitive(primitive))),
        }
    }
}

/// An object as a list item: its first field shares the `- ` line, the others follow one
/// level deeper.
fn encode_list_object(fields: &Object, depth: usize, lines: &mut Lines) {
    let mut entries = fields.iter();
    let Some((first_key, first_value)) = entries.next() else {
        lines.push(depth, "-");
        return;
    };
    match first_value {
        Json::Array(items) if items.iter().all(Json::is_primitive) => {
            lines.push(depth, &format!("- {}", inline_array(first_key, items)));
        }
        Json::Array(items) => {
            if let Some(table) = table_fields(items) {
                let line = format!("- {}", header(first_key, items.len(), &table));
                lines.push(depth, &line);
                // gotoon puts these rows only one level below the `- ` line.
                encode_rows(items, depth + 1, lines);
            } else {
                // Unlike `header`, this always writes the key, even an empty one (`""[2]:`).
                let line = format!("- {}[{}]:", encode_key(first_key), items.len());
                lines.push(depth, &line);
                encode_list_items(items, depth + 1, lines);
            }
        }
        Json::Object(nested) => {
            lines.push(depth, &format!("- {}:", encode_key(first_key)));
            encode_object(nested, depth + 2, lines);
        }
        primitive => {
            let line = format!(
                "- {}: {}",
                encode_key(first_key),
                encode_primitive(primitive)
            );
            lines.push(depth, &line);
        }
    }
    for (key, value) in entries {
        encode_field(key, value, depth + 1, lines);
    }
}

/// The columns when `items` are non-empty objects with the same keys and only primitive
/// values; `None` otherwise.
fn table_fields(items: &[Json]) -> Option<Vec<&str>> {
    let Some(Json::Object(first)) = items.first() else {
        return None;
    };
    if first.is_empty() {
        return None;
    }
    let uniform = items.iter().all(|item| match item {
        Json::Object(fields) => {
            fields.keys().eq(first.keys()) && fields.values().all(Json::is_primitive)
        }
        _ => false,
    });
    uniform.then(|| first.keys().map(String::as_str).collect())
}

/// One row per object; keys are sorted, so values come in column order.
fn encode_rows(items: &[Json], depth: usize, lines: &mut Lines) {
    for item in items {
        if let Json::Object(fields) = item {
            lines.push(depth, &join_primitives(fields.values()));
        }
    }
}

/// `key[N]{f1,f2}:`; an empty key is left out rather than quoted.
fn header(key: &str, len: usize, fields: &[&str]) -> String {
    let mut out = String::new();
    if !key.is_empty() {
        out.push_str(&encode_key(key));
    }
    out.push_str(&format!("[{len}]"));
    if !fields.is_empty() {
        let fields: Vec<String> = fields.iter().map(|field| encode_key(field)).collect();
        out.push_str(&format!("{{{}}}", fields.join(",")));
    }
    out.push(':');
    out
}

/// `key[N]: a,b,c`, or just the header when empty.
fn inline_array(key: &str, items: &[Json]) -> String {
    let head = header(key, items.len(), &[]);
    if items.is_empty() {
        head
    } else {
        format!("{head} {}", join_primitives(items.iter()))
    }
}

fn join_primitives<'a>(values: impl Iterator<Item = &'a Json>) -> String {
    values.map(encode_primitive).collect::<Vec<_>>().join(",")
}

/// Only ever called on primitives; containers print as `null`, as in gotoon.
fn encode_primitive(value: &Json) -> String {
    match value {
        Json::Bool(true) => "true".to_owned(),
        Json::Bool(false) => "false".to_owned(),
        Json::Number(number) => format_number(*number),
        Json::String(text) => encode_string(text),
        Json::Null | Json::Array(_) | Json::Object(_) => "null".to_owned(),
    }
}

/// Integers print exactly, everything else as Go's `FormatFloat(f, 'f', -1, 64)`.
///
/// gotoon tests `f == float64(int64(f))`; on amd64 an out-of-range conversion gives
/// `MinInt64`, so only integers in `[-2^63, 2^63)` take the exact path.
fn format_number(number: f64) -> String {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    if number.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&number) {
        // In range and integral, so the cast is exact (and turns -0 into 0).
        (number as i64).to_string()
    } else {
        format_float(number)
    }
}

/// The shortest decimal that reads back as `number`, written without an exponent.
///
/// Rust and Go agree on the shortest length but not on a tie between two candidates of that
/// length: Rust rounds up, Go to even. Rust's fixed-precision formatting rounds the exact
/// value half to even, so it gives Go's pick whenever that pick reads back.
fn format_float(number: f64) -> String {
    let magnitude = number.abs();
    let shortest = format!("{magnitude:e}");
    let digit_count = shortest
        .bytes()
        .take_while(|&b| b != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    let even = format!("{magnitude:.*e}", digit_count.saturating_sub(1));
    let chosen = if even != shortest && even.parse::<f64>() == Ok(magnitude) {
        even
    } else {
        shortest
    };
    let Some((mantissa, exponent)) = chosen.split_once('e') else {
        return number.to_string();
    };
    let Ok(exponent) = exponent.parse::<isize>() else {
        return number.to_string();
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let mut out = String::new();
    if number.is_sign_negative() {
        out.push('-');
    }
    // How many digits stand before the decimal point (negative: zeros after it first).
    let point = exponent + 1;
    match usize::try_from(point) {
        Ok(0) | Err(_) => {
            out.push_str("0.");
            out.push_str(&"0".repeat(point.unsigned_abs()));
            out.push_str(digits);
        }
        Ok(point) if point >= digits.len() => {
            out.push_str(digits);
            out.push_str(&"0".repeat(point - digits.len()));
        }
        Ok(point) => {
            let (whole, fraction) = digits.split_at(point);
            out.push_str(whole);
            out.push('.');
            out.push_str(fraction);
        }
    }
    out
}

fn encode_string(text: &str) -> String {
    if is_safe_unquoted(text) {
        text.to_owned()
    } else {
        format!("\"{}\"", escape(text))
    }
}

/// gotoon's rules; other control characters (and inner whitespace) stay bare.
fn is_safe_unquoted(text: &str) -> bool {
    !text.is_empty()
        // Go's `TrimSpace` and Rust's `trim` both use Unicode White_Space.
        && text.trim() == text
        && !matches!(text, "true" | "false" | "null")
        && !looks_numeric(text)
        && !text.contains([':', '"', '\\', '[', ']', '{', '}', '\n', '\r', '\t', ','])
        && !text.starts_with('-')
}

/// gotoon's `^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$` (its other branch, `^0\d+$`, is covered).
fn looks_numeric(text: &str) -> bool {
    fn digits(rest: &mut &[u8]) -> bool {
        let count = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        *rest = rest.get(count..).unwrap_or_default();
        count > 0
    }

    let mut rest = text.strip_prefix('-').unwrap_or(text).as_bytes();
    if !digits(&mut rest) {
        return false;
    }
    if let Some(fraction) = rest.strip_prefix(b".") {
        rest = fraction;
        if !digits(&mut rest) {
            return false;
        }
    }
    if let Some(exponent) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        rest = exponent;
        rest = rest
            .strip_prefix(b"+")
            .or_else(|| rest.strip_prefix(b"-"))
            .unwrap_or(rest);
        if !digits(&mut rest) {
            return false;
        }
    }
    rest.is_empty()
}

/// Keys matching `^[A-Za-z_][A-Za-z0-9_.]*$` stay bare; others are quoted.
fn encode_key(key: &str) -> String {
    let mut bytes = key.bytes();
    let bare = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    if bare {
        key.to_owned()
    } else {
        format!("\"{}\"", escape(key))
    }
}

/// Only these five are escaped: gotoon leaves other control characters as they are.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// Expected texts are what docker-agent's path (Go's `encoding/json` into
    /// `map[string]any`, then gotoon v0.1.1's `Encode`) printed for the same inputs.
    fn check(cases: &[(&str, &str)]) {
        for &(input, expected) in cases {
            assert_eq!(toonify(input).as_deref(), Some(expected), "{input}");
        }
    }

    #[test]
    fn gotoons_own_test_cases_give_the_same_output() {
        check(&[
            (r#"{"v":null}"#, "v: null"),
            (r#"{"v":true}"#, "v: true"),
            (r#"{"v":false}"#, "v: false"),
            (r#"{"v":42}"#, "v: 42"),
            (r#"{"v":3.14}"#, "v: 3.14"),
            (r#"{"v":"hello"}"#, "v: hello"),
            (r#"{"v":"hello world"}"#, "v: hello world"),
            (r#"{"id":123,"name":"Ada"}"#, "id: 123\nname: Ada"),
            (
                r#"{"user":{"id":123,"name":"Ada"}}"#,
                "user:\n  id: 123\n  name: Ada",
            ),
            (
                r#"{"active":true,"name":"test"}"#,
                "active: true\nname: test",
            ),
            (r#"{"":[]}"#, "[0]:"),
            (r#"{"":["reading","gaming"]}"#, "[2]: reading,gaming"),
            (r#"{"":[1,2,3]}"#, "[3]: 1,2,3"),
            (
                r#"{"tags":["admin","ops","dev"]}"#,
                "tags[3]: admin,ops,dev",
            ),
            (
                r#"{"items":[{"id":1,"name":"Alice","role":"admin"},{"id":2,"name":"Bob","role":"user"}]}"#,
                "items[2]{id,name,role}:\n  1,Alice,admin\n  2,Bob,user",
            ),
            (
                r#"{"items":[{"sku":"A1","qty":2,"price":9.99},{"sku":"B2","qty":1,"price":14.5}]}"#,
                "items[2]{price,qty,sku}:\n  9.99,2,A1\n  14.5,1,B2",
            ),
            (
                r#"{"items":[1,"text",{"a":1}]}"#,
                "items[3]:\n  - 1\n  - text\n  - a: 1",
            ),
            (
                r#"{"items":[{"id":1,"name":"First"},{"id":2,"name":"Second","extra":true}]}"#,
                "items[2]:\n  - id: 1\n    name: First\n  - extra: true\n    id: 2\n    name: Second",
            ),
            (r#"{"tags":["a","b","c"]}"#, "tags[3]: a,b,c"),
            (
                r#"{"timestamp":"2025-01-15T10:30:00Z"}"#,
                "timestamp: \"2025-01-15T10:30:00Z\"",
            ),
            (r#"{"note":"hello, world"}"#, "note: \"hello, world\""),
            (
                r#"{"items":["true","false"]}"#,
                "items[2]: \"true\",\"false\"",
            ),
            (r#"{"name":""}"#, "name: \"\""),
            (r#"{"text":"say \"hi\""}"#, "text: \"say \\\"hi\\\"\""),
            (
                r#"{"order":{"id":"ORD-12345","customer":{"name":"John Doe","email":"john@example.com"},"items":[{"sku":"WIDGET-1","quantity":2,"price":19.99},{"sku":"GADGET-2","quantity":1,"price":49.99}],"total":89.97}}"#,
                "order:\n  customer:\n    email: john@example.com\n    name: John Doe\n  id: ORD-12345\n  items[2]{price,quantity,sku}:\n    19.99,2,WIDGET-1\n    49.99,1,GADGET-2\n  total: 89.97",
            ),
        ]);
    }

    #[test]
    fn keys_are_sorted_bytewise_and_quoted_unless_identifier_like() {
        check(&[
            (
                r#"{"b":1,"a":2,"B":3,"_":4,"é":5,"aa":6,"a.b":7,"a1":8}"#,
                "B: 3\n_: 4\na: 2\na.b: 7\na1: 8\naa: 6\nb: 1\n\"é\": 5",
            ),
            (
                r#"{"":1,"1a":2,"a-b":3,"a b":4,"a:b":5,"q\"k":6,"back\\slash":7,"new\nline":8,"_x.y_2":9}"#,
                "\"\": 1\n\"1a\": 2\n_x.y_2: 9\n\"a b\": 4\n\"a-b\": 3\n\"a:b\": 5\n\"back\\\\slash\": 7\n\"new\\nline\": 8\n\"q\\\"k\": 6",
            ),
            (
                r#"{"k":[{"":1,"x y":2},{"":3,"x y":4}]}"#,
                "k[2]{\"\",\"x y\"}:\n  1,2\n  3,4",
            ),
        ]);
    }

    #[test]
    fn numbers_print_as_go_prints_a_float64() {
        check(&[
            (
                r#"{"a":3,"b":3.0,"c":-0,"d":-0.0,"e":1e3,"f":1E+2,"g":-17,"h":100}"#,
                "a: 3\nb: 3\nc: 0\nd: 0\ne: 1000\nf: 100\ng: -17\nh: 100",
            ),
            (
                r#"{"a":3.5,"b":0.1,"c":-2.25,"d":1e-7,"e":0.000001,"f":1.5e-7,"g":4.35}"#,
                "a: 3.5\nb: 0.1\nc: -2.25\nd: 0.0000001\ne: 0.000001\nf: 0.00000015\ng: 4.35",
            ),
            (
                r#"{"a":1e20,"b":1e21,"c":2.5e30,"d":12345678901234567890,"e":123456789012345678901234567890}"#,
                "a: 100000000000000000000\nb: 1000000000000000000000\nc: 2500000000000000000000000000000\nd: 12345678901234567000\ne: 123456789012345680000000000000",
            ),
            (
                r#"{"a":9223372036854775807,"b":9223372036854775808,"c":-9223372036854775808,"d":-9223372036854775809,"e":18446744073709551615,"f":9007199254740993}"#,
                "a: 9223372036854776000\nb: 9223372036854776000\nc: -9223372036854775808\nd: -9223372036854775808\ne: 18446744073709552000\nf: 9007199254740992",
            ),
            (
                r#"{"a":0.30000000000000004,"b":1e-400,"c":0e99999,"d":5e-324}"#,
                "a: 0.30000000000000004\nb: 0\nc: 0\nd: 0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000005",
            ),
            (
                r#"{"tie":714825548845193.25,"long":1.80698482498584230e15,"long2":2.25854066112490127e14}"#,
                "long: 1806984824985842.2\nlong2: 225854066112490.12\ntie: 714825548845193.2",
            ),
        ]);
    }

    #[test]
    fn strings_are_quoted_only_when_gotoon_requires_it() {
        check(&[
            (r#"{"k":"plain text"}"#, "k: plain text"),
            (r#"{"k":""}"#, "k: \"\""),
            (r#"{"k":" lead"}"#, "k: \" lead\""),
            (r#"{"k":"trail "}"#, "k: \"trail \""),
            (r#"{"k":"\u00a0nbsp"}"#, "k: \"\u{a0}nbsp\""),
            (r#"{"k":"x\u2003"}"#, "k: \"x\u{2003}\""),
            (r#"{"k":"true"}"#, "k: \"true\""),
            (r#"{"k":"null"}"#, "k: \"null\""),
            (r#"{"k":"True"}"#, "k: True"),
            (r#"{"k":"42"}"#, "k: \"42\""),
            (r#"{"k":"-3.5"}"#, "k: \"-3.5\""),
            (r#"{"k":"1e5"}"#, "k: \"1e5\""),
            (r#"{"k":"1E+5"}"#, "k: \"1E+5\""),
            (r#"{"k":"07"}"#, "k: \"07\""),
            (r#"{"k":"1."}"#, "k: 1."),
            (r#"{"k":".5"}"#, "k: .5"),
            (r#"{"k":"1e"}"#, "k: 1e"),
            (r#"{"k":"0x1F"}"#, "k: 0x1F"),
            (r#"{"k":"Infinity"}"#, "k: Infinity"),
            (r#"{"k":"a:b"}"#, "k: \"a:b\""),
            (r#"{"k":"a,b"}"#, "k: \"a,b\""),
            (r#"{"k":"a|b"}"#, "k: a|b"),
            (r#"{"k":"[x"}"#, "k: \"[x\""),
            (r#"{"k":"x}"}"#, "k: \"x}\""),
            (r#"{"k":"-x"}"#, "k: \"-x\""),
            (r#"{"k":"x-y"}"#, "k: x-y"),
            (r##"{"k":"#tag"}"##, "k: #tag"),
            (r#"{"k":"q\"q"}"#, "k: \"q\\\"q\""),
            (r#"{"k":"b\\s"}"#, "k: \"b\\\\s\""),
            (r#"{"k":"l\nn"}"#, "k: \"l\\nn\""),
            (r#"{"k":"t\tt"}"#, "k: \"t\\tt\""),
            (r#"{"k":"r\rr"}"#, "k: \"r\\rr\""),
            (r#"{"k":"x\u0001y"}"#, "k: x\u{1}y"),
            (r#"{"k":"x\u000by"}"#, "k: x\u{b}y"),
            (r#"{"k":"\u000bx"}"#, "k: \"\u{b}x\""),
            (r#"{"k":"café 👋"}"#, "k: café 👋"),
            (
                r#"{"k":["a b","c,d","",  "-"]}"#,
                "k[4]: a b,\"c,d\",\"\",\"-\"",
            ),
        ]);
    }

    #[test]
    fn a_primitive_array_is_written_inline() {
        check(&[
            (
                r#"{"a":[1,"two",true,null,2.5],"e":[]}"#,
                "a[5]: 1,two,true,null,2.5\ne[0]:",
            ),
            (
                r#"{"k":["x,y","true","7"]}"#,
                "k[3]: \"x,y\",\"true\",\"7\"",
            ),
            (r#"{"":[1,2]}"#, "[2]: 1,2"),
        ]);
    }

    #[test]
    fn a_uniform_array_of_objects_becomes_a_table() {
        check(&[
            (
                r#"{"rows":[{"b":1,"a":"x"},{"a":"y","b":null}]}"#,
                "rows[2]{a,b}:\n  x,1\n  y,null",
            ),
            (
                r#"{"rows":[{"a":1,"b":2},{"a":1}]}"#,
                "rows[2]:\n  - a: 1\n    b: 2\n  - a: 1",
            ),
            (
                r#"{"rows":[{"a":1},{"b":1}]}"#,
                "rows[2]:\n  - a: 1\n  - b: 1",
            ),
            (
                r#"{"rows":[{"a":[1]},{"a":[2]}]}"#,
                "rows[2]:\n  - a[1]: 1\n  - a[1]: 2",
            ),
            (r#"{"rows":[{},{}]}"#, "rows[2]:\n  -\n  -"),
            (r#"{"rows":[{"a":1},2]}"#, "rows[2]:\n  - a: 1\n  - 2"),
        ]);
    }

    #[test]
    fn other_arrays_become_lists() {
        check(&[
            (
                r#"{"m":[[1,2],[],["a"]]}"#,
                "m[3]:\n  - [2]: 1,2\n  - [0]:\n  - [1]: a",
            ),
            (
                r#"{"m":[1,[2,3],{"a":1},null,"s"]}"#,
                "m[5]:\n  - 1\n  - [2]: 2,3\n  - a: 1\n  - null\n  - s",
            ),
            (
                r#"{"m":[[1,[2]],[3],{"x":[{"y":1}]}]}"#,
                "m[3]:\n  - [1]: 3\n  - x[1]{y}:\n    1",
            ),
            (r#"{"m":[[{"a":1}]]}"#, "m[1]:"),
            (r#"{"":[[1],{"a":1}]}"#, "[2]:\n  - [1]: 1\n  - a: 1"),
        ]);
    }

    #[test]
    fn an_object_in_a_list_puts_its_first_field_on_the_dash_line() {
        check(&[
            (r#"{"l":[{},1]}"#, "l[2]:\n  -\n  - 1"),
            (
                r#"{"l":[{"a":[1,2],"b":1},1]}"#,
                "l[2]:\n  - a[2]: 1,2\n    b: 1\n  - 1",
            ),
            (
                r#"{"l":[{"a":[],"b":1},1]}"#,
                "l[2]:\n  - a[0]:\n    b: 1\n  - 1",
            ),
            (
                r#"{"l":[{"a":[{"x":1,"y":2},{"x":3,"y":4}],"b":1},1]}"#,
                "l[2]:\n  - a[2]{x,y}:\n    1,2\n    3,4\n    b: 1\n  - 1",
            ),
            (
                r#"{"l":[{"a":[{"x":1},{"y":2}],"b":1},1]}"#,
                "l[2]:\n  - a[2]:\n    - x: 1\n    - y: 2\n    b: 1\n  - 1",
            ),
            (
                r#"{"l":[{"a":[1,[2],[[3]],{"z":1}],"b":1},1]}"#,
                "l[2]:\n  - a[4]:\n    - 1\n    - [1]: 2\n    - z: 1\n    b: 1\n  - 1",
            ),
            (
                r#"{"l":[{"a":[[1,2],[3]]},1]}"#,
                "l[2]:\n  - a[2]:\n    - [2]: 1,2\n    - [1]: 3\n  - 1",
            ),
            (
                r#"{"l":[{"a":{"x":1,"y":{"z":2}},"b":{}},1]}"#,
                "l[2]:\n  - a:\n      x: 1\n      y:\n        z: 2\n    b:\n  - 1",
            ),
            (
                r#"{"l":[{"a":{},"b":[{"c":1}]},1]}"#,
                "l[2]:\n  - a:\n    b[1]{c}:\n      1\n  - 1",
            ),
            (
                r#"{"l":[{"":[1,2]},{"":[[1]]},{"":[{"x":1},{"x":2}]},{"":{"x":1}},{"":1}]}"#,
                "l[5]:\n  - [2]: 1,2\n  - \"\"[1]:\n    - [1]: 1\n  - [2]{x}:\n    1\n    2\n  - \"\":\n      x: 1\n  - \"\": 1",
            ),
        ]);
    }

    #[test]
    fn objects_nest_by_two_spaces_and_empty_ones_keep_their_key() {
        check(&[
            (
                r#"{"a":{"b":{"c":{"d":1}},"e":{}},"f":{}}"#,
                "a:\n  b:\n    c:\n      d: 1\n  e:\nf:",
            ),
            (
                r#"{"a":{"list":[{"x":1},2],"t":[{"x":1},{"x":2}]}}"#,
                "a:\n  list[2]:\n    - x: 1\n    - 2\n  t[2]{x}:\n    1\n    2",
            ),
        ]);
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value() {
        check(&[
            (r#"{"a":1,"a":2}"#, "a: 2"),
            (r#"{"a":{"x":1},"a":[1]}"#, "a[1]: 1"),
        ]);
    }

    #[test]
    fn a_lone_surrogate_escape_becomes_the_replacement_character() {
        check(&[
            (
                r#"{"a":"\ud800","b":"x\udc00y","c":"\ud83d\ude00","d":"\ud800\u0041","\udfff":"\ud83d\ud83d\ude00"}"#,
                "a: �\nb: x�y\nc: 😀\nd: �A\n\"�\": �😀",
            ),
            (r#"{"a":"\\ud800"}"#, "a: \"\\\\ud800\""),
        ]);
    }

    #[test]
    fn whitespace_around_the_object_is_accepted() {
        check(&[(" \t\r\n{ \"a\" : 1 } \n", "a: 1")]);
    }

    #[test]
    fn anything_but_a_json_object_is_left_unchanged() {
        let cases = [
            "",
            "  ",
            "plain text",
            "[]",
            r#"[{"a":1}]"#,
            r#""text""#,
            "42",
            "true",
            r#"{"a":1"#,
            r#"{"a":1,}"#,
            r#"{"a":1} x"#,
            "{}{}",
            "{'a':1}",
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":+1}"#,
            r#"{"a":.5}"#,
            r#"{"a":1e400}"#,
            r#"{"a":-1e400}"#,
            r#"{"a":NaN}"#,
            "\u{feff}{\"a\":1}",
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12"}"#,
            "{\"a\":\"raw\ttab\"}",
        ];
        for input in cases {
            assert_eq!(toonify(input), None, "{input:?}");
        }
    }

    /// Go would encode these (it allows 10,000 levels); serde_json stops at 128, which also
    /// keeps the recursive encoder's stack small.
    #[test]
    fn nesting_past_serde_jsons_limit_is_left_unchanged() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(toonify(&deep), None);
    }

    #[test]
    fn json_null_and_an_empty_object_become_empty_output() {
        for input in ["null", " null\n", "{}", " {} "] {
            assert_eq!(toonify(input).as_deref(), Some(""), "{input:?}");
        }
    }
}
