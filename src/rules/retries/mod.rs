//! Retries and partial progress: TW501–TW502.
pub mod tw501;
pub mod tw502;
