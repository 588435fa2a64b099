//! One tree-sitter parser per thread, built on first use.
//!
//! Building a `Parser` and loading the grammar costs more than parsing a typical command, so
//! both are reused: the `Language` is created once per process and each thread keeps its
//! parser. Parsing is not re-entrant, but nothing parses while another parse is in progress:
//! nested shell strings are parsed after the outer tree has been turned into owned data.

use std::cell::RefCell;
use std::sync::LazyLock;

use tree_sitter::{Language, Parser, Tree};

use crate::Error;

/// Longest command we parse; anything longer asks (an agent does not need a megabyte of shell
/// to do something safe).
pub(crate) const MAX_COMMAND_BYTES: usize = 1 << 20;

static LANGUAGE: LazyLock<Language> = LazyLock::new(|| tree_sitter_bash::LANGUAGE.into());

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `source` as a bash script.
pub(crate) fn parse(source: &str) -> Result<Tree, Error> {
    if source.len() > MAX_COMMAND_BYTES {
        return Err(Error::TooLong {
            len: source.len(),
            max: MAX_COMMAND_BYTES,
        });
    }
    PARSER.with_borrow_mut(|slot| {
        let parser = match slot {
            Some(parser) => parser,
            None => {
                let mut parser = Parser::new();
                parser.set_language(&LANGUAGE)?;
                slot.insert(parser)
            }
        };
        parser.parse(source, None).ok_or(Error::NoTree)
    })
}
