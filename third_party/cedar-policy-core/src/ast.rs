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

//! This module contains the AST datatypes.

mod expr;
#[cfg(feature = "tolerant-ast")]
pub(crate) mod expr_allows_errors;
pub use expr::*;
mod entity;
pub use entity::*;
mod extension;
pub use extension::*;
mod id;
pub use id::*;
mod integer;
pub use integer::{InputInteger, Integer};
mod literal;
pub use literal::*;
mod name;
pub use name::*;
mod ops;
pub use ops::*;
mod pattern;
pub use pattern::*;
mod partial_value;
pub use partial_value::*;
mod policy;
pub use policy::*;
mod policy_set;
pub use policy_set::*;
mod request;
pub use request::*;
mod restricted_expr;
pub use restricted_expr::*;
mod types;
pub use types::*;
mod value;
pub use value::*;
mod expr_iterator;
pub use expr_iterator::*;
mod annotation;
pub use annotation::*;
mod expr_visitor;
pub use expr_visitor::*;
