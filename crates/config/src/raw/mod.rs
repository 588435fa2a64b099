//! The agent file exactly as written: strict serde structs (`deny_unknown_fields`), with spans
//! on every value a later validation error may need to point at. Nothing here is interpreted;
//! `load` turns these into the public types.
//!
//! Each field is declared once, in a `described!` struct: serde reads it, and the same tokens
//! (the serde name, the shape of the Rust type, the doc comment) are its row of the agent-file
//! schema (`crate::schema`), from which `tether schema` and docs/agent-files.md are generated.
//! So a field's doc comment is user documentation: what the key means, its default, what
//! validation accepts.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::schema::{FieldType, Shape};

/// Declares a raw struct with each field once: serde reads it strictly, and its rows of the
/// schema (`Describe::FIELDS`) come from the same tokens: the field's serde name, the
/// [`Shape`] of its Rust type (or `#[schema(ty = …)]` where validation accepts less than the
/// type, such as one of a few strings), its doc comment, and `#[schema(required)]` when the
/// JSON Schema requires it (validation reports its absence). `#[schema(name = "…")]` on the
/// struct names its definition in the JSON Schema. Attributes come in this order: docs,
/// `#[serde(rename)]`, `#[schema]`.
macro_rules! described {
    (
        $(#[doc = $sdoc:literal])*
        #[derive($($derive:ident),*)]
        #[serde(deny_unknown_fields)]
        $(#[schema(name = $def:literal)])?
        pub(crate) struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $(#[serde(rename = $rename:literal)])?
                $(#[schema($($opt:tt)*)])?
                pub(crate) $field:ident: $ty:ty,
            )*
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive($($derive),*)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct $name {
            $(
                $(#[doc = $doc])*
                $(#[serde(rename = $rename)])?
                pub(crate) $field: $ty,
            )*
        }

        impl crate::schema::Describe for $name {
            const FIELDS: &'static [crate::schema::Field] = &[$(
                crate::schema::Field::new(
                    described!(@name $field $($rename)?),
                    described!(@type $ty; $($($opt)*)?),
                    concat!($($doc),*),
                    described!(@required $($($opt)*)?),
                )
            ),*];
        }

        $(impl crate::schema::Shape for $name {
            const SHAPE: crate::schema::FieldType = crate::schema::FieldType::Ref($def);
        })?
    };
    (@name $field:ident) => { stringify!($field) };
    (@name $field:ident $rename:literal) => { $rename };
    (@type $ty:ty; $(required)?) => { <$ty as crate::schema::Shape>::SHAPE };
    (@type $ty:ty; $(required,)? ty = $shape:expr) => { $shape };
    (@required required $($rest:tt)*) => { true };
    (@required $($rest:tt)*) => { false };
}

mod agent;
mod file;
mod hooks;
mod model;
mod toolset;

pub(crate) use agent::{RawAgent, RawAgentRouting, RawCache, RawFallback, RawStructuredOutput};
pub(crate) use file::{RawAgentFile, RawBudget, RawPermissions, RawRuntime};
pub(crate) use hooks::{
    RawEvaluator, RawEvaluatorPolicy, RawEventHooks, RawHookDef, RawHooks, RawMatcherEntry,
    RawRoutingPolicy,
};
pub(crate) use model::{
    RawCapabilities, RawCost, RawModel, RawOutputCapabilities, RawProvider, RawRoutingRule,
};
pub(crate) use toolset::{
    RawApiConfig, RawBackoff, RawDefer, RawLifecycle, RawMcpDef, RawPostEdit, RawRemote, RawScript,
    RawToolset, RawWebhookConfig,
};

/// A map that keeps the order keys were written in (`agents:` order picks the default agent).
#[derive(Debug, Clone)]
pub(crate) struct OrderedMap<V>(pub(crate) Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_unit<E: de::Error>(self) -> Result<OrderedMap<V>, E> {
                Ok(OrderedMap(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedMap<V>, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, V>()? {
                    out.push((k, v));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(MapVisitor(PhantomData))
    }
}

/// A scalar written as a string, number or boolean (`version: 2`, `PROFILE: dev`, `args: [50]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scalar(pub(crate) String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;
        impl Visitor<'_> for ScalarVisitor {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, number or boolean")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar, E> {
                Ok(Scalar(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
        }
        d.deserialize_any(ScalarVisitor)
    }
}

/// A scalar is any of the three.
impl Shape for Scalar {
    const SHAPE: FieldType = FieldType::Scalar;
}

/// A map of names to definitions, of strings, or of anything.
impl<V: Shape> Shape for OrderedMap<V> {
    const SHAPE: FieldType = FieldType::map_of(V::SHAPE);
}
