//! Reading a policy into its compiled form: the scope from Cedar's typed constraints, the
//! conditions from the policy's JSON form (EST). Anything not recognised leaves the policy to
//! Cedar.

use cedar_policy::{ActionConstraint, Effect, Policy, PrincipalConstraint, ResourceConstraint};
use serde_json::Value;

use super::{Binary, Compiled, Expr, Field, Lit, Pattern, Scope, Uid, Var};

impl Compiled {
    /// `p` compiled, or `None` when it is a template link or uses more than the subset.
    pub(crate) fn compile(p: &Policy) -> Option<Self> {
        if !p.is_static() {
            return None;
        }
        let principal = match p.principal_constraint() {
            PrincipalConstraint::Any => Scope::Any,
            PrincipalConstraint::Is(ty) => Scope::Is(ty.to_string()),
            PrincipalConstraint::In(u) | PrincipalConstraint::Eq(u) => Scope::Eq(Uid::of(&u)),
            PrincipalConstraint::IsIn(ty, u) => Scope::IsEq(ty.to_string(), Uid::of(&u)),
        };
        let resource = match p.resource_constraint() {
            ResourceConstraint::Any => Scope::Any,
            ResourceConstraint::Is(ty) => Scope::Is(ty.to_string()),
            ResourceConstraint::In(u) | ResourceConstraint::Eq(u) => Scope::Eq(Uid::of(&u)),
            ResourceConstraint::IsIn(ty, u) => Scope::IsEq(ty.to_string(), Uid::of(&u)),
        };
        let actions = match p.action_constraint() {
            ActionConstraint::Any => None,
            ActionConstraint::Eq(u) => Some(vec![Uid::of(&u)]),
            ActionConstraint::In(list) => Some(list.iter().map(Uid::of).collect()),
        };
        let est = p.to_json().ok()?;
        let mut condition: Option<Expr> = None;
        for clause in est.get("conditions")?.as_array()? {
            let body = compile_expr(clause.get("body")?)?;
            let body = match clause.get("kind")?.as_str()? {
                "when" => body,
                "unless" => Expr::Not(Box::new(body)),
                _ => return None,
            };
            condition = Some(match condition {
                None => body,
                Some(before) => Expr::And(Box::new((before, body))),
            });
        }
        Some(Self {
            forbid: p.effect() == Effect::Forbid,
            principal,
            actions,
            resource,
            condition,
        })
    }
}

fn entity(v: &Value) -> Option<Uid> {
    let e = v.get("__entity")?;
    let ty = e.get("type")?.as_str()?;
    // Cedar reserves `__cedar`; leave such names to it.
    if ty.contains("__cedar") || e.as_object()?.len() != 2 {
        return None;
    }
    Some(Uid {
        ty: ty.to_owned(),
        id: e.get("id")?.as_str()?.to_owned(),
    })
}

fn literal(v: &Value) -> Option<Lit> {
    Some(match v {
        Value::Bool(b) => Lit::Bool(*b),
        Value::Number(n) => Lit::Long(n.as_i64()?),
        Value::String(s) => Lit::Str(s.clone()),
        Value::Object(m) if m.len() == 1 => Lit::Entity(entity(v)?),
        _ => return None,
    })
}

fn pattern(v: &Value) -> Option<Pattern> {
    let mut parts = vec![String::new()];
    for elem in v.as_array()? {
        if elem.as_str() == Some("Wildcard") {
            parts.push(String::new());
        } else {
            parts.last_mut()?.push_str(elem.get("Literal")?.as_str()?);
        }
    }
    Some(Pattern::new(parts))
}

fn compile_expr(v: &Value) -> Option<Expr> {
    let node = v.as_object()?;
    if node.len() != 1 {
        return None;
    }
    let (op, body) = node.iter().next()?;
    let arg = |key: &str| compile_expr(body.get(key)?).map(Box::new);
    let pair = || {
        Some(Box::new((
            compile_expr(body.get("left")?)?,
            compile_expr(body.get("right")?)?,
        )))
    };
    let binary = |op| Some(Expr::Binary(op, pair()?));
    let attr = || Some(body.get("attr")?.as_str()?.to_owned());
    match op.as_str() {
        "Value" => Some(Expr::Lit(literal(body)?)),
        "Var" => Some(Expr::Var(match body.as_str()? {
            "principal" => Var::Principal,
            "action" => Var::Action,
            "resource" => Var::Resource,
            "context" => Var::Context,
            _ => return None,
        })),
        "!" => Some(Expr::Not(arg("arg")?)),
        "isEmpty" => Some(Expr::IsEmpty(arg("arg")?)),
        "&&" => Some(Expr::And(pair()?)),
        "||" => Some(Expr::Or(pair()?)),
        "==" => binary(Binary::Eq),
        "!=" => binary(Binary::NotEq),
        "<" => binary(Binary::Less),
        "<=" => binary(Binary::LessEq),
        ">" => binary(Binary::Greater),
        ">=" => binary(Binary::GreaterEq),
        "in" => binary(Binary::In),
        "contains" => binary(Binary::Contains),
        "containsAll" => binary(Binary::ContainsAll),
        "containsAny" => binary(Binary::ContainsAny),
        "." => {
            let (left, attr) = (arg("left")?, attr()?);
            Some(match (&*left, Field::of(&attr)) {
                (Expr::Var(Var::Context), Some(field)) => Expr::Context(field),
                _ => Expr::Attr(left, attr),
            })
        }
        // `has a.b` (a list of attributes) is left to Cedar.
        "has" => Some(Expr::Has(arg("left")?, attr()?)),
        "like" => Some(Expr::Like(arg("left")?, pattern(body.get("pattern")?)?)),
        "is" => {
            let left = || arg("left");
            let ty = body.get("entity_type")?.as_str()?;
            if ty.contains("__cedar") {
                return None;
            }
            let is = Expr::Is(left()?, ty.to_owned());
            // `e is T in x` is `e is T && e in x`.
            match body.get("in") {
                None => Some(is),
                Some(within) => {
                    let within = compile_expr(within)?;
                    let member = Expr::Binary(Binary::In, Box::new((*left()?, within)));
                    Some(Expr::And(Box::new((is, member))))
                }
            }
        }
        "if-then-else" => Some(Expr::If(Box::new((
            compile_expr(body.get("if")?)?,
            compile_expr(body.get("then")?)?,
            compile_expr(body.get("else")?)?,
        )))),
        "Set" => Some(Expr::Set(
            body.as_array()?
                .iter()
                .map(compile_expr)
                .collect::<Option<_>>()?,
        )),
        _ => None,
    }
}
