//! The values of toolset options: `api_config` (`type: api`), the document's `url` and
//! `headers` (`type: openapi`), `allow_list` / `deny_list` and `post_edit` (`type: filesystem`),
//! `allowed_domains` / `blocked_domains` (`type: fetch`).

use serde_saphyr::Spanned;

use super::{Validator, check_url, is_header_token};
use crate::access::{DomainPattern, expand_path_entry};
use crate::mcp::check_references;
use crate::raw::{OrderedMap, RawApiConfig, Scalar};
use crate::toolset::{ApiConfig, PostEdit, ToolsetKind};

impl Validator<'_> {
    /// `allow_list` / `deny_list` of a filesystem toolset: entries kept as written (they
    /// expand when a tool runs), blank ones and broken `${…}` refused.
    pub(super) fn path_list(
        &mut self,
        path: &str,
        kind: ToolsetKind,
        key: &str,
        given: Option<Spanned<Vec<Spanned<String>>>>,
    ) -> Vec<String> {
        let Some(list) = given else {
            return Vec::new();
        };
        if !matches!(kind, ToolsetKind::Filesystem | ToolsetKind::File) {
            let owners = "`type: filesystem` and `file`";
            self.wrong_type(path, &list.referenced, key, owners, kind);
            return Vec::new();
        }
        let mut out = Vec::with_capacity(list.value.len());
        for (i, entry) in list.value.into_iter().enumerate() {
            let at = self.origin(&entry.referenced, format!("{path}.{key}[{i}]"));
            let text = entry.value.trim();
            if text.is_empty() {
                self.error_hint(
                    at,
                    format!("an `{key}` entry must not be empty"),
                    "write `.` for the working directory, `~/…` for the home directory, or a path",
                );
                continue;
            }
            // Whether variables are set is known when the tool runs; their syntax now.
            if let Err(why) = expand_path_entry(text, |_| Some("x".to_owned())) {
                self.error(at, format!("invalid `{key}` entry: {why}"));
                continue;
            }
            out.push(text.to_owned());
        }
        out
    }

    /// `allowed_domains` / `blocked_domains` of a fetch toolset, parsed.
    pub(super) fn domain_list(
        &mut self,
        path: &str,
        kind: ToolsetKind,
        key: &str,
        given: Option<Spanned<Vec<Spanned<String>>>>,
    ) -> Vec<DomainPattern> {
        let Some(list) = given else {
            return Vec::new();
        };
        if kind != ToolsetKind::Fetch {
            self.wrong_type(path, &list.referenced, key, "`type: fetch`", kind);
            return Vec::new();
        }
        let mut out = Vec::with_capacity(list.value.len());
        for (i, entry) in list.value.into_iter().enumerate() {
            match DomainPattern::parse(&entry.value) {
                Ok(p) => out.push(p),
                Err(why) => self.error_hint(
                    self.origin(&entry.referenced, format!("{path}.{key}[{i}]")),
                    format!("invalid domain pattern `{}`: {why}", entry.value),
                    "write a host (`example.com`, its subdomains too), `*.example.com` or `.example.com` (subdomains only), an IP address or a CIDR range (`10.0.0.0/8`)",
                ),
            }
        }
        out
    }

    pub(super) fn api_config(
        &mut self,
        path: &str,
        raw: Spanned<RawApiConfig>,
    ) -> Option<ApiConfig> {
        let origin = self.origin(&raw.referenced, path);
        let a = raw.value;
        let before = self.diags.len();
        let name = match a.name {
            Some(n) if !n.value.trim().is_empty() => n.value,
            _ => {
                self.error(
                    origin.clone(),
                    "`api_config` needs `name` (the tool's name)",
                );
                String::new()
            }
        };
        let method = match a.method {
            Some(m) => {
                let upper = m.value.to_ascii_uppercase();
                if !ApiConfig::METHODS.contains(&upper.as_str()) {
                    self.error(
                        self.origin(&m.referenced, format!("{path}.method")),
                        format!(
                            "unknown method `{}` (expected one of {})",
                            m.value,
                            ApiConfig::METHODS.join(", ")
                        ),
                    );
                }
                upper
            }
            None => {
                self.error(
                    origin.clone(),
                    "`api_config` needs `method` (GET or POST, …)",
                );
                String::new()
            }
        };
        let args: Vec<(String, serde_json::Value)> = a.args.map(|m| m.0).unwrap_or_default();
        let endpoint = match a.endpoint {
            Some(e) => {
                let at = self.origin(&e.referenced, format!("{path}.endpoint"));
                // `${…}` stands for a value known only at call time.
                let probe = placeholder_free(&e.value);
                if let Err(why) = check_references(&e.value) {
                    self.error(at, why);
                } else if let Err(why) = check_url(probe.trim()) {
                    self.error_hint(
                        at,
                        format!("invalid endpoint `{}`: {why}", e.value),
                        "write an absolute URL such as `https://api.example.com/items?q=${query}`",
                    );
                } else if let Some(arg) = argument_in_host(&e.value, &args) {
                    self.error_hint(
                        at,
                        format!("`${{{arg}}}` is in the scheme or host of the endpoint `{}`: arguments may only fill its path and query, so the model cannot choose where the request goes", e.value),
                        "end the host with `/` before the first argument, or take it from the environment with `${env.NAME}`",
                    );
                }
                e.value
            }
            None => {
                self.error(
                    origin.clone(),
                    "api tool requires an endpoint in api_config",
                );
                String::new()
            }
        };
        let mut required = Vec::new();
        for (i, r) in a.required.unwrap_or_default().into_iter().enumerate() {
            if !args.iter().any(|(n, _)| *n == r.value) {
                self.error(
                    self.origin(&r.referenced, format!("{path}.required[{i}]")),
                    format!("required argument `{}` is not one of `args`", r.value),
                );
            }
            required.push(r.value);
        }
        for (n, schema) in &args {
            if !schema.is_object() {
                self.error(
                    origin.clone(),
                    format!(
                        "`{path}.args.{n}` must be a JSON Schema object such as `{{type: string}}`"
                    ),
                );
            }
        }
        let output_schema = match a.output_schema {
            Some(s) if !s.value.is_object() => {
                self.error(
                    self.origin(&s.referenced, format!("{path}.output_schema")),
                    "`output_schema` must be a JSON Schema object",
                );
                None
            }
            s => s.map(|s| s.value),
        };
        let headers = self.headers(
            &format!("{path}.headers"),
            a.headers.unwrap_or(OrderedMap(Vec::new())),
        );
        (self.diags.len() == before).then(|| ApiConfig {
            name,
            instruction: a.instruction.unwrap_or_default(),
            endpoint,
            method,
            headers,
            args,
            required,
            output_schema,
        })
    }

    /// A `type: a2a` toolset's `url`: an `http(s)` URL (`${env.NAME}` allowed).
    pub(super) fn a2a_url(&mut self, path: &str, u: &Spanned<String>) -> Option<String> {
        let at = self.origin(&u.referenced, path);
        if let Err(why) = check_references(&u.value) {
            self.error(at, why);
            return None;
        }
        let lower = u.value.to_ascii_lowercase();
        if !(lower.starts_with("http://")
            || lower.starts_with("https://")
            || u.value.starts_with("${"))
        {
            self.error_hint(
                at,
                format!("unsupported url `{}`", u.value),
                "give the remote agent's `http://` or `https://` base URL",
            );
            return None;
        }
        if let Err(why) = check_url(placeholder_free(&u.value).trim()) {
            self.error(at, format!("invalid url `{}`: {why}", u.value));
            return None;
        }
        Some(u.value.clone())
    }

    pub(super) fn openapi_url(&mut self, path: &str, u: &Spanned<String>) -> Option<String> {
        let at = self.origin(&u.referenced, path);
        if let Err(why) = check_references(&u.value) {
            self.error(at, why);
            return None;
        }
        let lower = u.value.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            if let Err(why) = check_url(placeholder_free(&u.value).trim()) {
                self.error(at, format!("invalid url `{}`: {why}", u.value));
                return None;
            }
        } else if u.value.contains("://") {
            self.error_hint(
                at,
                format!("unsupported url `{}`", u.value),
                "give an `http://` or `https://` URL, or a file path",
            );
            return None;
        }
        // A file path is relative to the agent file, like `instruction_file`.
        if lower.starts_with("http") || u.value.starts_with("${") {
            Some(u.value.clone())
        } else {
            Some(self.dir.join(&u.value).display().to_string())
        }
    }

    pub(super) fn headers(
        &mut self,
        path: &str,
        raw: OrderedMap<Spanned<Scalar>>,
    ) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (key, value) in raw.0 {
            let at = self.origin(&value.referenced, format!("{path}.{key}"));
            if key.is_empty() || !key.bytes().all(is_header_token) {
                self.error(at, format!("invalid header name `{key}`"));
                continue;
            }
            if let Err(why) = check_references(&value.value.0) {
                self.error(at, why);
                continue;
            }
            out.push((key, value.value.0));
        }
        out
    }

    pub(super) fn post_edit(
        &mut self,
        path: &str,
        raw: Vec<Spanned<crate::raw::RawPostEdit>>,
    ) -> Vec<PostEdit> {
        let mut out = Vec::new();
        for (i, p) in raw.into_iter().enumerate() {
            let at = self.origin(&p.referenced, format!("{path}[{i}]"));
            let Some(glob) = p.value.path.filter(|g| !g.value.trim().is_empty()) else {
                self.error(
                    at,
                    "a `post_edit` entry needs `path` (a glob such as `*.go`)",
                );
                continue;
            };
            let Some(cmd) = p.value.cmd.filter(|c| !c.trim().is_empty()) else {
                self.error(at, "a `post_edit` entry needs `cmd`");
                continue;
            };
            if let Err(e) = globset::Glob::new(&glob.value) {
                self.error(
                    self.origin(&glob.referenced, format!("{path}[{i}].path")),
                    format!("invalid glob `{}`: {e}", glob.value),
                );
                continue;
            }
            out.push(PostEdit {
                path: glob.value,
                cmd,
            });
        }
        out
    }
}

/// `value` with each `${…}` replaced by a plain word, for checking the URL around them.
pub(super) fn placeholder_free(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        out.push('x');
        rest = rest[at..].find('}').map_or("", |end| &rest[at + end + 1..]);
    }
    out.push_str(rest);
    out
}

/// The first `${NAME}` naming one of `args` that stands before the end of `endpoint`'s host
/// (the first `/`, `?` or `#` after `://`, or from the start when the scheme is a variable's).
fn argument_in_host<'e>(
    endpoint: &'e str,
    args: &[(String, serde_json::Value)],
) -> Option<&'e str> {
    // Each placeholder becomes one `$`, so the URL's delimiters are the literal text's.
    let mut shape = String::new();
    let mut names = Vec::new();
    let mut rest = endpoint;
    while let Some(at) = rest.find("${") {
        shape.push_str(&rest[..at]);
        shape.push('$');
        let end = rest[at..].find('}').map_or(rest.len(), |end| at + end);
        names.push((shape.len() - 1, rest.get(at + 2..end).unwrap_or_default()));
        rest = rest.get(end + 1..).unwrap_or_default();
    }
    shape.push_str(rest);
    let start = shape.find("://").map_or(0, |at| at + 3);
    let host_end = shape[start..]
        .find(['/', '?', '#'])
        .map_or(shape.len(), |at| start + at);
    names
        .into_iter()
        .find(|(at, name)| *at < host_end && args.iter().any(|(n, _)| n == name))
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::{argument_in_host, placeholder_free};

    #[test]
    fn arguments_in_the_scheme_or_host_are_found() {
        let args = vec![
            ("host".to_owned(), serde_json::json!({})),
            ("q".to_owned(), serde_json::json!({})),
        ];
        for (endpoint, found) in [
            ("https://${host}/a", Some("host")),
            ("https://api.example.com${q}", Some("q")),
            ("https://api.example.com:${q}/", Some("q")),
            ("${env.SCHEME}://${host}/", Some("host")),
            ("${env.BASE}${q}", Some("q")),
            ("https://api.example.com/${q}", None),
            ("https://api.example.com?q=${q}", None),
            ("https://${env.HOST}/${q}", None),
            ("https://${API_HOST}/${q}", None),
            ("${env.BASE}/items/${q}", None),
        ] {
            assert_eq!(argument_in_host(endpoint, &args), found, "{endpoint}");
        }
    }

    #[test]
    fn placeholders_become_plain_words() {
        assert_eq!(
            placeholder_free("https://${env.HOST}/a?q=${q}"),
            "https://x/a?q=x"
        );
        assert_eq!(placeholder_free("plain"), "plain");
    }
}
