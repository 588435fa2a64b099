//! `add_user_info`: the OS user (name and full name) and the host name.

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use super::context;
use crate::registry::{Builtin, BuiltinCall};

#[derive(Debug, Clone, Copy, Default)]
pub struct AddUserInfo;

/// `(user name, full name)` of the current uid, from the password database.
fn current_user(passwd: &str, uid: u32) -> Option<(String, String)> {
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        let (name, id, gecos) = (
            fields.first()?,
            fields.get(2)?,
            fields.get(4).unwrap_or(&""),
        );
        (id.parse::<u32>().ok()? == uid).then(|| {
            let full = gecos
                .split(',')
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned();
            ((*name).to_owned(), full)
        })
    })
}

fn hostname() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .trim()
        .to_owned()
}

pub(crate) fn text(user: &str, full_name: &str, host: &str) -> String {
    let lines: Vec<String> = [("User", user), ("Full name", full_name), ("Hostname", host)]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!("Current user:\n\n{}", lines.join("\n"))
}

impl Builtin for AddUserInfo {
    fn name(&self) -> &'static str {
        "add_user_info"
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let uid = rustix::process::getuid().as_raw();
            let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
            let (user, full) = current_user(&passwd, uid)
                .unwrap_or_else(|| (call.env.var("USER").unwrap_or_default(), String::new()));
            Ok(context(&call, text(&user, &full, &hostname())))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_password_database() {
        let passwd =
            "root:x:0:0:root:/root:/bin/bash\nada:x:1000:1000:Ada Lovelace,,,:/home/ada:/bin/zsh\n";
        assert_eq!(
            current_user(passwd, 1000),
            Some(("ada".into(), "Ada Lovelace".into()))
        );
        assert_eq!(current_user(passwd, 42), None);
    }
}
