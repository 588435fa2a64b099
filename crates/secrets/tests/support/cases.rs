//! The test corpus: for every rule, inputs that must be redacted (with the exact expected output)
//! and near misses that must be left alone.
//!
//! Vendor tokens are assembled at run time from split prefixes and a seeded generator, so the
//! repository never contains a string that a secret scanner would flag, yet every token has the
//! vendor's real shape (prefix, alphabet, length).

/// One corpus entry: `input` must redact to `expected`. A negative case has `expected == input`.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    /// The rule the case exercises (for a positive case: the rule that must report the finding).
    pub(crate) rule: &'static str,
    pub(crate) input: String,
    pub(crate) expected: String,
}

pub(crate) const DIGITS: &str = "0123456789";
pub(crate) const HEX: &str = "0123456789abcdef";
pub(crate) const UPPER_ALNUM: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
pub(crate) const ALNUM: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
pub(crate) const B64URL: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
pub(crate) const B64: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";
const BECH32_UPPER: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

/// A deterministic pseudo-random string over `alphabet` (xorshift64, seeded).
pub(crate) fn rnd(alphabet: &str, len: usize, seed: u64) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            chars[usize::try_from(state % chars.len() as u64).unwrap_or(0)]
        })
        .collect()
}

/// Joins pieces; used to keep complete vendor prefixes out of the source text.
pub(crate) fn cat(parts: &[&str]) -> String {
    parts.concat()
}

fn pos(rule: &'static str, input: impl Into<String>, expected: impl Into<String>) -> Case {
    Case {
        rule,
        input: input.into(),
        expected: expected.into(),
    }
}

fn neg(rule: &'static str, input: impl Into<String>) -> Case {
    let input = input.into();
    Case {
        rule,
        expected: input.clone(),
        input,
    }
}

/// A UUID-shaped string.
fn uuid(seed: u64) -> String {
    format!(
        "{}-{}-{}-{}-{}",
        rnd(HEX, 8, seed),
        rnd(HEX, 4, seed + 1),
        rnd(HEX, 4, seed + 2),
        rnd(HEX, 4, seed + 3),
        rnd(HEX, 12, seed + 4)
    )
}

/// A PEM-style body: base64 lines of 64 characters joined by `sep`.
fn armor_body(lines: usize, seed: u64, sep: &str) -> String {
    let mut out: Vec<String> = (0..lines).map(|i| rnd(B64, 64, seed + i as u64)).collect();
    out.push(format!("{}==", rnd(B64, 22, seed + 99)));
    out.join(sep)
}

/// Every corpus case, grouped by rule in table order.
#[expect(clippy::too_many_lines, reason = "a declarative table of cases")]
pub(crate) fn cases() -> Vec<Case> {
    let r = "[REDACTED]";
    let mut c = Vec::new();

    // aws-access-key-id
    let akia = cat(&["AK", "IA", &rnd(UPPER_ALNUM, 16, 1)]);
    let asia = cat(&["AS", "IA", &rnd(UPPER_ALNUM, 16, 2)]);
    c.push(pos(
        "aws-access-key-id",
        format!("aws_access_key_id = {akia}"),
        format!("aws_access_key_id = {r}"),
    ));
    c.push(pos(
        "aws-access-key-id",
        format!("creds: {asia}, expires soon"),
        format!("creds: {r}, expires soon"),
    ));
    c.push(neg(
        "aws-access-key-id",
        cat(&["aws_access_key_id = AK", "IAIOSFODNN7EXAMPLE"]),
    ));
    c.push(neg(
        "aws-access-key-id",
        cat(&["id AK", "IA", &rnd(UPPER_ALNUM, 15, 3), " is too short"]),
    ));

    // aws-secret-access-key
    let aws_secret = rnd(B64, 40, 4);
    c.push(pos(
        "aws-secret-access-key",
        format!("aws_secret_access_key = {aws_secret}"),
        format!("aws_secret_access_key = {r}"),
    ));
    c.push(pos(
        "aws-secret-access-key",
        format!("{{\"SecretAccessKey\": \"{aws_secret}\", \"Expiration\": \"2030\"}}"),
        format!("{{\"SecretAccessKey\": \"{r}\", \"Expiration\": \"2030\"}}"),
    ));
    c.push(neg(
        "aws-secret-access-key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ));

    // gcp-service-account-key-id
    let key_id = rnd(HEX, 40, 5);
    c.push(pos(
        "gcp-service-account-key-id",
        format!("{{\"type\": \"service_account\", \"private_key_id\": \"{key_id}\"}}"),
        format!("{{\"type\": \"service_account\", \"private_key_id\": \"{r}\"}}"),
    ));
    c.push(neg(
        "gcp-service-account-key-id",
        format!("\"private_key_id\": \"{}\"", rnd(HEX, 39, 6)),
    ));

    // gcp-service-account-private-key (JSON-escaped newlines)
    let body = armor_body(3, 7, "\\n");
    c.push(pos(
        "gcp-service-account-private-key",
        format!("\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n\","),
        format!("\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{r}\\n-----END PRIVATE KEY-----\\n\","),
    ));
    c.push(neg(
        "gcp-service-account-private-key",
        "\"private_key\": \"\", \"client_email\": \"svc@proj.iam.gserviceaccount.com\"",
    ));

    // gcp-api-key
    let aiza = cat(&["AI", "za", &rnd(B64URL, 35, 8)]);
    c.push(pos(
        "gcp-api-key",
        format!("const KEY = '{aiza}';"),
        format!("const KEY = '{r}';"),
    ));
    c.push(neg("gcp-api-key", cat(&["AI", "za", &rnd(ALNUM, 20, 9)])));

    // gcp-oauth-client-secret
    let gocspx = cat(&["GOC", "SPX-", &rnd(B64URL, 28, 10)]);
    c.push(pos(
        "gcp-oauth-client-secret",
        format!("secret {gocspx} rotated"),
        format!("secret {r} rotated"),
    ));
    c.push(neg(
        "gcp-oauth-client-secret",
        cat(&["GOC", "SPX-", "tooShort1"]),
    ));

    // azure-storage-account-key
    let account_key = format!("{}==", rnd(B64, 86, 11));
    c.push(pos(
        "azure-storage-account-key",
        format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={account_key};EndpointSuffix=core.windows.net"),
        format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={r};EndpointSuffix=core.windows.net"),
    ));
    c.push(neg(
        "azure-storage-account-key",
        "AccountKey=abc123;AccountName=acct",
    ));

    // azure-sas-signature
    let sig = format!("{}%3D", rnd(ALNUM, 43, 12));
    c.push(pos(
        "azure-sas-signature",
        format!(
            "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2030-01-01&sig={sig}"
        ),
        format!(
            "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2030-01-01&sig={r}"
        ),
    ));
    c.push(neg(
        "azure-sas-signature",
        "https://example.org/search?q=sig&sig=abc",
    ));

    // azure-ad-client-secret
    let entra = format!("{}8Q~{}", rnd(ALNUM, 3, 13), rnd(ALNUM, 34, 14));
    c.push(pos(
        "azure-ad-client-secret",
        format!("client secret value: {entra}"),
        format!("client secret value: {r}"),
    ));
    c.push(neg(
        "azure-ad-client-secret",
        "the regex uses 8Q~ as its anchor",
    ));

    // digitalocean-token
    let dop = cat(&["do", "p_v1_", &rnd(HEX, 64, 15)]);
    c.push(pos(
        "digitalocean-token",
        format!("DIGITALOCEAN_ACCESS_TOKEN={dop}"),
        format!("DIGITALOCEAN_ACCESS_TOKEN={r}"),
    ));
    c.push(neg(
        "digitalocean-token",
        cat(&["do", "p_v1_", &rnd(HEX, 63, 16)]),
    ));

    // heroku-api-key
    let hrku = cat(&["HR", "KU-AA", &rnd(B64URL, 58, 17)]);
    c.push(pos(
        "heroku-api-key",
        format!("heroku token: {hrku}"),
        format!("heroku token: {r}"),
    ));
    c.push(neg("heroku-api-key", cat(&["HR", "KU-AA", "short"])));

    // heroku-legacy-api-key
    let heroku_uuid = uuid(18);
    c.push(pos(
        "heroku-legacy-api-key",
        format!("HEROKU_API_KEY={heroku_uuid}"),
        format!("HEROKU_API_KEY={r}"),
    ));
    c.push(neg(
        "heroku-legacy-api-key",
        format!("deployed to heroku as release {heroku_uuid}"),
    ));

    // databricks-token
    let dapi = cat(&["da", "pi", &rnd(HEX, 32, 19)]);
    c.push(pos(
        "databricks-token",
        format!("DATABRICKS_TOKEN={dapi}"),
        format!("DATABRICKS_TOKEN={r}"),
    ));
    c.push(neg(
        "databricks-token",
        "see the dapi reference for endpoints",
    ));

    // terraform-cloud-token
    let atlas = cat(&[&rnd(ALNUM, 14, 20), ".atlas", "v1.", &rnd(B64URL, 67, 21)]);
    c.push(pos(
        "terraform-cloud-token",
        format!("credentials \"app.terraform.io\" {{ token = \"{atlas}\" }}"),
        format!("credentials \"app.terraform.io\" {{ token = \"{r}\" }}"),
    ));
    c.push(neg(
        "terraform-cloud-token",
        "module.atlasv1.output is not a token",
    ));

    // pulumi-token
    let pul = cat(&["pu", "l-", &rnd(HEX, 40, 22)]);
    c.push(pos(
        "pulumi-token",
        format!("PULUMI_ACCESS_TOKEN={pul}"),
        format!("PULUMI_ACCESS_TOKEN={r}"),
    ));
    c.push(neg("pulumi-token", "git pull-request review"));

    // tailscale-key
    let tskey = cat(&[
        "ts",
        "key-auth-",
        &rnd(ALNUM, 12, 23),
        "-",
        &rnd(ALNUM, 30, 24),
    ]);
    c.push(pos(
        "tailscale-key",
        format!("tailscale up --authkey={tskey}"),
        format!("tailscale up --authkey={r}"),
    ));
    c.push(neg("tailscale-key", cat(&["ts", "key-auth-", "short-x"])));

    // github-classic-pat
    let ghp = cat(&["gh", "p_", &rnd(ALNUM, 36, 25)]);
    c.push(pos(
        "github-classic-pat",
        format!("export GITHUB_TOKEN={ghp}"),
        format!("export GITHUB_TOKEN={r}"),
    ));
    c.push(pos(
        "github-classic-pat",
        format!("token was {ghp}."),
        format!("token was {r}."),
    ));
    c.push(neg(
        "github-classic-pat",
        cat(&["gh", "p_", &rnd(ALNUM, 35, 26), " truncated"]),
    ));
    c.push(neg(
        "github-classic-pat",
        cat(&["gh", "p_", &rnd(ALNUM, 40, 27)]),
    ));

    // github-oauth-token
    let gho = cat(&["gh", "o_", &rnd(ALNUM, 36, 28)]);
    c.push(pos(
        "github-oauth-token",
        format!("Authorization: token {gho}"),
        format!("Authorization: token {r}"),
    ));
    c.push(neg("github-oauth-token", "gho_ is the OAuth prefix"));

    // github-app-token
    let ghs = cat(&["gh", "s_", &rnd(ALNUM, 36, 29)]);
    let ghu = cat(&["gh", "u_", &rnd(ALNUM, 36, 30)]);
    c.push(pos(
        "github-app-token",
        format!("git clone https://x-access-token:{ghs}@github.com/o/r.git"),
        format!("git clone https://x-access-token:{r}@github.com/o/r.git"),
    ));
    c.push(pos(
        "github-app-token",
        format!("user token {ghu}"),
        format!("user token {r}"),
    ));
    c.push(neg(
        "github-app-token",
        "ghs_ and ghu_ tokens expire after an hour",
    ));

    // github-refresh-token
    let ghr = cat(&["gh", "r_", &rnd(ALNUM, 76, 31)]);
    c.push(pos(
        "github-refresh-token",
        format!("{{\"refresh_token\": \"{ghr}\"}}"),
        format!("{{\"refresh_token\": \"{r}\"}}"),
    ));
    c.push(neg("github-refresh-token", cat(&["gh", "r_", "abc"])));

    // github-fine-grained-pat
    let gpat = cat(&[
        "git",
        "hub_pat_",
        &rnd(ALNUM, 22, 32),
        "_",
        &rnd(ALNUM, 59, 33),
    ]);
    c.push(pos(
        "github-fine-grained-pat",
        format!("GH_TOKEN='{gpat}'"),
        format!("GH_TOKEN='{r}'"),
    ));
    c.push(neg(
        "github-fine-grained-pat",
        cat(&["git", "hub_pat_", &rnd(ALNUM, 22, 34)]),
    ));

    // gitlab-pat
    let glpat = cat(&["gl", "pat-", &rnd(B64URL, 20, 35)]);
    c.push(pos(
        "gitlab-pat",
        format!("curl --header \"PRIVATE-TOKEN: {glpat}\" https://gitlab.com/api/v4/projects"),
        format!("curl --header \"PRIVATE-TOKEN: {r}\" https://gitlab.com/api/v4/projects"),
    ));
    c.push(neg("gitlab-pat", cat(&["gl", "pat-", "short"])));

    // gitlab-pipeline-trigger-token
    let glptt = cat(&["gl", "ptt-", &rnd(HEX, 40, 36)]);
    c.push(pos(
        "gitlab-pipeline-trigger-token",
        format!("curl -X POST -F token={glptt} -F ref=main"),
        format!("curl -X POST -F token={r} -F ref=main"),
    ));
    c.push(neg(
        "gitlab-pipeline-trigger-token",
        cat(&["gl", "ptt-", &rnd(HEX, 39, 37)]),
    ));

    // gitlab-token
    let gldt = cat(&["gl", "dt-", &rnd(B64URL, 20, 38)]);
    let runner = cat(&["GR134", "8941", &rnd(B64URL, 20, 39)]);
    c.push(pos(
        "gitlab-token",
        format!("deploy token {gldt}"),
        format!("deploy token {r}"),
    ));
    c.push(pos(
        "gitlab-token",
        format!("registration-token: {runner}"),
        format!("registration-token: {r}"),
    ));
    c.push(neg("gitlab-token", "gldt- tokens are for deployments"));

    // bitbucket-app-password
    let atbb = cat(&["AT", "BB", &rnd(ALNUM, 32, 40)]);
    c.push(pos(
        "bitbucket-app-password",
        format!("app password {atbb} for ci"),
        format!("app password {r} for ci"),
    ));
    c.push(neg("bitbucket-app-password", "ATBB prefix"));

    // atlassian-api-token
    let atatt = cat(&["ATA", "TT3xFfGF0", &rnd(B64URL, 180, 41)]);
    c.push(pos(
        "atlassian-api-token",
        format!("jira token {atatt}"),
        format!("jira token {r}"),
    ));
    c.push(neg("atlassian-api-token", cat(&["ATA", "TT3xFfGF0short"])));

    // npm-token
    let npm = cat(&["np", "m_", &rnd(ALNUM, 36, 42)]);
    c.push(pos(
        "npm-token",
        format!("//registry.npmjs.org/:_authToken={npm}"),
        format!("//registry.npmjs.org/:_authToken={r}"),
    ));
    c.push(neg(
        "npm-token",
        "npm_config_registry=https://registry.npmjs.org/",
    ));

    // npm-auth-setting
    c.push(neg(
        "npm-auth-setting",
        "maybe_has_http_auth = cache_maybe_has_http_auth(&url, &extra.auth);",
    ));
    c.push(neg(
        "npm-auth-setting",
        "let client_auth = ClientAuthDetails::resolve(x);",
    ));
    c.push(pos(
        "npm-auth-setting",
        "_auth=dXNlcjpzM2NyM3RQNHNz",
        format!("_auth={r}"),
    ));
    c.push(neg(
        "npm-auth-setting",
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    ));

    // pypi-token
    let pypi = cat(&["py", "pi-AgEIcHlwaS5vcmc", &rnd(B64URL, 120, 43)]);
    c.push(pos(
        "pypi-token",
        format!("[pypi]\nusername = __token__\npassword = {pypi}\n"),
        format!("[pypi]\nusername = __token__\npassword = {r}\n"),
    ));
    c.push(neg(
        "pypi-token",
        cat(&["py", "pi-AgEIcHlwaS5vcmc", "short"]),
    ));

    // rubygems-token
    let gem = cat(&["ruby", "gems_", &rnd(HEX, 48, 44)]);
    c.push(pos(
        "rubygems-token",
        format!("GEM_HOST_API_KEY: {gem}"),
        format!("GEM_HOST_API_KEY: {r}"),
    ));
    c.push(neg("rubygems-token", "rubygems_version: 3.5.0"));

    // docker-hub-token
    let dckr = cat(&["dc", "kr_pat_", &rnd(B64URL, 27, 45)]);
    c.push(pos(
        "docker-hub-token",
        format!("docker login -u me -p {dckr}"),
        format!("docker login -u me -p {r}"),
    ));
    c.push(neg("docker-hub-token", cat(&["dc", "kr_pat_", "abc"])));

    // docker-config-auth
    c.push(pos(
        "docker-config-auth",
        "{\"auths\": {\"registry.internal\": {\"auth\": \"ZGVwbG95OnM5Y3JldC1QNHNz\"}}}",
        format!("{{\"auths\": {{\"registry.internal\": {{\"auth\": \"{r}\"}}}}}}"),
    ));
    c.push(neg(
        "docker-config-auth",
        "{\"auth\": true, \"author\": \"Ada Lovelace\"}",
    ));

    // docker-config-json
    let dockerconfig = rnd(B64, 120, 46);
    c.push(pos(
        "docker-config-json",
        format!("data:\n  .dockerconfigjson: {dockerconfig}\n"),
        format!("data:\n  .dockerconfigjson: {r}\n"),
    ));
    c.push(neg(
        "docker-config-json",
        "type: kubernetes.io/dockerconfigjson",
    ));

    // vault-token
    let hvs = cat(&["hv", "s.", &rnd(B64URL, 95, 47)]);
    c.push(pos(
        "vault-token",
        format!("VAULT_TOKEN={hvs}"),
        format!("VAULT_TOKEN={r}"),
    ));
    c.push(neg("vault-token", "hvs.short"));

    // doppler-token
    let doppler = cat(&["dp", ".pt.", &rnd(ALNUM, 43, 48)]);
    c.push(pos(
        "doppler-token",
        format!("doppler token {doppler}"),
        format!("doppler token {r}"),
    ));
    c.push(neg("doppler-token", "dp.pt.abc"));

    // age-secret-key
    let age = cat(&["AGE-SECRET", "-KEY-1", &rnd(BECH32_UPPER, 58, 49)]);
    c.push(pos(
        "age-secret-key",
        format!("# created: 2024-01-01\n{age}\n"),
        format!("# created: 2024-01-01\n{r}\n"),
    ));
    c.push(neg(
        "age-secret-key",
        "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    ));

    // onepassword-service-account-token
    let ops = cat(&["op", "s_eyJ", &rnd(B64URL, 300, 50)]);
    c.push(pos(
        "onepassword-service-account-token",
        format!("OP_SERVICE_ACCOUNT_TOKEN={ops}"),
        format!("OP_SERVICE_ACCOUNT_TOKEN={r}"),
    ));
    c.push(neg(
        "onepassword-service-account-token",
        cat(&["op", "s_eyJ", "short"]),
    ));

    // slack-token
    let xoxb = cat(&[
        "xo",
        "xb-",
        &rnd(DIGITS, 11, 51),
        "-",
        &rnd(DIGITS, 13, 52),
        "-",
        &rnd(ALNUM, 24, 53),
    ]);
    c.push(pos(
        "slack-token",
        format!("SLACK_BOT_TOKEN={xoxb}"),
        format!("SLACK_BOT_TOKEN={r}"),
    ));
    c.push(neg(
        "slack-token",
        cat(&["SLACK_BOT_TOKEN=xo", "xb-your-token"]),
    ));

    // slack-app-token
    let xapp = cat(&[
        "xa",
        "pp-1-A",
        &rnd(UPPER_ALNUM, 10, 54),
        "-",
        &rnd(DIGITS, 13, 55),
        "-",
        &rnd(HEX, 64, 56),
    ]);
    c.push(pos(
        "slack-app-token",
        format!("socket mode token {xapp}"),
        format!("socket mode token {r}"),
    ));
    c.push(neg("slack-app-token", "xapp-1-short"));

    // slack-webhook-url
    let hook_path = format!(
        "T{}/B{}/{}",
        rnd(UPPER_ALNUM, 8, 57),
        rnd(UPPER_ALNUM, 8, 58),
        rnd(ALNUM, 24, 59)
    );
    c.push(pos(
        "slack-webhook-url",
        format!("curl -X POST https://hooks.slack.com/services/{hook_path} -d @msg.json"),
        format!("curl -X POST https://hooks.slack.com/services/{r} -d @msg.json"),
    ));
    c.push(neg(
        "slack-webhook-url",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ));

    // discord-bot-token
    let discord = format!(
        "M{}.{}.{}",
        rnd(B64URL, 25, 60),
        rnd(B64URL, 6, 61),
        rnd(B64URL, 38, 62)
    );
    c.push(pos(
        "discord-bot-token",
        format!("DISCORD_BOT_TOKEN={discord}"),
        format!("DISCORD_BOT_TOKEN={r}"),
    ));
    c.push(neg(
        "discord-bot-token",
        "discord: https://discord.gg/rust-lang",
    ));

    // discord-webhook-url
    let discord_hook = rnd(B64URL, 68, 63);
    c.push(pos(
        "discord-webhook-url",
        format!(
            "https://discord.com/api/webhooks/{}/{discord_hook}",
            rnd(DIGITS, 18, 64)
        ),
        format!(
            "https://discord.com/api/webhooks/{}/{r}",
            rnd(DIGITS, 18, 64)
        ),
    ));
    c.push(neg(
        "discord-webhook-url",
        "https://discord.com/api/webhooks/{id}/{token}",
    ));

    // telegram-bot-token
    let telegram = format!("{}:AA{}", rnd(DIGITS, 10, 65), rnd(B64URL, 33, 66));
    c.push(pos(
        "telegram-bot-token",
        format!("https://api.telegram.org/bot{telegram}/sendMessage"),
        format!("https://api.telegram.org/bot{r}/sendMessage"),
    ));
    c.push(neg(
        "telegram-bot-token",
        "at 12:00 AA batteries were sold out",
    ));

    // twilio-credential
    let twilio = rnd(HEX, 32, 67);
    c.push(pos(
        "twilio-credential",
        format!("TWILIO_AUTH_TOKEN={twilio}"),
        format!("TWILIO_AUTH_TOKEN={r}"),
    ));
    c.push(neg(
        "twilio-credential",
        format!("TWILIO_ACCOUNT_SID=AC{}", rnd(HEX, 32, 68)),
    ));

    // sendgrid-api-key
    let sendgrid = cat(&["S", "G.", &rnd(B64URL, 22, 69), ".", &rnd(B64URL, 43, 70)]);
    c.push(pos(
        "sendgrid-api-key",
        format!("sg = SendGridAPIClient('{sendgrid}')"),
        format!("sg = SendGridAPIClient('{r}')"),
    ));
    c.push(neg("sendgrid-api-key", "msg.content = SG.render(x)"));

    // mailgun-api-key
    let mailgun = cat(&["ke", "y-", &rnd(HEX, 32, 71)]);
    c.push(pos(
        "mailgun-api-key",
        format!("auth=('api', '{mailgun}')"),
        format!("auth=('api', '{r}')"),
    ));
    c.push(neg("mailgun-api-key", "a key-value store"));

    // mailchimp-api-key
    let mailchimp = format!("{}-us21", rnd(HEX, 32, 72));
    c.push(pos(
        "mailchimp-api-key",
        format!("client.set_config({{\"api_key\": \"{mailchimp}\"}})"),
        format!("client.set_config({{\"api_key\": \"{r}\"}})"),
    ));
    c.push(neg("mailchimp-api-key", "run with --user-us21"));

    // shopify-token
    let shopify = cat(&["sh", "pat_", &rnd(HEX, 32, 73)]);
    c.push(pos(
        "shopify-token",
        format!("X-Shopify-Access-Token: {shopify}"),
        format!("X-Shopify-Access-Token: {r}"),
    ));
    c.push(neg("shopify-token", "shpat_ tokens are for custom apps"));

    // linear-api-key
    let linear = cat(&["lin", "_api_", &rnd(ALNUM, 40, 74)]);
    c.push(pos(
        "linear-api-key",
        format!("LINEAR_API_KEY={linear}"),
        format!("LINEAR_API_KEY={r}"),
    ));
    c.push(neg("linear-api-key", "lin_api_ prefix"));

    // notion-token
    let ntn = cat(&["nt", "n_", &rnd(ALNUM, 46, 75)]);
    let notion_legacy = cat(&["sec", "ret_", &rnd(ALNUM, 43, 76)]);
    c.push(pos(
        "notion-token",
        format!("notion = Client(auth=\"{ntn}\")"),
        format!("notion = Client(auth=\"{r}\")"),
    ));
    c.push(pos(
        "notion-token",
        format!("integration {notion_legacy}"),
        format!("integration {r}"),
    ));
    c.push(neg("notion-token", "let secret_len = secret_bytes.len();"));

    // postman-api-key
    let pmak = cat(&["PM", "AK-", &rnd(HEX, 24, 77), "-", &rnd(HEX, 34, 78)]);
    c.push(pos(
        "postman-api-key",
        format!("postman key {pmak}"),
        format!("postman key {r}"),
    ));
    c.push(neg("postman-api-key", "PMAK-abc"));

    // stripe-secret-key
    let sk_live = cat(&["sk", "_live_", &rnd(ALNUM, 24, 79)]);
    let sk_test = cat(&["sk", "_test_", &rnd(ALNUM, 99, 80)]);
    c.push(pos(
        "stripe-secret-key",
        format!("stripe.api_key = \"{sk_live}\""),
        format!("stripe.api_key = \"{r}\""),
    ));
    c.push(pos(
        "stripe-secret-key",
        format!("curl https://api.stripe.com/v1/charges -u {sk_test}:"),
        format!("curl https://api.stripe.com/v1/charges -u {r}:"),
    ));
    c.push(neg("stripe-secret-key", cat(&["sk", "_live_", "short"])));

    // stripe-restricted-key
    let rk = cat(&["rk", "_live_", &rnd(ALNUM, 24, 81)]);
    c.push(pos(
        "stripe-restricted-key",
        format!("restricted {rk}"),
        format!("restricted {r}"),
    ));
    c.push(neg("stripe-restricted-key", "rk_live_ keys are scoped"));

    // stripe-webhook-secret
    let whsec = cat(&["wh", "sec_", &rnd(ALNUM, 32, 82)]);
    c.push(pos(
        "stripe-webhook-secret",
        format!("STRIPE_WEBHOOK_SECRET={whsec}"),
        format!("STRIPE_WEBHOOK_SECRET={r}"),
    ));
    c.push(neg("stripe-webhook-secret", "whsec_ prefix"));

    // square-token
    let eaaa = cat(&["EA", "AA", &rnd(B64URL, 60, 83)]);
    let sq0csp = cat(&["sq0", "csp-", &rnd(B64URL, 43, 84)]);
    c.push(pos(
        "square-token",
        format!("square access token {eaaa}"),
        format!("square access token {r}"),
    ));
    c.push(pos(
        "square-token",
        format!("oauth secret {sq0csp}"),
        format!("oauth secret {r}"),
    ));
    c.push(neg("square-token", "EAAA prefix"));

    // openai-api-key
    let proj = cat(&["sk", "-proj-", &rnd(B64URL, 156, 85)]);
    let legacy = cat(&[
        "sk",
        "-",
        &rnd(ALNUM, 20, 86),
        "T3Blbk",
        "FJ",
        &rnd(ALNUM, 20, 87),
    ]);
    c.push(pos(
        "openai-api-key",
        format!("OPENAI_API_KEY={proj}"),
        format!("OPENAI_API_KEY={r}"),
    ));
    c.push(pos(
        "openai-api-key",
        format!("openai.api_key = '{legacy}'"),
        format!("openai.api_key = '{r}'"),
    ));
    c.push(neg("openai-api-key", cat(&["sk", "-proj-abc"])));

    // anthropic-api-key
    let ant = cat(&["sk", "-ant-api03-", &rnd(B64URL, 93, 88), "AA"]);
    c.push(pos(
        "anthropic-api-key",
        format!("x-api-key: {ant}"),
        format!("x-api-key: {r}"),
    ));
    c.push(neg("anthropic-api-key", cat(&["sk", "-ant-api03-short"])));

    // openrouter-api-key
    let openrouter = cat(&["sk", "-or-v1-", &rnd(HEX, 64, 89)]);
    c.push(pos(
        "openrouter-api-key",
        format!("router key {openrouter}"),
        format!("router key {r}"),
    ));
    c.push(neg(
        "openrouter-api-key",
        cat(&["sk", "-or-v1-", &rnd(HEX, 10, 90)]),
    ));

    // groq-api-key
    let groq = cat(&["gs", "k_", &rnd(ALNUM, 52, 91)]);
    c.push(pos(
        "groq-api-key",
        format!("GROQ_API_KEY={groq}"),
        format!("GROQ_API_KEY={r}"),
    ));
    c.push(neg("groq-api-key", "gsk_ keys"));

    // huggingface-token
    let hf = cat(&["h", "f_", &rnd(ALNUM, 34, 92)]);
    let hf_org = cat(&["api", "_org_", &rnd(ALNUM, 34, 93)]);
    c.push(pos(
        "huggingface-token",
        format!("huggingface-cli login --token {hf}"),
        format!("huggingface-cli login --token {r}"),
    ));
    c.push(pos(
        "huggingface-token",
        format!("org token {hf_org}"),
        format!("org token {r}"),
    ));
    c.push(neg(
        "huggingface-token",
        "model = load(cfg.hf_model_name_or_path_for_tokenizer)",
    ));

    // replicate-api-token
    let r8 = cat(&["r", "8_", &rnd(ALNUM, 37, 94)]);
    c.push(pos(
        "replicate-api-token",
        format!("REPLICATE_API_TOKEN={r8}"),
        format!("REPLICATE_API_TOKEN={r}"),
    ));
    c.push(neg("replicate-api-token", "r8_ prefix"));

    // xai-api-key
    let xai = cat(&["xa", "i-", &rnd(ALNUM, 80, 95)]);
    c.push(pos(
        "xai-api-key",
        format!("grok key {xai}"),
        format!("grok key {r}"),
    ));
    c.push(neg("xai-api-key", "xai-sdk 1.2.0"));

    // perplexity-api-key
    let pplx = cat(&["pp", "lx-", &rnd(ALNUM, 48, 96)]);
    c.push(pos(
        "perplexity-api-key",
        format!("key {pplx}"),
        format!("key {r}"),
    ));
    c.push(neg("perplexity-api-key", "pplx-7b-online"));

    // mistral-api-key
    let mistral = rnd(ALNUM, 32, 97);
    c.push(pos(
        "mistral-api-key",
        format!("MISTRAL_API_KEY={mistral}"),
        format!("MISTRAL_API_KEY={r}"),
    ));
    c.push(neg("mistral-api-key", "model: mistral-large-2411"));

    // cohere-api-key
    let cohere = rnd(ALNUM, 40, 98);
    c.push(pos(
        "cohere-api-key",
        format!("CO_API_KEY={cohere}"),
        format!("CO_API_KEY={r}"),
    ));
    c.push(neg("cohere-api-key", "the cohere rerank endpoint"));

    // sentry-token
    let sntryu = cat(&["sntr", "yu_", &rnd(HEX, 64, 99)]);
    c.push(pos(
        "sentry-token",
        format!("SENTRY_AUTH_TOKEN={sntryu}"),
        format!("SENTRY_AUTH_TOKEN={r}"),
    ));
    c.push(neg("sentry-token", "sntryu_ prefix"));

    // new-relic-key
    let nrak = cat(&["NR", "AK-", &rnd(UPPER_ALNUM, 27, 100)]);
    c.push(pos(
        "new-relic-key",
        format!("NEW_RELIC_API_KEY={nrak}"),
        format!("NEW_RELIC_API_KEY={r}"),
    ));
    c.push(neg("new-relic-key", "NRAK-short"));

    // grafana-token
    let glsa = cat(&["gl", "sa_", &rnd(ALNUM, 32, 101), "_", &rnd(HEX, 8, 102)]);
    c.push(pos(
        "grafana-token",
        format!("grafana sa token {glsa}"),
        format!("grafana sa token {r}"),
    ));
    c.push(neg("grafana-token", "glsa_ prefix"));

    // datadog-key
    let dd = rnd(HEX, 32, 103);
    c.push(pos(
        "datadog-key",
        format!("DD_API_KEY={dd}"),
        format!("DD_API_KEY={r}"),
    ));
    c.push(neg("datadog-key", "datadog: enabled"));

    // openssh-private-key
    let ssh_body = armor_body(4, 104, "\n");
    c.push(pos(
        "openssh-private-key",
        format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{ssh_body}\n-----END OPENSSH PRIVATE KEY-----\n"
        ),
        format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{r}\n-----END OPENSSH PRIVATE KEY-----\n"),
    ));
    c.push(neg("openssh-private-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host"));

    // private-key-block
    let rsa = armor_body(6, 110, "\n");
    c.push(pos(
        "private-key-block",
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\r\n{}\r\n-----END RSA PRIVATE KEY-----",
            rsa.replace('\n', "\r\n")
        ),
        format!("-----BEGIN RSA PRIVATE KEY-----\r\n{r}\r\n-----END RSA PRIVATE KEY-----"),
    ));
    let ec = armor_body(2, 120, "\n");
    c.push(pos(
        "private-key-block",
        format!("key:\n-----BEGIN EC PRIVATE KEY-----\n{ec}\n-----END EC PRIVATE KEY-----\ndone"),
        format!("key:\n-----BEGIN EC PRIVATE KEY-----\n{r}\n-----END EC PRIVATE KEY-----\ndone"),
    ));
    let pkcs8 = armor_body(3, 130, "\n");
    c.push(pos(
        "private-key-block",
        format!(
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\n{pkcs8}\n-----END ENCRYPTED PRIVATE KEY-----"
        ),
        format!("-----BEGIN ENCRYPTED PRIVATE KEY-----\n{r}\n-----END ENCRYPTED PRIVATE KEY-----"),
    ));
    let legacy_enc = armor_body(3, 140, "\n");
    c.push(pos(
        "private-key-block",
        format!(
            "-----BEGIN DSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n{legacy_enc}\n-----END DSA PRIVATE KEY-----",
            rnd("0123456789ABCDEF", 32, 141)
        ),
        format!("-----BEGIN DSA PRIVATE KEY-----\n{r}\n-----END DSA PRIVATE KEY-----"),
    ));
    let pgp = armor_body(3, 150, "\n");
    c.push(pos(
        "private-key-block",
        format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{pgp}\n=Ab3x\n-----END PGP PRIVATE KEY BLOCK-----"),
        format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{r}\n-----END PGP PRIVATE KEY BLOCK-----"),
    ));
    c.push(neg(
        "private-key-block",
        "if line.starts_with(\"-----BEGIN RSA PRIVATE KEY-----\") { return Kind::Rsa; }\n// the END marker is -----END RSA PRIVATE KEY-----",
    ));
    c.push(neg(
        "private-key-block",
        format!(
            "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
            armor_body(2, 160, "\n")
        ),
    ));

    // jwt
    let jwt = cat(&[
        "ey",
        "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.ey",
        "JzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ.",
        &rnd(B64URL, 43, 170),
    ]);
    c.push(pos(
        "jwt",
        format!("id_token={jwt}&state=xyz"),
        format!("id_token={r}&state=xyz"),
    ));
    c.push(pos("jwt", format!("Bearer {jwt}"), format!("Bearer {r}")));
    c.push(neg(
        "jwt",
        "{\"alg\": \"none\"} encodes to eyJhbGciOiJub25lIn0 and has no signature",
    ));

    // url-password
    c.push(neg(
        "url-password",
        "cvs://:pserver:anoncvs@sources.redhat.com:/cvs/src",
    ));
    c.push(neg(
        "url-password",
        "// Prints https://abc:123@example.com/",
    ));
    c.push(neg(
        "url-password",
        "let m = Proxy::all(\"http://letme:in@yo.local\");",
    ));
    c.push(neg(
        "url-password",
        ".all(\"https://Aladdin:opensesame@localhost:8887\")",
    ));
    c.push(pos(
        "url-password",
        "DATABASE_URL=postgres://app:Zq8mV2pL9x@db.internal:5432/app",
        format!("DATABASE_URL=postgres://app:{r}@db.internal:5432/app"),
    ));
    c.push(pos(
        "url-password",
        "redis://:s3cr3tPw@cache:6379/0",
        format!("redis://:{r}@cache:6379/0"),
    ));
    c.push(neg(
        "url-password",
        "postgres://user:password@localhost:5432/db",
    ));
    c.push(neg(
        "url-password",
        "see http://localhost:8080/api@v2 and https://example.com:443/x",
    ));
    c.push(neg(
        "url-password",
        "fmt.Sprintf(\"postgres://%s:%s@%s/%s\", user, pass, host, db)",
    ));

    // curl-user-password
    c.push(pos(
        "curl-user-password",
        "curl -u admin:Tr0ub4dor3 https://api.internal/v1",
        format!("curl -u admin:{r} https://api.internal/v1"),
    ));
    c.push(neg(
        "curl-user-password",
        "curl -u \"$USER:$PASS\" https://api.internal/v1",
    ));
    c.push(neg(
        "curl-user-password",
        "docker run -u 1000:1000 alpine id",
    ));

    // netrc-password
    c.push(pos(
        "netrc-password",
        "machine api.github.com login octocat password Xk9mP2vQ7rT4",
        format!("machine api.github.com login octocat password {r}"),
    ));
    c.push(neg(
        "netrc-password",
        "machine example.org login me password PASSWORD",
    ));
    c.push(neg(
        "netrc-password",
        "let netrc = \"machine example.org login me password PASSWORD\";",
    ));

    // http-auth-header
    let bearer = rnd(ALNUM, 40, 180);
    c.push(pos(
        "http-auth-header",
        format!("-H 'Authorization: Bearer {bearer}'"),
        format!("-H 'Authorization: Bearer {r}'"),
    ));
    c.push(pos(
        "http-auth-header",
        "Authorization: Basic dXNlcjpzM2NyM3RQNHNz",
        format!("Authorization: Basic {r}"),
    ));
    c.push(neg("http-auth-header", "Authorization: Bearer ${TOKEN}"));
    c.push(neg("http-auth-header", "Authorization: Bearer <token>"));
    c.push(neg(
        "http-auth-header",
        ".header(\"Authorization\", format!(\"Bearer {token}\"))",
    ));

    // generic-quoted-assignment
    c.push(neg(
        "generic-quoted-assignment",
        "{\"username\": \"\", \"password\": \"foo(b%5Dc\"}",
    ));
    c.push(pos(
        "generic-quoted-assignment",
        "db_password = \"Zq8#mV2!pL\"",
        format!("db_password = \"{r}\""),
    ));
    c.push(pos(
        "generic-quoted-assignment",
        "{\"client_secret\": \"9f8e7d6c5b4a3f2e\"}",
        format!("{{\"client_secret\": \"{r}\"}}"),
    ));
    c.push(pos(
        "generic-quoted-assignment",
        "const apiKey = 'k3y_9Xq2Lm8Pz4';",
        format!("const apiKey = '{r}';"),
    ));
    c.push(neg("generic-quoted-assignment", "password = \"password\""));
    c.push(neg("generic-quoted-assignment", "token = \"${TOKEN}\""));
    c.push(neg(
        "generic-quoted-assignment",
        "secret: \"{}\",\ntoken_type = \"bearer\"",
    ));
    c.push(neg(
        "generic-quoted-assignment",
        "if token == \"abc123def456\" { return; }",
    ));

    // generic-env-assignment
    c.push(neg(
        "generic-env-assignment",
        "check_body(b\"username=user&password=secure%20password\").await;",
    ));
    c.push(pos(
        "generic-env-assignment",
        "DB_PASSWORD=Zq8mV2pL9x ./run.sh",
        format!("DB_PASSWORD={r} ./run.sh"),
    ));
    c.push(pos(
        "generic-env-assignment",
        "GET /cb?access_token=a1b2c3d4e5f6&state=ok",
        format!("GET /cb?access_token={r}&state=ok"),
    ));
    c.push(neg(
        "generic-env-assignment",
        "API_TOKEN=$(cat token.txt) make deploy",
    ));
    c.push(neg("generic-env-assignment", "login(user, password=pw_v2)"));

    // generic-line-assignment
    c.push(pos(
        "generic-line-assignment",
        "db:\n  user: app\n  password: Zq8mV2pL9x\n",
        format!("db:\n  user: app\n  password: {r}\n"),
    ));
    c.push(pos(
        "generic-line-assignment",
        "[auth]\nsecret_key = 7f3k9LmQ2x # rotated\n",
        format!("[auth]\nsecret_key = {r} # rotated\n"),
    ));
    c.push(neg(
        "generic-line-assignment",
        "password: ${DB_PASSWORD}\ntoken: Token,\nsecret = config.secret_v2",
    ));

    // generic-cli-flag
    c.push(pos(
        "generic-cli-flag",
        "mysql --password Zq8mV2pL9x -h db",
        format!("mysql --password {r} -h db"),
    ));
    c.push(pos(
        "generic-cli-flag",
        "deploy --api-key Q2xLm9Pz7Wk4 --yes",
        format!("deploy --api-key {r} --yes"),
    ));
    c.push(neg(
        "generic-cli-flag",
        "docker login --password-stdin < pw.txt",
    ));
    c.push(neg(
        "generic-cli-flag",
        "tool --token <TOKEN> --secret-file ./s.txt",
    ));

    c
}
