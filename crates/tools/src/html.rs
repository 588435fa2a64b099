//! HTML to plain text or Markdown, for the `fetch` tool: enough for a model to read a page
//! (headings, paragraphs, lists, links, code), not a full renderer. Scripts, styles and
//! comments are dropped; entities are decoded.

/// Which output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    Text,
    Markdown,
}

fn decode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after.find(';').filter(|e| *e <= 10);
        let Some(end) = end else {
            out.push('&');
            rest = after;
            continue;
        };
        let name = &after[..end];
        let ch = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" | "#39" => Some('\''),
            "nbsp" => Some(' '),
            n if n.starts_with("#x") || n.starts_with("#X") => u32::from_str_radix(&n[2..], 16)
                .ok()
                .and_then(char::from_u32),
            n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of attribute `name` in a tag's text.
fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let at = lower.find(&format!("{name}="))?;
    let rest = &tag[at + name.len() + 1..];
    let value = match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].split(q).next()?,
        _ => rest.split(|c: char| c.is_whitespace() || c == '>').next()?,
    };
    Some(decode(value))
}

pub(crate) fn convert(html: &str, flavor: Flavor) -> String {
    let md = flavor == Flavor::Markdown;
    let mut out = String::new();
    let mut rest = html;
    let mut link: Option<(String, usize)> = None;
    let mut pre = 0usize;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            push_text(&mut out, &decode(rest), pre > 0);
            break;
        };
        push_text(&mut out, &decode(&rest[..lt]), pre > 0);
        rest = &rest[lt..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |e| &after[e + 3..]);
            continue;
        }
        let Some(gt) = rest.find('>') else {
            break;
        };
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        match (name.as_str(), closing) {
            ("script" | "style" | "head" | "noscript" | "svg", false) => {
                let end = format!("</{name}");
                let lower = rest.to_ascii_lowercase();
                rest = lower
                    .find(&end)
                    .and_then(|i| rest[i..].find('>').map(|j| &rest[i + j + 1..]))
                    .unwrap_or("");
            }
            ("br", _) => out.push('\n'),
            (
                "p" | "div" | "section" | "article" | "table" | "tr" | "ul" | "ol" | "blockquote"
                | "header" | "footer" | "nav" | "main",
                _,
            ) => {
                block(&mut out);
            }
            ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", false) => {
                block(&mut out);
                if md {
                    let level = usize::from(name.as_bytes()[1] - b'0');
                    out.push_str(&"#".repeat(level));
                    out.push(' ');
                }
            }
            ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", true) => block(&mut out),
            ("li", false) => {
                line(&mut out);
                out.push_str("- ");
            }
            ("td" | "th", false) => out.push(' '),
            ("pre", false) => {
                block(&mut out);
                if md {
                    out.push_str("```\n");
                }
                pre += 1;
            }
            ("pre", true) => {
                pre = pre.saturating_sub(1);
                if md {
                    line(&mut out);
                    out.push_str("```");
                }
                block(&mut out);
            }
            ("code", _) if md && pre == 0 => out.push('`'),
            ("a", false) => {
                if let Some(href) = attr(tag, "href") {
                    if md {
                        out.push('[');
                    }
                    link = Some((href, out.len()));
                }
            }
            ("a", true) => {
                if let Some((href, start)) = link.take() {
                    if md {
                        out.push_str(&format!("]({href})"));
                    } else if out[start..].trim() != href && !href.starts_with('#') {
                        out.push_str(&format!(" ({href})"));
                    }
                }
            }
            _ => {}
        }
    }
    tidy(&out)
}

fn push_text(out: &mut String, text: &str, pre: bool) {
    if pre {
        out.push_str(text);
        return;
    }
    let mut words = text.split_whitespace().peekable();
    if words.peek().is_none() {
        if !text.is_empty() && !out.ends_with([' ', '\n']) && !out.is_empty() {
            out.push(' ');
        }
        return;
    }
    if text.starts_with(char::is_whitespace) && !out.ends_with([' ', '\n']) && !out.is_empty() {
        out.push(' ');
    }
    let joined: Vec<&str> = words.collect();
    out.push_str(&joined.join(" "));
    if text.ends_with(char::is_whitespace) {
        out.push(' ');
    }
}

fn line(out: &mut String) {
    while out.ends_with(' ') {
        out.pop();
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

fn block(out: &mut String) {
    line(out);
    if !out.is_empty() && !out.ends_with("\n\n") {
        out.push('\n');
    }
}

/// Trailing spaces off, at most one blank line in a row.
fn tidy(s: &str) -> String {
    let mut out = String::new();
    let mut blank = 0;
    for l in s.lines() {
        let l = l.trim_end();
        if l.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(l);
        out.push('\n');
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<html><head><title>T</title><style>p{}</style></head><body><h1>Title &amp; more</h1><p>Hello <b>big</b>\n   world. <a href=\"/docs\">Docs</a></p><script>alert(1)</script><ul><li>one</li><li>two</li></ul><pre>a  b\n c</pre><!-- x --></body></html>";

    #[test]
    fn text_keeps_words_links_and_structure() {
        assert_eq!(
            convert(PAGE, Flavor::Text),
            "Title & more\n\nHello big world. Docs (/docs)\n\n- one\n- two\n\na  b\n c"
        );
    }

    #[test]
    fn markdown_marks_headings_links_lists_and_code() {
        assert_eq!(
            convert(PAGE, Flavor::Markdown),
            "# Title & more\n\nHello big world. [Docs](/docs)\n\n- one\n- two\n\n```\na  b\n c\n```"
        );
    }
}
