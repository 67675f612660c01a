//! Reading and parsing one file: the only place that touches the parser. Produces the module's
//! facts, its syntax errors and its `# noqa` comments; the syntax tree is dropped here.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::{ModModule, PySourceType};
use ruff_python_parser::{Parsed, parse_unchecked_source};
use ruff_source_file::{LineIndex, OneIndexed};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::catalog::Catalog;
use crate::facts::{ModuleFacts, extract};

/// What a `# noqa` comment on a line silences (or, at line 0, a `# twice: noqa` comment in the
/// whole file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Noqa {
    All,
    Codes(Vec<String>),
    /// A comment that looks like a directive but is not one: it silences nothing, and the
    /// command line warns about it, as ruff does.
    Invalid(NoqaError),
    /// A line continued into the line given, whose directive applies to it
    /// ([`spread_to_continued_lines`]).
    Continued(usize),
}

impl Noqa {
    pub fn silences(&self, code: &str) -> bool {
        match self {
            Noqa::All => true,
            Noqa::Codes(codes) => codes.iter().any(|c| c == code),
            Noqa::Invalid(_) | Noqa::Continued(_) => false,
        }
    }

    /// Both directives' codes (`# twice: noqa: TW101` twice in one file).
    fn merge(self, other: Noqa) -> Noqa {
        match (self, other) {
            (Noqa::All, _) | (_, Noqa::All) => Noqa::All,
            (Noqa::Codes(mut a), Noqa::Codes(b)) => {
                a.extend(b);
                Noqa::Codes(a)
            }
            (Noqa::Invalid(_) | Noqa::Continued(_), other)
            | (other, Noqa::Invalid(_) | Noqa::Continued(_)) => other,
        }
    }
}

/// Why a `noqa` comment is not a directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoqaError {
    /// `# noqa:` with no code after it (`# noqa: we retry`).
    MissingCodes,
    /// `noqa` followed by something other than `:` (`# noqanope`, `# noqa123`).
    InvalidSuffix,
}

impl fmt::Display for NoqaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NoqaError::MissingCodes => {
                "expected rule codes after `noqa:` (e.g. `# noqa: TW101, TW102`)"
            }
            NoqaError::InvalidSuffix => {
                "expected `:` and rule codes, or nothing, after `noqa` (e.g. `# noqa: TW101`)"
            }
        })
    }
}

/// A checked file: its line index, facts and problems, and its text when something needs it.
///
/// The text of a file read from disk is not kept after parsing: only the files that get a
/// diagnostic need it again, and holding every file's text would double the memory of a large
/// project. [`SourceFile::text`] reads it again, and checks it is what was parsed.
#[derive(Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The path as shown to the user (relative to the working directory when possible).
    pub display: String,
    text: OnceLock<String>,
    /// Length and hash of the parsed text, to recognise it when it is read again.
    parsed_len: usize,
    parsed_hash: u64,
    /// Where each line after the first starts, as LEB128 differences (a byte or two a line):
    /// enough to make a stand-in text ([`SourceFile::text`]) and its line index. The index is
    /// built only for files something is reported in ([`SourceFile::line_index`]).
    line_starts: Box<[u8]>,
    line_index: OnceLock<LineIndex>,
    pub facts: Option<ModuleFacts>,
    pub syntax_errors: Vec<(TextRange, String)>,
    /// Why the file could not be read, when it could not.
    pub unreadable: Option<String>,
    pub noqa: HashMap<usize, Noqa>,
}

impl SourceFile {
    /// The text that was parsed. For a file on disk it is read again on first use; if the file
    /// has changed since it was parsed (or cannot be read any more), the text is a blank one with
    /// the parsed text's length and line breaks, so that every offset in the facts still falls
    /// on its line and nothing shows code that was not analysed.
    pub fn text(&self) -> &str {
        self.text
            .get_or_init(|| self.read_parsed_text().unwrap_or_else(|| self.blank_text()))
    }

    /// Whether [`SourceFile::text`] is the code that was analysed (not a blank stand-in).
    pub fn text_is_current(&self) -> bool {
        self.is_parsed_text(self.text())
    }

    /// Whether the file on disk, read now, is still the text that was analysed. `--fix` asks
    /// this just before it edits: [`SourceFile::text`] may have been read long before.
    pub fn is_unchanged_on_disk(&self) -> bool {
        self.read_parsed_text().is_some()
    }

    /// The file read from disk now, if it is still the text that was parsed.
    fn read_parsed_text(&self) -> Option<String> {
        std::fs::read(&self.path)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .filter(|text| self.is_parsed_text(text))
    }

    fn is_parsed_text(&self, text: &str) -> bool {
        text.len() == self.parsed_len && hash_text(text) == self.parsed_hash
    }

    fn blank_text(&self) -> String {
        let mut blank = vec![b' '; self.parsed_len];
        for start in decode_line_starts(&self.line_starts) {
            if let Some(byte) = blank.get_mut(start.wrapping_sub(1)) {
                *byte = b'\n';
            }
        }
        String::from_utf8(blank).unwrap_or_default()
    }

    /// The line index of the parsed text. A stand-in text breaks its lines where the parsed
    /// one did, so either gives the same lines.
    pub fn line_index(&self) -> &LineIndex {
        self.line_index
            .get_or_init(|| LineIndex::from_source_text(self.text()))
    }

    /// The one-based line of an offset.
    pub fn line(&self, offset: TextSize) -> usize {
        self.line_index().line_index(offset).get()
    }

    /// One-based line and column (in characters) of an offset.
    pub fn location(&self, offset: TextSize) -> (usize, usize) {
        let text = self.text();
        // Offsets come from the parsed text; a stand-in text has its length, but stay safe.
        let offset = offset.min(TextSize::try_from(text.len()).unwrap_or_default());
        let location = self.line_index().line_column(offset, text);
        (location.line.get(), location.column.get())
    }

    pub fn line_text(&self, line: usize) -> &str {
        let Some(line) = OneIndexed::new(line) else {
            return "";
        };
        if line.get() > self.line_index().line_count() {
            return "";
        }
        let text = self.text();
        let range = self.line_index().line_range(line, text);
        text.get(range.start().to_usize()..range.end().to_usize())
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }

    pub fn noqa_silences(&self, line: usize, code: &str) -> bool {
        let directive = |line: &usize| match self.noqa.get(line) {
            Some(Noqa::Continued(into)) => self.noqa.get(into),
            other => other,
        };
        [FILE_NOQA_LINE, line]
            .iter()
            .any(|line| directive(line).is_some_and(|noqa| noqa.silences(code)))
    }

    /// Codes of twice's own form (`TW` and digits) that a `noqa` comment lists but no rule
    /// has (`# noqa: TW999`), by line: they silence nothing. Other tools' codes (`E501`) are
    /// theirs to check.
    pub fn unknown_noqa_codes(&self) -> Vec<(usize, &str)> {
        let mut unknown: Vec<(usize, &str)> = self
            .noqa
            .iter()
            .flat_map(|(&line, noqa)| {
                match noqa {
                    Noqa::Codes(codes) => codes.as_slice(),
                    _ => &[],
                }
                .iter()
                .filter(|code| code.starts_with("TW") && crate::registry::find(code).is_none())
                .map(move |code| (line, code.as_str()))
            })
            .collect();
        unknown.sort_unstable();
        unknown
    }

    /// The comments that look like `noqa` directives but are not, by line.
    pub fn invalid_noqa(&self) -> Vec<(usize, NoqaError)> {
        let mut invalid: Vec<(usize, NoqaError)> = self
            .noqa
            .iter()
            .filter_map(|(&line, noqa)| match noqa {
                Noqa::Invalid(error) => Some((line, *error)),
                _ => None,
            })
            .collect();
        invalid.sort_unstable_by_key(|(line, _)| *line);
        invalid
    }
}

/// Reads and parses `path` as the module `module`.
pub fn load(
    path: &Path,
    display: String,
    module: &str,
    is_package: bool,
    catalog: &Catalog,
) -> SourceFile {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return unreadable(path, display, format!("cannot read the file: {error}")),
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let at = error.utf8_error().valid_up_to();
            return unreadable(
                path,
                display,
                format!("the file is not valid UTF-8 (invalid byte at offset {at})"),
            );
        }
    };
    parse_text(
        path.to_path_buf(),
        display,
        text,
        module,
        is_package,
        catalog,
        false,
    )
}

/// The starts of the lines after the first, as LEB128 differences from the previous start. Lines
/// end as [`LineIndex`] ends them (`\n`, `\r\n` or a lone `\r`), found the same way, but written
/// straight into the encoding: the index itself is built only for files with a diagnostic.
fn encode_line_starts(text: &str) -> Box<[u8]> {
    let bytes = text.as_bytes();
    // A byte a line for lines under 128 bytes: nearly all of them.
    let mut encoded = Vec::with_capacity(bytes.len() / 32 + 1);
    let mut previous = 0usize;
    for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
            continue;
        }
        let start = at + 1;
        let mut delta = start - previous;
        previous = start;
        loop {
            let low = (delta & 0x7f) as u8;
            delta >>= 7;
            if delta == 0 {
                encoded.push(low);
                break;
            }
            encoded.push(low | 0x80);
        }
    }
    encoded.into_boxed_slice()
}

/// One-based line numbers of increasing offsets, read from encoded line starts: for the few
/// comments that hold a `# noqa`, without a line index.
struct LineFinder<I: Iterator<Item = usize>> {
    /// The starts of the lines after the current one.
    starts: std::iter::Peekable<I>,
    line: usize,
}

impl<I: Iterator<Item = usize>> LineFinder<I> {
    /// From the starts of the lines after the first ([`decode_line_starts`]).
    fn new(starts: I) -> LineFinder<I> {
        LineFinder {
            starts: starts.peekable(),
            line: 1,
        }
    }

    /// The line of `offset`, which is not before the offset asked last.
    fn line(&mut self, offset: usize) -> usize {
        while self.starts.next_if(|&start| start <= offset).is_some() {
            self.line += 1;
        }
        self.line
    }
}

fn decode_line_starts(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut at = 0;
    let mut start = 0usize;
    std::iter::from_fn(move || {
        let mut delta = 0usize;
        let mut shift = 0;
        loop {
            let byte = *bytes.get(at)?;
            at += 1;
            delta |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        start += delta;
        Some(start)
    })
}

/// A hash of a file's text, to tell whether a file read again is the one that was parsed.
fn hash_text(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Parses `text` as the file at `path`. `keep_text` keeps the text with the facts (for text that
/// cannot be read again, such as standard input); otherwise it is dropped once parsed.
pub fn parse_text(
    path: PathBuf,
    display: String,
    text: String,
    module: &str,
    is_package: bool,
    catalog: &Catalog,
    keep_text: bool,
) -> SourceFile {
    let line_starts = encode_line_starts(&text);
    let (parsed_len, parsed_hash) = (text.len(), hash_text(&text));
    let kept = |text: String| {
        let lock = OnceLock::new();
        if keep_text {
            let _ = lock.set(text);
        }
        lock
    };
    // Nesting far beyond what CPython compiles would exhaust the stack of any recursive parser:
    // report it instead of parsing.
    if let Some((offset, why)) = excessive_nesting(&text) {
        let at = TextSize::try_from(offset).unwrap_or_default();
        return SourceFile {
            path,
            display,
            line_starts,
            line_index: OnceLock::new(),
            facts: None,
            syntax_errors: vec![(TextRange::empty(at), why)],
            unreadable: None,
            noqa: HashMap::default(),
            text: kept(text),
            parsed_len,
            parsed_hash,
        };
    }
    let read = |parsed: &Parsed<ModModule>| {
        let syntax_errors = parsed
            .errors()
            .iter()
            .map(|error| (error.location, error.error.to_string()))
            .collect();
        let mut noqa = HashMap::default();
        let mut lines = LineFinder::new(decode_line_starts(&line_starts));
        for token in parsed.tokens().iter() {
            if token.kind() != TokenKind::Comment {
                continue;
            }
            let range = token.range();
            let Some(comment) = text.get(range.start().to_usize()..range.end().to_usize()) else {
                continue;
            };
            if let Some((scope, directive)) = parse_noqa(comment) {
                let line = lines.line(range.start().to_usize());
                match (scope, directive) {
                    (NoqaScope::File, directive @ Noqa::Invalid(_))
                    | (NoqaScope::Line, directive) => {
                        noqa.insert(line, directive);
                    }
                    (NoqaScope::File, directive) => {
                        let merged = match noqa.remove(&FILE_NOQA_LINE) {
                            Some(before) => before.merge(directive),
                            None => directive,
                        };
                        noqa.insert(FILE_NOQA_LINE, merged);
                    }
                }
            }
        }
        if noqa.keys().any(|&line| line != FILE_NOQA_LINE) {
            spread_to_continued_lines(&mut noqa, parsed, &text, &line_starts);
        }
        let facts = extract(parsed.suite(), &text, module, is_package, catalog);
        (syntax_errors, noqa, facts)
    };
    // The tree is read once, for its facts, and dropped: it is built, and its facts worked out,
    // in a scratch arena; the facts are then copied out.
    // SAFETY: the parser keeps nothing between calls (no statics, caches or thread-locals that
    // allocate; checked in ruff_python_parser 0.0.10 and its dependencies), its `Parsed` holds
    // no `Rc`/`Arc`. Extraction's only stores that outlive a file, the interner and the encoding
    // buffer, fill themselves `outside` the arena; the facts hold no `Rc`/`Arc`, and their
    // `Clone` copies every allocation.
    let (syntax_errors, noqa, facts) = unsafe {
        crate::arena::scratch(
            || parse_unchecked_source(&text, PySourceType::Python),
            read,
            Clone::clone,
        )
    };
    SourceFile {
        path,
        display,
        line_starts,
        line_index: OnceLock::new(),
        facts: Some(facts),
        syntax_errors,
        unreadable: None,
        noqa,
        text: kept(text),
        parsed_len,
        parsed_hash,
    }
}

/// Parses `text` as the module `module` (at `module/path.py`), keeping the text: for tests.
#[cfg(test)]
pub(crate) fn parse_module(module: &str, text: &str, catalog: &Catalog) -> SourceFile {
    parse_text(
        format!("{}.py", module.replace('.', "/")).into(),
        module.to_string(),
        text.to_string(),
        module,
        false,
        catalog,
        true,
    )
}

fn unreadable(path: &Path, display: String, reason: String) -> SourceFile {
    SourceFile {
        path: path.to_path_buf(),
        display,
        text: OnceLock::from(String::new()),
        parsed_len: 0,
        parsed_hash: hash_text(""),
        line_starts: Box::default(),
        line_index: OnceLock::new(),
        facts: None,
        syntax_errors: Vec::new(),
        unreadable: Some(reason),
        noqa: HashMap::default(),
    }
}

/// Nesting that twice does not parse. CPython's own limits are far lower (200 nested brackets in
/// its tokenizer, about 6000 levels in its parser), so such code does not compile anywhere.
const MAX_NESTING: usize = 20_000;

/// The offset and description of nesting deeper than [`MAX_NESTING`]: brackets, runs of unary
/// operators, or attribute chains, counted outside strings and comments.
pub fn excessive_nesting(text: &str) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    // Deeper nesting needs more than MAX_NESTING of one of these bytes: almost every file has
    // far fewer in all, and counting them is much cheaper than following strings and comments.
    // (One pass, a block at a time: the compiler vectorises the comparisons of a block.)
    // Blocks of 255 bytes, so that each count fits the byte lanes it is added up in.
    let counted = |block: &[u8]| {
        let hit = |b: u8| {
            (b == b'(') | (b == b'[') | (b == b'{') | (b == b'-') | (b == b'+') | (b == b'~')
                || b == b'.'
        };
        usize::from(
            block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(hit(b)))),
        )
    };
    if bytes.len() <= MAX_NESTING || bytes.chunks(255).map(counted).sum::<usize>() <= MAX_NESTING {
        return None;
    }
    let (mut depth, mut unary, mut dots) = (0usize, 0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => dots = 0,
            _ => {}
        }
        if matches!(b, b'-' | b'+' | b'~') {
            unary += 1;
        } else if !b.is_ascii_whitespace() {
            unary = 0;
        }
        if b == b'.' {
            dots += 1;
        }
        if depth > MAX_NESTING || unary > MAX_NESTING || dots > MAX_NESTING {
            let what = if depth > MAX_NESTING {
                "brackets"
            } else if unary > MAX_NESTING {
                "unary operators"
            } else {
                "attribute accesses"
            };
            return Some((
                i,
                format!(
                    "more than {MAX_NESTING} nested {what}: too deep to analyse (CPython does not compile it either)"
                ),
            ));
        }
        i += 1;
    }
    None
}

/// The index after the string literal starting at `start` (a quote), triple-quoted or not.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let triple = bytes.get(start + 1) == Some(&quote) && bytes.get(start + 2) == Some(&quote);
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' if !triple => return i,
            b if b == quote => {
                if !triple {
                    return i + 1;
                }
                if bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote) {
                    return i + 3;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// A line that goes on past its end cannot hold a comment: a `noqa` at the end of the statement
/// or string it continues into applies to it too, as in ruff. The lines before a line with a
/// `noqa` that end in a backslash (`stripe.Refund.create(charge=c, \`), and the lines of a
/// string that spans lines up to the one with the `noqa` (`send_mail("""Hi` ... `""", ...)  #
/// noqa`), get its directive, unless they have their own.
fn spread_to_continued_lines(
    noqa: &mut HashMap<usize, Noqa>,
    parsed: &Parsed<ModModule>,
    text: &str,
    line_starts: &[u8],
) {
    // The start of every line, the first's included: lines count from 1.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(decode_line_starts(line_starts))
        .collect();
    let line_of = |offset: usize| starts.partition_point(|&start| start <= offset);
    let line_text = |line: usize| {
        let start = starts
            .get(line.wrapping_sub(1))
            .copied()
            .unwrap_or(text.len());
        let end = starts.get(line).copied().unwrap_or(text.len());
        text.get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    };
    let mut spread: Vec<(usize, usize)> = Vec::new();
    for &line in noqa.keys() {
        let mut before = line.saturating_sub(1);
        while before > FILE_NOQA_LINE && line_text(before).ends_with('\\') {
            spread.push((before, line));
            before -= 1;
        }
    }
    // Strings across lines: plain ones are one token, f- and t-strings a start and an end.
    let mut opened: Vec<usize> = Vec::new();
    for token in parsed.tokens().iter() {
        let range = token.range();
        let span = match token.kind() {
            TokenKind::FStringStart | TokenKind::TStringStart => {
                opened.push(range.start().to_usize());
                continue;
            }
            TokenKind::FStringEnd | TokenKind::TStringEnd => match opened.pop() {
                Some(start) => (start, range.end().to_usize()),
                None => continue,
            },
            TokenKind::String => (range.start().to_usize(), range.end().to_usize()),
            _ => continue,
        };
        let (first, last) = (line_of(span.0), line_of(span.1.saturating_sub(1)));
        if last > first && noqa.contains_key(&last) {
            spread.extend((first..last).map(|line| (line, last)));
        }
    }
    for (line, into) in spread {
        noqa.entry(line).or_insert(Noqa::Continued(into));
    }
}

/// The key of [`SourceFile::noqa`] for a `# twice: noqa` comment (lines start at 1).
pub(crate) const FILE_NOQA_LINE: usize = 0;

/// Where a `noqa` directive applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoqaScope {
    /// `# noqa`, `# noqa: TW101`: the line it is on.
    Line,
    /// `# twice: noqa`, `# twice: noqa: TW101`: the whole file (ruff's `# ruff: noqa`).
    File,
}

/// `# noqa`, `# noqa: TW101, TW102` (also after other text in the comment, as ruff accepts),
/// `# twice: noqa[: codes]` for the whole file; a comment that starts a directive wrongly
/// (`# noqa:` with no codes, `# noqanope`) is [`Noqa::Invalid`].
pub fn parse_noqa(comment: &str) -> Option<(NoqaScope, Noqa)> {
    // Found without a lower-case copy of every comment: almost none says `noqa`.
    let bytes = comment.as_bytes();
    let start = memchr::memchr2_iter(b'n', b'N', bytes).find(|&at| {
        bytes
            .get(at..at + 4)
            .is_some_and(|word| word.eq_ignore_ascii_case(b"noqa"))
    })?;
    let before = comment[..start].trim_end();
    // `# twice: noqa` (only as the comment's start).
    let file_level = before
        .strip_prefix('#')
        .is_some_and(|rest| rest.trim_start().eq_ignore_ascii_case("twice:"));
    // `noqa` must start the comment or follow `#`-separated text: `# type: ignore # noqa`.
    let scope = if file_level {
        NoqaScope::File
    } else if before.ends_with('#') {
        NoqaScope::Line
    } else {
        return None;
    };
    let rest = &comment[start + 4..];
    let Some(codes) = rest
        .strip_prefix(':')
        .or_else(|| rest.trim_start().strip_prefix(':'))
    else {
        // `# noqa`, `# noqa  # why`, `# noqa explained`; not `# noqanope`.
        let ends = rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '#');
        return Some((
            scope,
            if ends {
                Noqa::All
            } else {
                Noqa::Invalid(NoqaError::InvalidSuffix)
            },
        ));
    };
    let mut found = Vec::new();
    for item in codes
        .split([',', ' ', '\t'])
        .filter(|item| !item.is_empty())
    {
        if let Some(code) = noqa_code(item) {
            found.push(code);
        } else {
            // The explanation after the codes: `# noqa: TW101 the provider dedups`.
            break;
        }
    }
    if found.is_empty() {
        Some((scope, Noqa::Invalid(NoqaError::MissingCodes)))
    } else {
        Some((scope, Noqa::Codes(found)))
    }
}

/// A rule code as a `noqa` comment lists it: letters then digits (`TW101`, `tw101`, ruff's
/// `E501`), upper-case letters alone (a code of another tool, `ANN`), or a twice rule's name
/// (`nondeterministic-idempotency-key`), as the code.
fn noqa_code(item: &str) -> Option<String> {
    let letters = item.bytes().take_while(u8::is_ascii_alphabetic).count();
    let digits = &item[letters..];
    let code = letters > 0
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (!digits.is_empty() || item.bytes().all(|b| b.is_ascii_uppercase()));
    if code {
        return Some(item.to_ascii_uppercase());
    }
    crate::registry::find(item)
        .filter(|rule| rule.name == item)
        .map(|rule| rule.code.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_starts_are_kept_compact_and_read_back_exactly() {
        let long = "x".repeat(20_000);
        let text = format!("a = 1\r\nb = 2\rc = 3\n\n{long}\n# é\nend");
        let index = LineIndex::from_source_text(&text);
        let bytes = encode_line_starts(&text);
        let decoded: Vec<usize> = decode_line_starts(&bytes).collect();
        let expected: Vec<usize> = index.line_starts()[1..]
            .iter()
            .map(|s| s.to_usize())
            .collect();
        assert_eq!(decoded, expected);
        // One byte for a short line, three for the 20 000-byte one.
        assert_eq!(bytes.len(), expected.len() + 2);
        // Every offset is on the line the index puts it on, end of text included.
        let mut lines = LineFinder::new(decode_line_starts(&bytes));
        for offset in 0..=text.len() {
            let at = TextSize::try_from(offset).expect("small");
            assert_eq!(lines.line(offset), index.line_index(at).get(), "{offset}");
        }
    }

    #[test]
    fn excessive_nesting_is_found_outside_strings() {
        let deep = format!(
            "x = {}{}",
            "[".repeat(MAX_NESTING + 1),
            "]".repeat(MAX_NESTING + 1)
        );
        assert!(excessive_nesting(&deep).is_some_and(|(_, why)| why.contains("brackets")));
        let unary = format!("x = {}1", "-".repeat(MAX_NESTING + 1));
        assert!(excessive_nesting(&unary).is_some());
        let in_string = format!(
            "x = \"{}\"\n# {}\n",
            "(".repeat(MAX_NESTING + 1),
            "[".repeat(MAX_NESTING + 1)
        );
        assert_eq!(excessive_nesting(&in_string), None);
        assert_eq!(excessive_nesting("f(a[1], {'k': (2, 3)})\n"), None);
    }

    #[test]
    fn text_is_read_again_and_a_changed_file_is_blanked() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("tasks.py");
        let code = "import uuid\n\ndef f():\n    return uuid.uuid4()\n";
        std::fs::write(&path, code).expect("write");
        let catalog = Catalog::new(&[], &[]);
        let load = || super::load(&path, "tasks.py".into(), "tasks", false, &catalog);
        // Not kept after parsing, read again on demand.
        let file = load();
        assert!(file.text.get().is_none());
        assert_eq!(file.text(), code);
        assert!(file.text_is_current());
        assert!(file.is_unchanged_on_disk());
        assert_eq!(file.line_text(4), "    return uuid.uuid4()");
        // Changed after its text was read again: the text stays, the disk is seen to differ.
        std::fs::write(&path, "x = 1\n").expect("write");
        assert!(file.text_is_current());
        assert!(!file.is_unchanged_on_disk());
        std::fs::write(&path, code).expect("write");
        // Changed after parsing: a blank text with the parsed lengths and line breaks.
        let file = load();
        std::fs::write(&path, "x = 1\n").expect("write");
        assert!(!file.text_is_current());
        assert!(!file.is_unchanged_on_disk());
        assert_eq!(file.text().len(), code.len());
        assert_eq!(file.text().lines().count(), 4);
        assert_eq!(file.line_text(4).trim(), "");
        assert_eq!(file.location(TextSize::new(27)), (4, 6));
        // Gone after parsing: the same.
        std::fs::write(&path, code).expect("write");
        let file = load();
        std::fs::remove_file(&path).expect("remove");
        assert_eq!(file.text().len(), code.len());
        // Text from standard input is kept.
        let kept = parse_text(
            path.clone(),
            "-".into(),
            code.into(),
            "m",
            false,
            &catalog,
            true,
        );
        assert_eq!(kept.text(), code);
    }

    #[test]
    fn calls_keep_only_the_arguments_rules_read() {
        let code = "\
import stripe
import Adyen

def f(order, key):
    summarize(order.items, order.total, label=\"x\")
    stripe.PaymentIntent.create(amount=order.total, idempotency_key=key)
    make_widget(order.id, auto_renewal=True, colour=1)
    try_lock(order.id, 60)
    Adyen.checkout.payments_api.payments(order.request)
    gateway.charge(order.total)
";
        let catalog = Catalog::new(&[], &[]);
        let file = parse_module("tasks", code, &catalog);
        let facts = file.facts.as_ref().expect("facts");
        let function = facts.functions.iter().find(|f| f.name() == "f").expect("f");
        let calls: Vec<&crate::facts::CallSite> = function
            .events()
            .iter()
            .filter_map(|event| match &event.kind {
                crate::facts::EventKind::Call(call) => Some(&**call),
                _ => None,
            })
            .collect();
        let call = |method: &str| {
            *calls
                .iter()
                .find(|call| call.method.as_str() == method)
                .unwrap_or_else(|| panic!("no call of {method}"))
        };
        let keywords = |method: &str| -> Vec<&str> {
            call(method)
                .keywords()
                .iter()
                .map(|(k, _)| k.as_str())
                .collect()
        };
        // A call nothing reads the arguments of keeps none.
        assert!(call("summarize").args().is_empty());
        assert!(keywords("summarize").is_empty());
        // A sink keeps everything.
        assert_eq!(keywords("create"), ["amount", "idempotency_key"]);
        // Any other call keeps the keywords the catalog names (a lock's renewal), not the rest.
        assert!(call("make_widget").args().is_empty());
        assert_eq!(keywords("make_widget"), ["auto_renewal"]);
        // A call named as taking a lock keeps all: a helper's TTL may be its argument.
        assert_eq!(call("try_lock").args().len(), 2);
        // A sink whose pattern ends in a wildcard, and a verb the heuristics know.
        assert_eq!(call("payments").args().len(), 1);
        assert_eq!(call("charge").args().len(), 1);
    }

    #[test]
    fn noqa_comments() {
        let line = |noqa| Some((NoqaScope::Line, noqa));
        let codes = |codes: &[&str]| Noqa::Codes(codes.iter().map(|c| c.to_string()).collect());
        assert_eq!(parse_noqa("# noqa"), line(Noqa::All));
        assert_eq!(parse_noqa("# noqa: TW101"), line(codes(&["TW101"])));
        assert_eq!(
            parse_noqa("# NOQA:TW101, tw102"),
            line(codes(&["TW101", "TW102"]))
        );
        assert_eq!(
            parse_noqa("# type: ignore # noqa: TW2"),
            line(codes(&["TW2"]))
        );
        assert_eq!(parse_noqa("# this is not a noqa"), None);
        assert_eq!(parse_noqa("# expect: TW101"), None);
        // An explanation ends the codes; another tool's codes are kept (and silence nothing
        // of twice's); a rule's name stands for its code.
        assert_eq!(
            parse_noqa("# noqa: TW101 the provider dedups by order id"),
            line(codes(&["TW101"]))
        );
        assert_eq!(
            parse_noqa("# noqa: E501, ANN,TW102"),
            line(codes(&["E501", "ANN", "TW102"]))
        );
        let name = crate::registry::find("TW101").expect("TW101").name;
        assert_eq!(
            parse_noqa(&format!("# noqa: {name}")),
            line(codes(&["TW101"]))
        );
        assert_eq!(parse_noqa("# noqa  # checked by hand"), line(Noqa::All));
        assert_eq!(parse_noqa("# noqa because it is fine"), line(Noqa::All));
        // Not directives: they silence nothing.
        let invalid = |error| line(Noqa::Invalid(error));
        assert_eq!(parse_noqa("# noqa:"), invalid(NoqaError::MissingCodes));
        assert_eq!(
            parse_noqa("# noqa: we retry anyway"),
            invalid(NoqaError::MissingCodes)
        );
        assert_eq!(parse_noqa("# noqanope"), invalid(NoqaError::InvalidSuffix));
        assert_eq!(parse_noqa("# noqa123"), invalid(NoqaError::InvalidSuffix));
        for comment in ["# noqa:", "# noqanope"] {
            let (_, noqa) = parse_noqa(comment).expect("a comment");
            assert!(!noqa.silences("TW101"));
        }
        // The whole file.
        assert_eq!(
            parse_noqa("# twice: noqa"),
            Some((NoqaScope::File, Noqa::All))
        );
        assert_eq!(
            parse_noqa("#Twice:noqa: TW601"),
            Some((NoqaScope::File, codes(&["TW601"])))
        );
        assert_eq!(
            parse_noqa("# twice: noqa:"),
            Some((NoqaScope::File, Noqa::Invalid(NoqaError::MissingCodes)))
        );
        assert_eq!(parse_noqa("# ruff: noqa"), None);
        assert_eq!(parse_noqa("# see twice: noqa"), None);
    }
}
