//! Effects and their keys: TW101–TW104.
pub mod tw101;
pub mod tw102;
pub mod tw103;
pub mod tw104;
