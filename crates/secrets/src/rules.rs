//! The rule table, written from vendors' public token formats.
//!
//! Order is priority: vendor rules come first so that when a key-name rule (`token=…`) and a
//! vendor rule find the same span, the finding names the vendor. Patterns are plain `regex`
//! syntax (no look-around): a boundary is matched as a character outside the `secret` group,
//! and the engine resumes after the secret so that character can start the next match.
//! Character classes are ASCII wherever the format is ASCII.
//!
//! Every match of a rule must contain one of its keywords (ASCII case-insensitively): the
//! engine only looks near keyword occurrences. Tests check this over the corpus.

use crate::{Anchor, Assignment, Rule, ValueCheck};

/// Start of text or a character that cannot continue an alphanumeric token.
macro_rules! lb {
    () => {
        r"(?:^|[^0-9A-Za-z])"
    };
}

/// End of text or a character that cannot continue an alphanumeric token.
macro_rules! rb {
    () => {
        r"(?:[^0-9A-Za-z]|$)"
    };
}

/// End of text or a character that cannot continue a base64url token.
macro_rules! rb_url {
    () => {
        r"(?:[^0-9A-Za-z_-]|$)"
    };
}

/// A vendor token with an alphanumeric tail, standing alone.
macro_rules! alnum_token {
    ($body:literal) => {
        concat!(lb!(), "(?P<secret>", $body, ")", rb!())
    };
}

/// A vendor token whose tail may contain `_` and `-`, standing alone.
macro_rules! url_token {
    ($body:literal) => {
        concat!(lb!(), "(?P<secret>", $body, ")", rb_url!())
    };
}

/// A value of shape `$body` assigned to a name that mentions `$vendor` (`MISTRAL_API_KEY=…`,
/// `"twilio_auth_token": "…"`), for vendors whose tokens carry no prefix.
macro_rules! contextual {
    ($vendor:literal, $body:literal) => {
        concat!(
            "(?i-u:",
            $vendor,
            r#")[0-9A-Za-z_.-]{0,32}(?:\\?["'])?[ \t]{0,8}(?::=|=>|[:=])[ \t]{0,8}(?:\\?["'`])?(?P<secret>"#,
            $body,
            ")",
            rb_url!()
        )
    };
}

/// Key names that hold secrets. The name must end with one of these (`db_password`,
/// `GITHUB_TOKEN`, `clientSecret`, `x-api-key`), so `token_type` or `password_field` do not count.
macro_rules! secret_names {
    () => {
        r"(?i-u:pass(?:word|wd|phrase)|secret|token|credentials?|(?:api|access|secret|private|auth|encryption|signing|master)[_-]?key)"
    };
}

/// Keywords covering every spelling `secret_names!` matches.
const SECRET_NAME_KEYWORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "apikey",
    "api_key",
    "api-key",
    "accesskey",
    "access_key",
    "access-key",
    "privatekey",
    "private_key",
    "private-key",
    "authkey",
    "auth_key",
    "auth-key",
    "encryptionkey",
    "encryption_key",
    "encryption-key",
    "signingkey",
    "signing_key",
    "signing-key",
    "masterkey",
    "master_key",
    "master-key",
];

/// A PEM-style armoured private key; only the body between the armour lines is replaced.
/// Newlines may be real or JSON-escaped (`\n`), as in a service-account key file.
macro_rules! armored_key {
    ($label:literal) => {
        concat!(
            "-----BEGIN ",
            $label,
            r"-----(?:[ \t\r]*(?:\n|\\n|\\r))*(?P<secret>[A-Za-z0-9+/=](?:[A-Za-z0-9+/=: \t\r\n,.-]|\\[nr]){30,}?[A-Za-z0-9+/=])(?:[ \t\r]*(?:\n|\\n|\\r))*-----END ",
            $label,
            "-----"
        )
    };
}

/// Longest armoured key block we look for (an RSA-16384 PKCS#8 key is about 13 KiB).
const ARMOR_MAX: usize = 32 * 1024;

/// The built-in rules, in priority order.
pub(crate) static RULES: &[Rule] = &[
    // ---- Cloud providers -------------------------------------------------------------------
    Rule::token(
        "aws-access-key-id",
        "AWS access key id (long-term AKIA…, temporary ASIA…, ABIA…, ACCA…)",
        &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
        alnum_token!(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    ),
    Rule::token(
        "aws-secret-access-key",
        "AWS secret access key assigned to an `aws_secret_access_key`-like name",
        &[
            "secret_access_key",
            "secretaccesskey",
            "secret-access-key",
            "aws_secret_key",
            "awssecretkey",
        ],
        r#"(?i-u:secret_access_key|secretaccesskey|secret-access-key|aws_secret_key|awssecretkey)(?:\\?["'])?[ \t]{0,8}(?::=|=>|[:=])[ \t]{0,8}(?:\\?["'`])?(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "gcp-service-account-key-id",
        "Google Cloud service-account key file: the `private_key_id` field",
        &["\"private_key_id"],
        r#""private_key_id\\?"[ \t]{0,8}:[ \t]{0,8}\\?"(?P<secret>[0-9a-f]{40})\\?""#,
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "gcp-service-account-private-key",
        "Google Cloud service-account key file: the PEM body of the `private_key` field",
        &["\"private_key"],
        r#""private_key\\?"[ \t]{0,8}:[ \t]{0,8}\\?"-----BEGIN PRIVATE KEY-----(?:\\n)*(?P<secret>[A-Za-z0-9+/=](?:[A-Za-z0-9+/=]|\\n){30,}?[A-Za-z0-9+/=])(?:\\n)*-----END PRIVATE KEY-----"#,
    )
    .check(ValueCheck::Any)
    .max_len(ARMOR_MAX)
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "gcp-api-key",
        "Google API key (Maps, Firebase, Gemini, …): AIza…",
        &["AIza"],
        url_token!(r"AIza[0-9A-Za-z_-]{35}"),
    ),
    Rule::token(
        "gcp-oauth-client-secret",
        "Google OAuth client secret: GOCSPX-…",
        &["GOCSPX-"],
        url_token!(r"GOCSPX-[0-9A-Za-z_-]{28}"),
    ),
    Rule::token(
        "azure-storage-account-key",
        "Azure storage account / Service Bus key in a connection string (`AccountKey=`, `SharedAccessKey=`)",
        &["accountkey=", "sharedaccesskey="],
        r"(?i-u:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/]{40,100}={0,2})(?:[^A-Za-z0-9+/=]|$)",
    )
    .anchor(Anchor::Keyword),
    Rule::token(
        "azure-sas-signature",
        "Azure shared access signature: the `sig=` parameter of a SAS URL or token",
        &["sig="],
        r"(?i-u:[?&;]sig=)(?P<secret>[A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})(?:[^A-Za-z0-9%+/=]|$)",
    ),
    Rule::token(
        "azure-ad-client-secret",
        "Microsoft Entra ID (Azure AD) application client secret: …8Q~…",
        &["Q~"],
        concat!(
            lb!(),
            r"(?P<secret>[0-9A-Za-z_~.]{3}[0-9]Q~[0-9A-Za-z_~.-]{31,34})(?:[^0-9A-Za-z_~.-]|$)"
        ),
    ),
    Rule::token(
        "digitalocean-token",
        "DigitalOcean personal access / OAuth / refresh token: dop_v1_, doo_v1_, dor_v1_",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        alnum_token!(r"do[opr]_v1_[0-9a-f]{64}"),
    ),
    Rule::token(
        "heroku-api-key",
        "Heroku API key: HRKU-AA…",
        &["HRKU-AA"],
        url_token!(r"HRKU-AA[0-9A-Za-z_-]{58}"),
    ),
    Rule::token(
        "heroku-legacy-api-key",
        "Heroku legacy (UUID) API key assigned to a name mentioning heroku",
        &["heroku"],
        contextual!(
            "heroku",
            r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
        ),
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "databricks-token",
        "Databricks personal access token: dapi…",
        &["dapi"],
        alnum_token!(r"dapi[0-9a-f]{32}(?:-[0-9])?"),
    ),
    Rule::token(
        "terraform-cloud-token",
        "Terraform Cloud / Enterprise API token: ….atlasv1.…",
        &["atlasv1."],
        url_token!(r"[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z_=-]{60,70}"),
    ),
    Rule::token(
        "pulumi-token",
        "Pulumi access token: pul-…",
        &["pul-"],
        alnum_token!(r"pul-[0-9a-f]{40}"),
    ),
    Rule::token(
        "tailscale-key",
        "Tailscale auth / API / OAuth client key: tskey-…",
        &["tskey-"],
        alnum_token!(r"tskey-(?:auth|api|client|scim|webhook)-[0-9A-Za-z]{8,30}-[0-9A-Za-z]{20,80}"),
    ),
    // ---- Source hosting and CI -------------------------------------------------------------
    Rule::token(
        "github-classic-pat",
        "GitHub personal access token (classic): ghp_…",
        &["ghp_"],
        alnum_token!(r"ghp_[0-9A-Za-z]{36}"),
    ),
    Rule::token(
        "github-oauth-token",
        "GitHub OAuth access token: gho_…",
        &["gho_"],
        alnum_token!(r"gho_[0-9A-Za-z]{36}"),
    ),
    Rule::token(
        "github-app-token",
        "GitHub App user-to-server or installation token: ghu_…, ghs_…",
        &["ghu_", "ghs_"],
        alnum_token!(r"gh[us]_[0-9A-Za-z]{36}"),
    ),
    Rule::token(
        "github-refresh-token",
        "GitHub refresh token: ghr_…",
        &["ghr_"],
        alnum_token!(r"ghr_[0-9A-Za-z]{36,76}"),
    ),
    Rule::token(
        "github-fine-grained-pat",
        "GitHub fine-grained personal access token: github_pat_…",
        &["github_pat_"],
        alnum_token!(r"github_pat_[0-9A-Za-z]{22}_[0-9A-Za-z]{59}"),
    ),
    Rule::token(
        "gitlab-pat",
        "GitLab personal, project or group access token: glpat-…",
        &["glpat-"],
        url_token!(r"glpat-[0-9A-Za-z_-]{20,300}(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9}|\.[0-9a-z]{9})?"),
    ),
    Rule::token(
        "gitlab-pipeline-trigger-token",
        "GitLab pipeline trigger token: glptt-…",
        &["glptt-"],
        alnum_token!(r"glptt-[0-9a-f]{40}"),
    ),
    Rule::token(
        "gitlab-token",
        "Other GitLab tokens: deploy (gldt-), runner (glrt-, GR1348941), feed (glft-), CI job (glcbt-), OAuth app (gloas-), agent (glagent-), SCIM (glsoat-), feature flags (glffct-), incoming mail (glimt-)",
        &[
            "gldt-",
            "glrt-",
            "glft-",
            "glsoat-",
            "glffct-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glcbt-",
            "GR1348941",
        ],
        url_token!(
            r"(?:(?:gldt|glrt|glft|glsoat|glffct)-[0-9A-Za-z_-]{20,64}|glimt-[0-9A-Za-z_-]{25}|glagent-[0-9A-Za-z_-]{50}|gloas-[0-9A-Za-z_-]{64}|glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_-]{20}|GR1348941[0-9A-Za-z_-]{20})"
        ),
    ),
    Rule::token(
        "bitbucket-app-password",
        "Bitbucket app password: ATBB…",
        &["ATBB"],
        url_token!(r"ATBB[0-9A-Za-z_=.-]{24,100}"),
    ),
    Rule::token(
        "atlassian-api-token",
        "Atlassian / Bitbucket API and access tokens: ATATT3…, ATCTT3…, ATSTT3…",
        &["ATATT3", "ATCTT3", "ATSTT3"],
        url_token!(r"AT[ACS]TT3[0-9A-Za-z_=-]{50,300}"),
    ),
    Rule::token(
        "npm-token",
        "npm access token: npm_…",
        &["npm_"],
        alnum_token!(r"npm_[0-9A-Za-z]{36}"),
    ),
    Rule::token(
        "npm-auth-setting",
        "`_auth` / `_authToken` in an .npmrc",
        &["_auth"],
        r#"(?i-u:_auth(?:token)?)[ \t]{0,8}=[ \t]{0,8}(?P<secret>[A-Za-z0-9+/=_.~-]{8,512})(?:[\s"'`;,]|$)"#,
    )
    .check(ValueCheck::Bare)
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "pypi-token",
        "PyPI / TestPyPI upload token: pypi-AgEIcHlwaS5vcmc…",
        &["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"],
        url_token!(r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[0-9A-Za-z_-]{50,}"),
    )
    .max_len(2048),
    Rule::token(
        "rubygems-token",
        "RubyGems API key: rubygems_…",
        &["rubygems_"],
        alnum_token!(r"rubygems_[0-9a-f]{48}"),
    ),
    Rule::token(
        "docker-hub-token",
        "Docker Hub personal or organisation access token: dckr_pat_…, dckr_oat_…",
        &["dckr_pat_", "dckr_oat_"],
        url_token!(r"dckr_(?:pat|oat)_[0-9A-Za-z_-]{27,64}"),
    ),
    Rule::token(
        "docker-config-auth",
        "Registry credentials in a Docker config.json: the base64 `auth` field",
        &["\"auth"],
        r#""auth\\?"[ \t]{0,8}:[ \t]{0,8}\\?"(?P<secret>[A-Za-z0-9+/]{8,1024}={0,2})\\?""#,
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "docker-config-json",
        "Kubernetes image-pull secret: base64 `.dockerconfigjson` / `.dockercfg`",
        &["dockerconfigjson", "dockercfg"],
        r#"(?i-u:dockerconfigjson|dockercfg)["']?[ \t]{0,8}:[ \t]{0,8}["']?(?P<secret>[A-Za-z0-9+/]{16,}={0,2})"#,
    )
    .max_len(ARMOR_MAX)
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "vault-token",
        "HashiCorp Vault service, batch or recovery token: hvs., hvb., hvr.",
        &["hvs.", "hvb.", "hvr."],
        url_token!(r"hv[sbr]\.[0-9A-Za-z_-]{24,250}"),
    ),
    Rule::token(
        "doppler-token",
        "Doppler token: dp.pt., dp.st., dp.ct., dp.sa., dp.scim., dp.audit.",
        &["dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."],
        alnum_token!(r"dp\.(?:pt|st|ct|sa|scim|audit)\.[0-9A-Za-z]{40,44}"),
    ),
    Rule::token(
        "age-secret-key",
        "age encryption secret key: AGE-SECRET-KEY-1…",
        &["AGE-SECRET-KEY-1"],
        alnum_token!(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ),
    Rule::token(
        "onepassword-service-account-token",
        "1Password service account token: ops_eyJ…",
        &["ops_eyJ"],
        url_token!(r"ops_eyJ[0-9A-Za-z+/=_-]{250,1000}"),
    ),
    // ---- Messaging and SaaS ----------------------------------------------------------------
    Rule::token(
        "slack-token",
        "Slack bot, user, app-config or rotating token: xoxb-, xoxp-, xoxa-, xoxe-, …",
        &["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xoxe."],
        url_token!(r"xox(?:[abposr]|e(?:\.xox[bp])?)-[0-9]{1,15}-[0-9A-Za-z-]{8,300}"),
    ),
    Rule::token(
        "slack-app-token",
        "Slack app-level token: xapp-…",
        &["xapp-"],
        alnum_token!(r"xapp-[0-9]-[0-9A-Za-z]{6,16}-[0-9]{6,16}-[0-9A-Za-z]{20,128}"),
    ),
    Rule::token(
        "slack-webhook-url",
        "Slack incoming webhook or workflow URL: the path after hooks.slack.com",
        &["hooks.slack.com/"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[0-9A-Za-z+/_-]{20,200})",
    ),
    Rule::token(
        "discord-bot-token",
        "Discord bot token assigned to a name mentioning discord",
        &["discord"],
        contextual!(
            "discord",
            r"[MNO][0-9A-Za-z_-]{23,27}\.[0-9A-Za-z_-]{6}\.[0-9A-Za-z_-]{27,40}"
        ),
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "discord-webhook-url",
        "Discord webhook URL: the token after /api/webhooks/<id>/",
        &["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
        r"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/(?P<secret>[0-9A-Za-z_-]{60,80})",
    ),
    Rule::token(
        "telegram-bot-token",
        "Telegram bot token: <bot id>:AA…",
        &[":AA"],
        // The id follows `bot` in API URLs, so only a digit may not precede it.
        concat!(
            r"(?:^|[^0-9])(?P<secret>[0-9]{8,10}:AA[0-9A-Za-z_-]{33})",
            rb_url!()
        ),
    ),
    Rule::token(
        "twilio-credential",
        "Twilio auth token or API key secret assigned to a name mentioning twilio",
        &["twilio"],
        contextual!("twilio", r"[0-9A-Za-z]{32}"),
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "sendgrid-api-key",
        "SendGrid API key: SG.<id>.<secret>",
        &["SG."],
        url_token!(r"SG\.[0-9A-Za-z_-]{22}\.[0-9A-Za-z_-]{43}"),
    ),
    Rule::token(
        "mailgun-api-key",
        "Mailgun private API key: key-…",
        &["key-"],
        alnum_token!(r"key-[0-9a-f]{32}"),
    ),
    Rule::token(
        "mailchimp-api-key",
        "Mailchimp API key: <32 hex>-us<N>",
        &["-us"],
        alnum_token!(r"[0-9a-f]{32}-us[0-9]{1,2}"),
    ),
    Rule::token(
        "shopify-token",
        "Shopify access, custom-app, partner or shared-secret token: shpat_, shpca_, shppa_, shpss_",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        alnum_token!(r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}"),
    ),
    Rule::token(
        "linear-api-key",
        "Linear API key: lin_api_…",
        &["lin_api_"],
        alnum_token!(r"lin_api_[0-9A-Za-z]{40}"),
    ),
    Rule::token(
        "notion-token",
        "Notion integration token: ntn_…, legacy secret_…",
        &["ntn_", "secret_"],
        alnum_token!(r"(?:ntn_[0-9A-Za-z]{46}|secret_[0-9A-Za-z]{43})"),
    ),
    Rule::token(
        "postman-api-key",
        "Postman API key: PMAK-…",
        &["PMAK-"],
        alnum_token!(r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}"),
    ),
    // ---- Payments --------------------------------------------------------------------------
    Rule::token(
        "stripe-secret-key",
        "Stripe secret key: sk_live_, sk_test_, sk_prod_",
        &["sk_live_", "sk_test_", "sk_prod_"],
        alnum_token!(r"sk_(?:live|test|prod)_[0-9A-Za-z]{10,247}"),
    ),
    Rule::token(
        "stripe-restricted-key",
        "Stripe restricted key: rk_live_, rk_test_, rk_prod_",
        &["rk_live_", "rk_test_", "rk_prod_"],
        alnum_token!(r"rk_(?:live|test|prod)_[0-9A-Za-z]{10,247}"),
    ),
    Rule::token(
        "stripe-webhook-secret",
        "Stripe webhook signing secret: whsec_…",
        &["whsec_"],
        concat!(
            lb!(),
            r"(?P<secret>whsec_[0-9A-Za-z+/=]{32,100})(?:[^0-9A-Za-z+/=]|$)"
        ),
    ),
    Rule::token(
        "square-token",
        "Square access token or OAuth secret: EAAA…, sq0atp-…, sq0csp-…",
        &["EAAA", "sq0atp-", "sq0csp-"],
        url_token!(r"(?:EAAA[0-9A-Za-z_-]{60}|sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43})"),
    ),
    // ---- Model APIs ------------------------------------------------------------------------
    Rule::token(
        "openai-api-key",
        "OpenAI API key: sk-proj-…, sk-svcacct-…, sk-admin-…, or sk-… containing T3BlbkFJ",
        &["sk-proj-", "sk-svcacct-", "sk-admin-", "T3BlbkFJ"],
        url_token!(
            r"sk-(?:(?:proj|svcacct|admin)-[0-9A-Za-z_-]{20,300}|[0-9A-Za-z_-]{16,200}T3BlbkFJ[0-9A-Za-z_-]{16,200})"
        ),
    ),
    Rule::token(
        "anthropic-api-key",
        "Anthropic API or admin key: sk-ant-api03-…, sk-ant-admin01-…",
        &["sk-ant-"],
        url_token!(r"sk-ant-(?:api|admin|sid|oat|ort)[0-9]{2}-[0-9A-Za-z_-]{32,200}"),
    ),
    Rule::token(
        "openrouter-api-key",
        "OpenRouter API key: sk-or-v1-…",
        &["sk-or-v1-"],
        alnum_token!(r"sk-or-v1-[0-9a-f]{64}"),
    ),
    Rule::token(
        "groq-api-key",
        "Groq API key: gsk_…",
        &["gsk_"],
        alnum_token!(r"gsk_[0-9A-Za-z]{52}"),
    ),
    Rule::token(
        "huggingface-token",
        "Hugging Face user or organisation token: hf_…, api_org_…",
        &["hf_", "api_org_"],
        alnum_token!(r"(?:hf_[0-9A-Za-z]{34,40}|api_org_[0-9A-Za-z]{34})"),
    ),
    Rule::token(
        "replicate-api-token",
        "Replicate API token: r8_…",
        &["r8_"],
        alnum_token!(r"r8_[0-9A-Za-z]{37}"),
    ),
    Rule::token(
        "xai-api-key",
        "xAI (Grok) API key: xai-…",
        &["xai-"],
        alnum_token!(r"xai-[0-9A-Za-z]{80}"),
    ),
    Rule::token(
        "perplexity-api-key",
        "Perplexity API key: pplx-…",
        &["pplx-"],
        alnum_token!(r"pplx-[0-9A-Za-z]{48,56}"),
    ),
    Rule::token(
        "mistral-api-key",
        "Mistral API key assigned to a name mentioning mistral",
        &["mistral"],
        contextual!("mistral", r"[0-9A-Za-z]{32}"),
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    Rule::token(
        "cohere-api-key",
        "Cohere API key assigned to a name mentioning cohere (or CO_API_KEY)",
        &["cohere", "co_api"],
        contextual!("cohere|co_api", r"[0-9A-Za-z]{40}"),
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    // ---- Observability ---------------------------------------------------------------------
    Rule::token(
        "sentry-token",
        "Sentry organisation or user auth token: sntrys_…, sntryu_…",
        &["sntrys_", "sntryu_"],
        url_token!(r"(?:sntrys_eyJ[0-9A-Za-z+/=_-]{40,1000}|sntryu_[0-9a-f]{64})"),
    ),
    Rule::token(
        "new-relic-key",
        "New Relic user, ingest or browser key: NRAK-…, NRII-…, NRJS-…",
        &["NRAK-", "NRII-", "NRJS-"],
        alnum_token!(r"(?:NRAK-[0-9A-Z]{27}|NRII-[0-9A-Za-z-]{32}|NRJS-[0-9a-f]{19})"),
    ),
    Rule::token(
        "grafana-token",
        "Grafana Cloud or service-account token: glc_…, glsa_…",
        &["glc_", "glsa_"],
        concat!(
            lb!(),
            r"(?P<secret>glc_[0-9A-Za-z+/]{32,400}={0,3}|glsa_[0-9A-Za-z]{32}_[0-9A-Fa-f]{8})(?:[^0-9A-Za-z+/=_]|$)"
        ),
    ),
    Rule::token(
        "datadog-key",
        "Datadog API or application key assigned to a name mentioning datadog (or DD_API / DD_APP)",
        &["datadog", "dd_api", "dd_app"],
        contextual!("datadog|dd_api|dd_app", r"[0-9a-f]{32}(?:[0-9a-f]{8})?"),
    )
    .anchor(Anchor::Keyword)
    .assignment(),
    // ---- Structured secrets ----------------------------------------------------------------
    Rule::token(
        "openssh-private-key",
        "OpenSSH private key block (body between the armour lines)",
        &["BEGIN OPENSSH PRIVATE KEY"],
        armored_key!("OPENSSH PRIVATE KEY"),
    )
    .check(ValueCheck::Any)
    .max_len(ARMOR_MAX),
    Rule::token(
        "private-key-block",
        "PEM private key block: PKCS#1 RSA, EC, DSA, PKCS#8, encrypted PKCS#8, PGP (body between the armour lines)",
        &["-----BEGIN "],
        armored_key!("(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?"),
    )
    .check(ValueCheck::Any)
    .max_len(ARMOR_MAX),
    Rule::token(
        "jwt",
        "JSON Web Token (signed): eyJ….eyJ….…",
        &["eyJ"],
        concat!(
            r"(?:^|[^0-9A-Za-z_-])(?P<secret>eyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{16,})",
            rb_url!()
        ),
    )
    .check(ValueCheck::Any)
    .max_len(16 * 1024),
    Rule::token(
        "url-password",
        "Password embedded in a URL: scheme://user:password@host",
        &["://"],
        r#"://[\x21-\x7E&&[^:/?#@"'`<>\[\]{}()\\]]{0,128}:(?P<secret>[\x21-\x7E&&[^:/?#@"'`<>\[\]{}()\\]]{1,256})@[0-9A-Za-z\[]"#,
    )
    .check(ValueCheck::Credential)
    .anchor(Anchor::Keyword),
    Rule::token(
        "curl-user-password",
        "Password in a curl `-u user:password` / `--user user:password` argument",
        &["curl"],
        r#"(?i-u:curl)[^\n]{0,256}?[ \t](?:-u|--user)[ \t]{1,4}["']?[\x21-\x7E&&[^:"'`\\]]{1,128}:(?P<secret>[\x21-\x7E&&[^"'`\\]]{1,256})"#,
    )
    .check(ValueCheck::Credential)
    .anchor(Anchor::Keyword),
    Rule::token(
        "netrc-password",
        "Password in a .netrc `machine … login … password …` entry",
        &["machine"],
        r#"(?i-u:machine)[ \t]{1,8}[\x21-\x7E]{1,253}(?:[ \t\r\n]{1,8}(?i-u:login)[ \t]{1,8}[\x21-\x7E]{1,128})?[ \t\r\n]{1,8}(?i-u:password)[ \t]{1,8}(?P<secret>[\x21-\x7E&&[^"'`\\]]{1,256})"#,
    )
    .check(ValueCheck::Credential)
    .anchor(Anchor::Keyword),
    Rule::token(
        "http-auth-header",
        "Credentials in an HTTP header: Authorization (Bearer, Basic, token, Bot), X-API-Key, PRIVATE-TOKEN, …",
        &[
            "authorization",
            "proxy-authorization",
            "x-api-key",
            "x-goog-api-key",
            "api-key",
            "x-auth-token",
            "x-access-token",
            "private-token",
        ],
        r#"(?i-u:(?:proxy-)?authorization|x-api-key|x-goog-api-key|api-key|x-auth-token|x-access-token|private-token)["']?[ \t]{0,8}:[ \t]{0,8}["']?(?i-u:(?:bearer|basic|token|bot|apikey|sso-key)[ \t]{1,4})?(?P<secret>[0-9A-Za-z_.~+/=:-]{8,})"#,
    )
    .check(ValueCheck::Bare)
    .max_len(8 * 1024)
    .anchor(Anchor::Keyword)
    .assignment(),
    // ---- Key-name rules (last: vendor rules win ties) -------------------------------------
    Rule::token(
        "generic-quoted-assignment",
        "A quoted literal assigned to a secret-looking name: `password = \"…\"`, `\"client_secret\": \"…\"`",
        SECRET_NAME_KEYWORDS,
        concat!(
            secret_names!(),
            r#"(?:\\?["'])?[ \t]{0,8}(?::=|=>|[:=])[ \t]{0,8}\\?["'`](?P<secret>[\x21-\x7E&&[^"'`\\]]{8,256})\\?["'`]"#
        ),
    )
    .check(ValueCheck::Quoted)
    .anchor(Anchor::Keyword)
    .assigned(Assignment::Quoted),
    Rule::token(
        "generic-env-assignment",
        "An unquoted value assigned with `=` to a secret-looking name: env files, shell, query strings",
        SECRET_NAME_KEYWORDS,
        concat!(
            secret_names!(),
            r#"=(?P<secret>[\x21-\x7E&&[^"'`\\;&|<>(){}\[\],]]{8,256})(?:[ \t\r\n;&|"'`]|$)"#
        ),
    )
    .check(ValueCheck::Bare)
    .anchor(Anchor::Keyword)
    .assigned(Assignment::Tight),
    Rule::token(
        "generic-line-assignment",
        "An unquoted value alone on a line after a secret-looking name: YAML `key: …`, INI/properties `key = …`",
        SECRET_NAME_KEYWORDS,
        concat!(
            r#"(?m)^[ \t]{0,32}(?:-[ \t]{1,4})?(?:export[ \t]{1,4})?["']?[0-9A-Za-z_.-]{0,64}"#,
            secret_names!(),
            r#"["']?[ \t]{0,8}[:=][ \t]{0,8}(?P<secret>[\x21-\x7E&&[^"'`\\<>(){}\[\],;&]]{8,256})[ \t]{0,8}(?:#|\r?$)"#
        ),
    )
    .check(ValueCheck::Bare)
    .anchor(Anchor::LineStart)
    .assigned(Assignment::LineValue),
    Rule::token(
        "generic-cli-flag",
        "A command-line flag naming a secret: `--password …`, `--api-key=…`, `--client-secret …`",
        SECRET_NAME_KEYWORDS,
        concat!(
            r"--(?:[0-9A-Za-z]{1,20}-){0,4}",
            secret_names!(),
            r#"(?:=|[ \t]{1,4})["']?(?P<secret>[\x21-\x7E&&[^"'`\\<>(){}\[\],;|&]]{8,256})(?:[ \t\r\n;&|"'`]|$)"#
        ),
    )
    .check(ValueCheck::Bare)
    .anchor(Anchor::WordStart),
];
