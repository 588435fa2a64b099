//! Turning a `postgres://` URL into a client configuration, and into the password-free form
//! that messages show.
//!
//! The client speaks plain TCP only (`NoTls`). A URL that asks for TLS is refused here, by
//! name, rather than left to fail at connect time or, worse, to be read as "TLS if offered".

use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::Config;

use crate::{StoreError, StoreOptions};

/// Used when the URL sets none: an unreachable host should fail a call, not hang it.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) fn is_postgres_url(location: &str) -> bool {
    ["postgres://", "postgresql://"].iter().any(|scheme| {
        location
            .get(..scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
    })
}

/// The client configuration for `url`: its own settings, plus the store's (lock timeout,
/// read-only sessions) and defaults for what it leaves unset.
pub(crate) fn config(url: &str, options: &StoreOptions) -> Result<Config, StoreError> {
    let invalid = |detail: String| StoreError::Url {
        url: redact(url),
        detail,
    };
    for (key, value) in query_pairs(url) {
        if key == "sslmode" && matches!(value, "require" | "verify-ca" | "verify-full") {
            return Err(invalid(format!(
                "`sslmode={value}` is not supported yet: tether connects without TLS; use `sslmode=disable` on a trusted network"
            )));
        }
    }
    let mut config = Config::from_str(url).map_err(|e| invalid(crate::error::describe(&e)))?;
    if config.get_application_name().is_none() {
        config.application_name("tether");
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    let mut server_options = config.get_options().unwrap_or_default().to_owned();
    let lock_ms = options.busy_timeout.as_millis().max(1);
    server_options.push_str(&format!(" -c lock_timeout={lock_ms}"));
    if options.read_only {
        server_options.push_str(" -c default_transaction_read_only=on");
    }
    config.options(server_options.trim_start());
    Ok(config)
}

/// `url` without its password (in the user info or a `password=` parameter), for messages
/// and [`Store::path`](crate::Store::path).
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user_info, hosts)) => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{user}@{hosts}")
        }
        None => authority.to_owned(),
    };
    let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.starts_with("password="))
        .collect();
    let query = if kept.is_empty() {
        String::new()
    } else {
        format!("?{}", kept.join("&"))
    };
    format!("{scheme}://{authority}{path}{query}")
}

/// The `key=value` pairs of the URL's query, as written.
fn query_pairs(url: &str) -> impl Iterator<Item = (&str, &str)> {
    url.split_once('?')
        .map_or("", |(_, query)| query)
        .split('&')
        .filter_map(|pair| pair.split_once('='))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn passwords_are_left_out_of_the_shown_url() {
        let cases = [
            (
                "postgres://tether:p@db.internal:5432/sessions",
                "postgres://tether@db.internal:5432/sessions",
            ),
            (
                "postgresql://u@h/db?password=x&sslmode=disable",
                "postgresql://u@h/db?sslmode=disable",
            ),
            (
                "postgres://h1:5432,h2:5433/db",
                "postgres://h1:5432,h2:5433/db",
            ),
            ("postgres://u:p@h?password=q", "postgres://u@h"),
        ];
        let shown: Vec<(&str, String)> = cases.iter().map(|(url, _)| (*url, redact(url))).collect();
        let expected: Vec<(&str, String)> = cases
            .iter()
            .map(|(url, r)| (*url, (*r).to_owned()))
            .collect();
        assert_eq!(shown, expected);
    }

    #[test]
    fn tls_modes_are_refused_by_name_and_plain_ones_accepted() {
        let refused = config(
            "postgres://u:pw@h/db?sslmode=require",
            &StoreOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "cannot use the session database URL `postgres://u@h/db?sslmode=require`: \
             `sslmode=require` is not supported yet: tether connects without TLS; use \
             `sslmode=disable` on a trusted network"
        );
        for mode in ["verify-ca", "verify-full"] {
            let url = format!("postgres://h/db?sslmode={mode}");
            assert!(
                matches!(
                    config(&url, &StoreOptions::default()),
                    Err(StoreError::Url { .. })
                ),
                "{mode}"
            );
        }
        for url in [
            "postgres://h/db?sslmode=disable",
            "postgres://h/db?sslmode=prefer",
            "postgres://h/db",
        ] {
            config(url, &StoreOptions::default()).unwrap();
        }
    }

    #[test]
    fn the_store_adds_its_lock_timeout_and_read_only_mode_to_the_url_options() {
        let options = StoreOptions {
            busy_timeout: Duration::from_millis(250),
            read_only: true,
            ..StoreOptions::default()
        };
        let config = config(
            "postgres://h/db?options=-c%20search_path%3Dtether",
            &options,
        )
        .unwrap();
        assert_eq!(
            (
                config.get_options(),
                config.get_application_name(),
                config.get_connect_timeout()
            ),
            (
                Some(
                    "-c search_path=tether -c lock_timeout=250 -c default_transaction_read_only=on"
                ),
                Some("tether"),
                Some(&CONNECT_TIMEOUT)
            )
        );
    }

    #[test]
    fn a_url_that_does_not_parse_is_refused_with_the_reason() {
        let err = config("postgres://h/db?bogus=1", &StoreOptions::default()).unwrap_err();
        assert!(matches!(err, StoreError::Url { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("cannot use the session database URL `postgres://h/db?bogus=1`: "),
            "{err}"
        );
    }
}
