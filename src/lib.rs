//! twice: what happens when this task runs twice?
//!
//! Data flows one way: files → parsed modules → facts → project model → rules → diagnostics →
//! renderers.
pub mod arena;
pub mod baseline;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod discover;
pub mod facts;
pub mod i18n;
pub mod intern;
pub mod models;
pub mod parse;
pub mod path;
pub mod project;
pub mod registry;
pub mod render;
pub mod review;
pub mod rules;
pub mod settings;
