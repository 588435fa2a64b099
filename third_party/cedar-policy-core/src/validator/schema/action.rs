/*
 * Copyright Cedar Contributors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

//! This module contains the definition of `ValidatorActionId` and the types it relies on

use crate::{
    ast::{self, EntityType, EntityUID},
    parser::Loc,
    transitive_closure::TCNode,
};
use educe::Educe;
use std::collections::HashSet;

use super::internal_name_to_entity_type;
use crate::validator::{
    partition_nonempty::PartitionNonEmpty,
    schema::{AllDefs, SchemaError},
    types::Type,
    ConditionalName,
};

/// Contains information about actions used by the validator.  The contents of
/// the struct are the same as the schema entity type structure, but the
/// `member_of` relation is reversed to instead be `descendants`.
#[derive(Educe, Clone, Debug)]
#[educe(PartialEq, Eq)]
pub struct ValidatorActionId {
    /// The name of the action.
    pub(crate) name: EntityUID,

    /// The kind of action: defined, or external
    pub(crate) kind: ValidatorActionIdKind,

    /// The set of actions that are members of this action. When this
    /// structure is initially constructed, the field will contain direct
    /// children, but it will be updated to contain the closure of all
    /// descendants before it is used in any validation.
    pub(crate) descendants: HashSet<EntityUID>,

    /// Source location - if available
    #[educe(PartialEq(ignore))]
    pub(crate) loc: Option<Loc>,
}

/// The kind of validator action: Either defined or external.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ValidatorActionIdKind {
    /// Defined by one of the fragments combined into this schema.
    Defined(DefinedValidatorActionId),
    /// Declared `external` and not defined in any fragment combined into this
    /// schema (RFC 116).
    External,
}

/// The parts of a [`ValidatorActionId`] that exist only for a defined action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DefinedValidatorActionId {
    /// The principals and resources that the action can be applied to.
    pub(crate) applies_to: ValidatorApplySpec<ast::EntityType>,

    /// The type of the context record associated with this action.
    pub(crate) context: Type,
}

impl ValidatorActionId {
    /// Construct a new defined `ValidatorActionId`.
    ///
    /// This constructor assumes that `descendants` has TC already computed.
    /// That is, caller is responsible for TC.
    pub fn new_defined(
        name: EntityUID,
        principal_entity_types: impl IntoIterator<Item = ast::EntityType>,
        resource_entity_types: impl IntoIterator<Item = ast::EntityType>,
        descendants: impl IntoIterator<Item = EntityUID>,
        context: Type,
        loc: Option<Loc>,
    ) -> Self {
        Self {
            name,
            kind: ValidatorActionIdKind::Defined(DefinedValidatorActionId {
                applies_to: ValidatorApplySpec::new(
                    principal_entity_types.into_iter().collect(),
                    resource_entity_types.into_iter().collect(),
                ),
                context,
            }),
            descendants: descendants.into_iter().collect(),
            loc,
        }
    }

    /// Construct a new external `ValidatorActionId`, for an action declared
    /// `external` (RFC 116) and never defined.
    ///
    /// This constructor assumes that `descendants` has TC already computed.
    /// That is, caller is responsible for TC.
    pub fn new_external(
        name: EntityUID,
        descendants: impl IntoIterator<Item = EntityUID>,
        loc: Option<Loc>,
    ) -> Self {
        Self {
            name,
            kind: ValidatorActionIdKind::External,
            descendants: descendants.into_iter().collect(),
            loc,
        }
    }

    /// The name of the action
    pub fn name(&self) -> &EntityUID {
        &self.name
    }

    /// The source location if available
    pub fn loc(&self) -> Option<&Loc> {
        self.loc.as_ref()
    }

    /// Iterator over the actions that are members of this action
    pub fn descendants(&self) -> impl Iterator<Item = &EntityUID> {
        self.descendants.iter()
    }

    /// The definition of this action, or `None` if it was only declared
    /// `external`.
    pub(crate) fn defined(&self) -> Option<&DefinedValidatorActionId> {
        match &self.kind {
            ValidatorActionIdKind::Defined(defined) => Some(defined),
            ValidatorActionIdKind::External => None,
        }
    }

    /// Is this action only declared `external`, rather than defined (RFC 116)?
    ///
    /// An external action has no context type and nothing is applicable to it.
    pub fn is_external(&self) -> bool {
        self.defined().is_none()
    }

    /// Context type for this action. `None` for an external action, whose
    /// context type is unknown.
    pub fn context(&self) -> Option<&Type> {
        self.defined().map(DefinedValidatorActionId::context_type)
    }

    /// The `Type` that this action requires for its context.
    ///
    /// When present this is always a closed record type. `None` for an external
    /// action, whose context type is unknown.
    pub fn context_type(&self) -> Option<&Type> {
        self.context()
    }

    /// Returns an iterator over all the principals that this action applies to.
    ///
    /// Empty for an external action, as for the four accessors below.
    pub fn principals(&self) -> impl Iterator<Item = &EntityType> {
        self.applies_to_principals()
    }

    /// Returns an iterator over all the resources that this action applies to.
    pub fn resources(&self) -> impl Iterator<Item = &EntityType> {
        self.applies_to_resources()
    }

    /// The [`ast::EntityType`]s that can be the `principal` for this action.
    pub fn applies_to_principals(&self) -> impl Iterator<Item = &ast::EntityType> {
        self.defined()
            .into_iter()
            .flat_map(DefinedValidatorActionId::applies_to_principals)
    }

    /// The [`ast::EntityType`]s that can be the `resource` for this action.
    pub fn applies_to_resources(&self) -> impl Iterator<Item = &ast::EntityType> {
        self.defined()
            .into_iter()
            .flat_map(DefinedValidatorActionId::applies_to_resources)
    }

    /// Is the given principal type applicable for this spec?
    pub fn is_applicable_principal_type(&self, ty: &ast::EntityType) -> bool {
        self.defined()
            .is_some_and(|d| d.applies_to.is_applicable_principal_type(ty))
    }

    /// Is the given resource type applicable for this spec?
    pub fn is_applicable_resource_type(&self, ty: &ast::EntityType) -> bool {
        self.defined()
            .is_some_and(|d| d.applies_to.is_applicable_resource_type(ty))
    }
}

impl DefinedValidatorActionId {
    /// The `Type` that this action requires for its context.
    ///
    /// This always returns a closed record type.
    pub(crate) fn context_type(&self) -> &Type {
        &self.context
    }

    /// The [`ast::EntityType`]s that can be the `principal` for this action.
    pub(crate) fn applies_to_principals(&self) -> impl Iterator<Item = &ast::EntityType> {
        self.applies_to.applicable_principal_types()
    }

    /// The [`ast::EntityType`]s that can be the `resource` for this action.
    pub(crate) fn applies_to_resources(&self) -> impl Iterator<Item = &ast::EntityType> {
        self.applies_to.applicable_resource_types()
    }
}

impl TCNode<EntityUID> for ValidatorActionId {
    fn get_key(&self) -> EntityUID {
        self.name.clone()
    }

    fn add_edge_to(&mut self, k: EntityUID) {
        self.descendants.insert(k);
    }

    fn out_edges(&self) -> Box<dyn Iterator<Item = &EntityUID> + '_> {
        Box::new(self.descendants.iter())
    }

    fn has_edge_to(&self, e: &EntityUID) -> bool {
        self.descendants.contains(e)
    }

    // No-op as schema based TCs do not update
    fn reset_edges(&mut self) {}
}

/// The principals and resources that an action can be applied to.
///
/// The parameter `N` represents the type of entity type names stored in this
/// [`ValidatorApplySpec`]. For instance, this could be [`crate::validator::RawName`],
/// [`crate::validator::ConditionalName`], or [`InternalName`], depending on whether the
/// names have been resolved into fully-qualified names yet.
/// (It could also in principle be [`ast::EntityType`], which like
/// [`InternalName`] and [`Name`] always represents a fully-qualified name, but
/// as of this writing we always use [`Name`] or [`InternalName`] for the
/// parameter here when we want to indicate names have been fully qualified.)
#[derive(Clone, Debug)]
pub(crate) struct ValidatorApplySpec<N> {
    /// The principal entity types the action can be applied to.
    principal_apply_spec: HashSet<N>,

    /// The resource entity types the action can be applied to.
    resource_apply_spec: HashSet<N>,
}

impl<N: PartialEq + Eq + std::hash::Hash> PartialEq for ValidatorApplySpec<N> {
    fn eq(&self, other: &Self) -> bool {
        self.principal_apply_spec == other.principal_apply_spec
            && self.resource_apply_spec == other.resource_apply_spec
    }
}

impl<N: PartialEq + Eq + std::hash::Hash> Eq for ValidatorApplySpec<N> {}

impl<N> ValidatorApplySpec<N> {
    /// Create an apply spec for an action that can only be applied to some
    /// specific entities.
    pub fn new(principal_apply_spec: HashSet<N>, resource_apply_spec: HashSet<N>) -> Self {
        Self {
            principal_apply_spec,
            resource_apply_spec,
        }
    }
}

impl ValidatorApplySpec<ast::EntityType> {
    /// Is the given principal type applicable for this spec?
    pub fn is_applicable_principal_type(&self, ty: &ast::EntityType) -> bool {
        self.principal_apply_spec.contains(ty)
    }

    /// Get the applicable principal types for this spec.
    pub fn applicable_principal_types(&self) -> impl Iterator<Item = &ast::EntityType> {
        self.principal_apply_spec.iter()
    }

    /// Is the given resource type applicable for this spec?
    pub fn is_applicable_resource_type(&self, ty: &ast::EntityType) -> bool {
        self.resource_apply_spec.contains(ty)
    }

    /// Get the applicable resource types for this spec.
    pub fn applicable_resource_types(&self) -> impl Iterator<Item = &ast::EntityType> {
        self.resource_apply_spec.iter()
    }
}

impl ValidatorApplySpec<ConditionalName> {
    /// Convert this [`ValidatorApplySpec<ConditionalName>`] into a
    /// [`ValidatorApplySpec<ast::EntityType>`] by fully-qualifying all
    /// typenames that appear anywhere in any definitions, and checking that
    /// none of these typenames contain `__cedar`.
    ///
    /// `all_defs` needs to contain the full set of all fully-qualified typenames
    /// and actions that are defined in the schema (in all schema fragments).
    pub fn fully_qualify_type_references(
        self,
        all_defs: &AllDefs,
    ) -> Result<ValidatorApplySpec<ast::EntityType>, crate::validator::schema::SchemaError> {
        let principal_apply_spec = self
            .principal_apply_spec
            .into_iter()
            .map(|cname| {
                let internal_name = cname.resolve(all_defs)?;
                internal_name_to_entity_type(internal_name).map_err(Into::into)
            })
            .partition_nonempty();
        let resource_apply_spec = self
            .resource_apply_spec
            .into_iter()
            .map(|cname| {
                let internal_name = cname.resolve(all_defs)?;
                internal_name_to_entity_type(internal_name).map_err(Into::into)
            })
            .partition_nonempty();

        match (principal_apply_spec, resource_apply_spec) {
            (Ok(principal_apply_spec), Ok(resource_apply_spec)) => Ok(ValidatorApplySpec {
                principal_apply_spec,
                resource_apply_spec,
            }),
            (Ok(_), Err(errs)) => Err(SchemaError::join_nonempty(errs)),
            (Err(resource_errs), Ok(_)) => Err(SchemaError::join_nonempty(resource_errs)),
            (Err(principal_errs), Err(resource_errs)) => {
                let mut errs = principal_errs;
                errs.extend(resource_errs);
                Err(SchemaError::join_nonempty(errs))
            }
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use cool_asserts::assert_matches;

    fn make_action() -> ValidatorActionId {
        ValidatorActionId {
            name: r#"Action::"foo""#.parse().unwrap(),
            kind: ValidatorActionIdKind::Defined(DefinedValidatorActionId {
                applies_to: ValidatorApplySpec {
                    principal_apply_spec: HashSet::from([
                        // Make sure duplicates are handled as expected
                        "User".parse().unwrap(),
                        "User".parse().unwrap(),
                    ]),
                    resource_apply_spec: HashSet::from([
                        "App".parse().unwrap(),
                        "File".parse().unwrap(),
                    ]),
                },
                context: Type::any_record(),
            }),
            descendants: HashSet::new(),
            loc: None,
        }
    }

    fn make_external_action() -> ValidatorActionId {
        ValidatorActionId::new_external(r#"Action::"bar""#.parse().unwrap(), [], None)
    }

    #[test]
    fn test_resources() {
        let a = make_action();
        let got = a.resources().cloned().collect::<HashSet<EntityType>>();
        let expected = HashSet::from(["App".parse().unwrap(), "File".parse().unwrap()]);
        assert_eq!(got, expected);
    }

    #[test]
    fn test_principals() {
        let a = make_action();
        let got = a.principals().cloned().collect::<Vec<EntityType>>();
        let expected: [EntityType; 1] = ["User".parse().unwrap()];
        assert_eq!(got, &expected);
    }

    /// An external action has no definition to read, and nothing is
    /// applicable to it.
    #[test]
    fn external_action_has_no_definition() {
        let a = make_external_action();
        assert_matches!(a.kind, ValidatorActionIdKind::External);
        assert!(a.defined().is_none());
        assert!(a.context().is_none());
        assert!(a.context_type().is_none());
        assert_eq!(a.principals().count(), 0);
        assert_eq!(a.resources().count(), 0);
        assert_eq!(a.applies_to_principals().count(), 0);
        assert_eq!(a.applies_to_resources().count(), 0);
        assert!(!a.is_applicable_principal_type(&"User".parse().unwrap()));
        assert!(!a.is_applicable_resource_type(&"App".parse().unwrap()));
    }

    #[test]
    fn defined_action_has_a_definition() {
        let a = make_action();
        assert_matches!(a.kind, ValidatorActionIdKind::Defined(_));
        assert!(a.defined().is_some());
        assert!(a.context_type().is_some());
        assert!(a.is_applicable_principal_type(&"User".parse().unwrap()));
        assert!(!a.is_applicable_principal_type(&"App".parse().unwrap()));
    }
}
