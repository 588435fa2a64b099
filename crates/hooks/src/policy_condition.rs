//! Cedar policies compiled for the hot path: the common subset of the language, evaluated over
//! the hook input as it is, with Cedar's semantics.
//!
//! Cedar's own evaluator costs about 2 µs a policy on a tool call: each decision converts the
//! tool input into Cedar values, rebuilds every policy's condition and evaluates it partially
//! (residuals, source locations, error values with their context). Most policies only test
//! attributes of the input against literals, so at load each static policy whose condition
//! stays within `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, `if`, `has`, `.attr`,
//! `like`, `is`, `in`, `.contains`, `.containsAll`, `.containsAny`, `.isEmpty`, set literals
//! and bool/string/long/entity literals is compiled into a small tree; anything else is left to
//! Cedar. The tree is read from the policy's JSON form (Cedar's documented EST format), and
//! anything not recognised there is left to Cedar too.
//!
//! Evaluation follows Cedar exactly: operands left to right, `&&`/`||`/`if` short-circuit, and
//! an error (a missing attribute, a wrong type, an entity's attribute: the entity store is
//! empty) propagates to the whole condition, which then does not apply. The input becomes
//! Cedar values as in `policy_hook`: `null` is absent, arrays are sets (equality is set
//! equality), a number that is not an `i64` is its decimal text.

use std::borrow::Cow;

use cedar_policy::EntityUid;
use memchr::memmem::Finder;
use serde_json::{Map, Value};

#[path = "policy_est.rs"]
mod est;

/// An entity reference: its type (`Tool`, `Ns::Tool`) and id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Uid {
    ty: String,
    id: String,
}

impl Uid {
    fn of(uid: &EntityUid) -> Self {
        Self {
            ty: uid.type_name().to_string(),
            id: uid.id().unescaped().to_owned(),
        }
    }

    fn is(&self, (ty, id): (&str, &str)) -> bool {
        self.ty == ty && self.id == id
    }
}

/// A scope constraint on the principal or the resource. With no entity data, `in E` holds only
/// for `E` itself.
#[derive(Debug)]
enum Scope {
    Any,
    Is(String),
    Eq(Uid),
    IsEq(String, Uid),
}

impl Scope {
    fn holds(&self, entity: (&str, &str)) -> bool {
        match self {
            Self::Any => true,
            Self::Is(ty) => ty == entity.0,
            Self::Eq(uid) => uid.is(entity),
            Self::IsEq(ty, uid) => ty == entity.0 && uid.is(entity),
        }
    }
}

/// A literal of a condition.
#[derive(Debug)]
enum Lit {
    Bool(bool),
    Long(i64),
    Str(String),
    Entity(Uid),
}

#[derive(Debug, Clone, Copy)]
enum Var {
    Principal,
    Action,
    Resource,
    Context,
}

#[derive(Debug, Clone, Copy)]
enum Binary {
    Eq,
    NotEq,
    Less,
    LessEq,
    Greater,
    GreaterEq,
    In,
    Contains,
    ContainsAll,
    ContainsAny,
}

/// A `like` pattern: the literal text between its wildcards. Matching works on bytes: a valid
/// UTF-8 needle only matches a valid UTF-8 text at character boundaries, as Cedar's
/// character-wise matching does.
#[derive(Debug)]
struct Pattern {
    /// Without a wildcard, the whole text; else what the text starts with.
    first: String,
    /// The non-empty parts between wildcards, found leftmost in order.
    middle: Vec<Finder<'static>>,
    /// What the text ends with, after the last wildcard.
    last: String,
    wildcard: bool,
}

impl Pattern {
    fn new(mut parts: Vec<String>) -> Self {
        let wildcard = parts.len() > 1;
        let last = if wildcard {
            parts.pop().unwrap_or_default()
        } else {
            String::new()
        };
        let mut parts = parts.into_iter();
        let first = parts.next().unwrap_or_default();
        let middle = parts
            .filter(|p| !p.is_empty())
            .map(|p| Finder::new(p.as_bytes()).into_owned())
            .collect();
        Self {
            first,
            middle,
            last,
            wildcard,
        }
    }

    fn matches(&self, text: &str) -> bool {
        if !self.wildcard {
            return text == self.first;
        }
        let text = text.as_bytes();
        let (first, last) = (self.first.as_bytes(), self.last.as_bytes());
        if text.len() < first.len() + last.len()
            || (!first.is_empty() && !text.starts_with(first))
            || (!last.is_empty() && !text.ends_with(last))
        {
            return false;
        }
        let Some(mut rest) = text.get(first.len()..text.len() - last.len()) else {
            return false;
        };
        for part in &self.middle {
            match part.find(rest) {
                Some(at) => rest = rest.get(at + part.needle().len()..).unwrap_or_default(),
                None => return false,
            }
        }
        true
    }
}

/// An attribute of the context record, resolved at load.
#[derive(Debug, Clone, Copy)]
enum Field {
    ToolInput,
    SessionId,
    Cwd,
    Agent,
    Safety,
    Prompt,
}

impl Field {
    fn of(name: &str) -> Option<Self> {
        Some(match name {
            "tool_input" => Self::ToolInput,
            "session_id" => Self::SessionId,
            "cwd" => Self::Cwd,
            "agent" => Self::Agent,
            "safety" => Self::Safety,
            "prompt" => Self::Prompt,
            _ => return None,
        })
    }

    fn get<'a>(self, call: &Call<'a>) -> Option<Val<'a>> {
        let text = |s: &'a str| Some(Val::Str(Cow::Borrowed(s)));
        match self {
            Self::ToolInput => Some(Val::Record(Rec::Json(call.tool_input))),
            Self::SessionId => text(call.session_id),
            Self::Cwd => text(call.cwd),
            Self::Agent => text(call.agent),
            Self::Safety => text(call.safety),
            Self::Prompt => call.prompt.and_then(text),
        }
    }
}

#[derive(Debug)]
enum Expr {
    Lit(Lit),
    Var(Var),
    Not(Box<Self>),
    IsEmpty(Box<Self>),
    And(Box<(Self, Self)>),
    Or(Box<(Self, Self)>),
    If(Box<(Self, Self, Self)>),
    Binary(Binary, Box<(Self, Self)>),
    Attr(Box<Self>, String),
    /// `context.FIELD`.
    Context(Field),
    Has(Box<Self>, String),
    Like(Box<Self>, Pattern),
    Is(Box<Self>, String),
    Set(Vec<Self>),
}

/// A policy compiled for the fast path.
#[derive(Debug)]
pub(crate) struct Compiled {
    forbid: bool,
    principal: Scope,
    /// `None`: any action; else one of these.
    actions: Option<Vec<Uid>>,
    resource: Scope,
    condition: Option<Expr>,
}

/// The request a decision is about, as the fast path reads it.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    /// `Agent::"NAME"`'s name.
    pub(crate) agent: &'a str,
    /// The event's wire name: `Action::"EVENT"`.
    pub(crate) action: &'a str,
    /// The resource's type and id.
    pub(crate) resource: (&'a str, &'a str),
    pub(crate) tool_input: &'a Map<String, Value>,
    pub(crate) session_id: &'a str,
    pub(crate) cwd: &'a str,
    pub(crate) safety: &'a str,
    /// On user_prompt_submit only.
    pub(crate) prompt: Option<&'a str>,
}

/// An evaluation error: the policy does not apply.
#[derive(Debug)]
pub(crate) struct Fault;

type Eval<'a> = Result<Val<'a>, Fault>;

#[derive(Debug, Clone, Copy)]
enum Rec<'a> {
    Json(&'a Map<String, Value>),
    Context,
}

#[derive(Debug)]
enum Items<'a> {
    Json(&'a [Value]),
    Vals(Vec<Val<'a>>),
}

#[derive(Debug)]
enum Val<'a> {
    Bool(bool),
    Long(i64),
    Str(Cow<'a, str>),
    Entity(&'a str, &'a str),
    Record(Rec<'a>),
    Set(Items<'a>),
}

/// A JSON value as a Cedar value; `None` for `null`.
fn json(v: &Value) -> Option<Val<'_>> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| Val::Str(Cow::Owned(n.to_string())), Val::Long),
        Value::String(s) => Val::Str(Cow::Borrowed(s)),
        Value::Array(items) => Val::Set(Items::Json(items)),
        Value::Object(m) => Val::Record(Rec::Json(m)),
    })
}

impl<'a> Items<'a> {
    /// Whether `f` holds for some element (`null` items are not elements).
    fn any(&self, mut f: impl FnMut(&Val<'a>) -> bool) -> bool {
        match self {
            Self::Json(items) => items.iter().filter_map(json).any(|v| f(&v)),
            Self::Vals(items) => items.iter().any(f),
        }
    }

    fn contains(&self, v: &Val<'a>, call: &Call<'a>) -> bool {
        self.any(|item| equal(item, v, call))
    }
}

const CONTEXT_KEYS: [&str; 6] = [
    "tool_input",
    "session_id",
    "cwd",
    "agent",
    "safety",
    "prompt",
];

impl<'a> Rec<'a> {
    fn get(self, key: &str, call: &Call<'a>) -> Option<Val<'a>> {
        match self {
            Self::Json(m) => m.get(key).and_then(json),
            Self::Context => Field::of(key)?.get(call),
        }
    }

    /// Its keys, each with a value (`null` members are not attributes).
    fn keys(self, call: &Call<'a>) -> Vec<&'a str> {
        match self {
            Self::Json(m) => m
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, _)| k.as_str())
                .collect(),
            Self::Context => CONTEXT_KEYS
                .into_iter()
                .filter(|k| *k != "prompt" || call.prompt.is_some())
                .collect(),
        }
    }
}

/// Cedar's `==`: equal types and equal values; sets as sets, records key by key.
fn equal<'a>(a: &Val<'a>, b: &Val<'a>, call: &Call<'a>) -> bool {
    match (a, b) {
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Long(x), Val::Long(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Entity(t, i), Val::Entity(u, j)) => t == u && i == j,
        (Val::Set(x), Val::Set(y)) => {
            !x.any(|v| !y.contains(v, call)) && !y.any(|v| !x.contains(v, call))
        }
        (Val::Record(x), Val::Record(y)) => {
            let keys = x.keys(call);
            keys.len() == y.keys(call).len()
                && keys.iter().all(|k| match (x.get(k, call), y.get(k, call)) {
                    (Some(v), Some(w)) => equal(&v, &w, call),
                    _ => false,
                })
        }
        _ => false,
    }
}

fn boolean(v: &Val<'_>) -> Result<bool, Fault> {
    match v {
        Val::Bool(b) => Ok(*b),
        _ => Err(Fault),
    }
}

fn long(v: &Val<'_>) -> Result<i64, Fault> {
    match v {
        Val::Long(n) => Ok(*n),
        _ => Err(Fault),
    }
}

fn set<'v, 'a>(v: &'v Val<'a>) -> Result<&'v Items<'a>, Fault> {
    match v {
        Val::Set(items) => Ok(items),
        _ => Err(Fault),
    }
}

impl Expr {
    fn eval<'a>(&'a self, call: &Call<'a>) -> Eval<'a> {
        Ok(match self {
            Self::Lit(lit) => match lit {
                Lit::Bool(b) => Val::Bool(*b),
                Lit::Long(n) => Val::Long(*n),
                Lit::Str(s) => Val::Str(Cow::Borrowed(s)),
                Lit::Entity(uid) => Val::Entity(&uid.ty, &uid.id),
            },
            Self::Var(var) => match var {
                Var::Principal => Val::Entity("Agent", call.agent),
                Var::Action => Val::Entity("Action", call.action),
                Var::Resource => Val::Entity(call.resource.0, call.resource.1),
                Var::Context => Val::Record(Rec::Context),
            },
            Self::Not(e) => Val::Bool(!boolean(&e.eval(call)?)?),
            Self::IsEmpty(e) => Val::Bool(!set(&e.eval(call)?)?.any(|_| true)),
            Self::And(pair) => {
                Val::Bool(boolean(&pair.0.eval(call)?)? && boolean(&pair.1.eval(call)?)?)
            }
            Self::Or(pair) => {
                Val::Bool(boolean(&pair.0.eval(call)?)? || boolean(&pair.1.eval(call)?)?)
            }
            Self::If(branches) => {
                if boolean(&branches.0.eval(call)?)? {
                    branches.1.eval(call)?
                } else {
                    branches.2.eval(call)?
                }
            }
            Self::Binary(op, pair) => {
                let (a, b) = (pair.0.eval(call)?, pair.1.eval(call)?);
                Val::Bool(binary(*op, &a, &b, call)?)
            }
            Self::Context(field) => field.get(call).ok_or(Fault)?,
            Self::Attr(e, attr) => match e.eval(call)? {
                Val::Record(rec) => rec.get(attr, call).ok_or(Fault)?,
                // An entity has no data here; any other value has no attributes.
                _ => return Err(Fault),
            },
            Self::Has(e, attr) => match e.eval(call)? {
                Val::Record(rec) => Val::Bool(rec.get(attr, call).is_some()),
                Val::Entity(..) => Val::Bool(false),
                _ => return Err(Fault),
            },
            Self::Like(e, pattern) => match e.eval(call)? {
                Val::Str(s) => Val::Bool(pattern.matches(&s)),
                _ => return Err(Fault),
            },
            Self::Is(e, ty) => match e.eval(call)? {
                Val::Entity(t, _) => Val::Bool(t == ty),
                _ => return Err(Fault),
            },
            Self::Set(items) => Val::Set(Items::Vals(
                items
                    .iter()
                    .map(|e| e.eval(call))
                    .collect::<Result<_, _>>()?,
            )),
        })
    }
}

fn binary<'a>(op: Binary, a: &Val<'a>, b: &Val<'a>, call: &Call<'a>) -> Result<bool, Fault> {
    Ok(match op {
        Binary::Eq => equal(a, b, call),
        Binary::NotEq => !equal(a, b, call),
        Binary::Less => long(a)? < long(b)?,
        Binary::LessEq => long(a)? <= long(b)?,
        Binary::Greater => long(a)? > long(b)?,
        Binary::GreaterEq => long(a)? >= long(b)?,
        Binary::In => {
            let Val::Entity(..) = a else {
                return Err(Fault);
            };
            match b {
                Val::Entity(..) => equal(a, b, call),
                Val::Set(items) => {
                    // Every element must be an entity, whatever comes first.
                    if items.any(|v| !matches!(v, Val::Entity(..))) {
                        return Err(Fault);
                    }
                    items.contains(a, call)
                }
                _ => return Err(Fault),
            }
        }
        Binary::Contains => set(a)?.contains(b, call),
        Binary::ContainsAll => {
            let (a, b) = (set(a)?, set(b)?);
            !b.any(|v| !a.contains(v, call))
        }
        Binary::ContainsAny => {
            let (a, b) = (set(a)?, set(b)?);
            b.any(|v| a.contains(v, call))
        }
    })
}

impl Compiled {
    pub(crate) fn is_forbid(&self) -> bool {
        self.forbid
    }

    /// Whether the policy applies to `call`; `Err` when its condition errors (then it does
    /// not apply, and Cedar reports the error). A condition that is not a boolean is an error.
    pub(crate) fn applies(&self, call: &Call<'_>) -> Result<bool, Fault> {
        let action = ("Action", call.action);
        let in_scope = self.principal.holds(("Agent", call.agent))
            && self
                .actions
                .as_ref()
                .is_none_or(|list| list.iter().any(|a| a.is(action)))
            && self.resource.holds(call.resource);
        match &self.condition {
            Some(c) if in_scope => boolean(&c.eval(call)?),
            _ => Ok(in_scope),
        }
    }
}
