//! The whole check on arbitrary bytes: read as the standard input would be (invalid UTF-8
//! replaced), analysed, and rendered in every format that has a code frame or fixes. Under
//! twice's own allocator, so that syntax trees are built in its scratch arena as in the binary.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use twice::check::{StdinSource, check_with_stdin};
use twice::config::{Overrides, Settings};
use twice::render::{OutputFormat, render};

#[global_allocator]
static GLOBAL: twice::arena::Allocator = twice::arena::Allocator;

fn settings() -> &'static Settings {
    static SETTINGS: OnceLock<Settings> = OnceLock::new();
    SETTINGS.get_or_init(|| {
        Settings::resolve(None, &Overrides::default(), Path::new("/")).expect("settings")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let stdin = StdinSource {
        path: PathBuf::from("fuzz.py"),
        text,
    };
    let report = check_with_stdin(&[], Some(&stdin), settings(), Path::new("/"), 1);
    let mut out = Vec::new();
    let _ = render(&mut out, &report, OutputFormat::Full, false);
    let _ = render(&mut out, &report, OutputFormat::Json, false);
});
