//! Celery configuration: TW601–TW602.
pub mod tw601;
pub mod tw602;
