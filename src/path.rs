//! Qualified paths of expressions (`stripe.PaymentIntent.create`, `boto3.client(sqs).send_message`)
//! and the glob patterns of the catalog that match them.

use std::fmt;

pub use crate::intern::Sym;

/// One segment of a path: a name, possibly called, with the first argument when it is a
/// short string literal (`client("sqs")` → `client(sqs)`).
///
/// Names (and string arguments) are interned numbers ([`Sym`]): a segment takes 12 bytes, and
/// segments compare and hash without reading text (paths are map keys all through the project
/// phase).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Seg {
    pub name: Sym,
    pub call: Call,
}

/// Whether a name can be a Python identifier (a module, package or attribute name): letters,
/// digits and `_`, not starting with a digit.
pub fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The words of an identifier, split at `_`, `.`, digits and lower-to-upper case changes:
/// `report_lock` → `report`, `lock`; `fileLock` → `file`, `Lock`; `LOCK` → `LOCK`.
pub fn identifier_words(name: &str) -> impl Iterator<Item = &str> {
    let bytes = name.as_bytes();
    let mut start = 0;
    let mut at = 0;
    std::iter::from_fn(move || {
        while at <= bytes.len() {
            let i = at;
            at += 1;
            let boundary = i == bytes.len()
                || !bytes[i].is_ascii_alphabetic()
                || (i > start
                    && bytes[i].is_ascii_uppercase()
                    && bytes[i - 1].is_ascii_lowercase());
            if !boundary {
                continue;
            }
            // Non-ASCII letters end a word too: nothing here splits a character.
            let word = name.get(start..i).unwrap_or_default();
            // A separator is not part of the next word; an upper-case letter starts it.
            start = if i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i
            } else {
                i + 1
            };
            if !word.is_empty() {
                return Some(word);
            }
        }
        None
    })
}

/// `head.tail`, allocated once at its size: qualified names are built for every function, class
/// and import, and `format!` costs several times as much (its machinery and a regrowth).
pub fn dotted_join(head: &str, tail: &str) -> String {
    let mut out = String::with_capacity(head.len() + 1 + tail.len());
    out.push_str(head);
    out.push('.');
    out.push_str(tail);
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Call {
    /// An attribute or name, not called.
    No,
    /// Called, without a string-literal first argument.
    Any,
    /// Called with this string literal as first argument.
    Str(Sym),
}

impl Seg {
    pub fn name(name: &str) -> Self {
        Self {
            name: Sym::new(name),
            call: Call::No,
        }
    }
}

/// A resolved path: the imports and local bindings of its head are replaced by what they name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct QPath(pub Vec<Seg>);

impl QPath {
    pub fn from_dotted(dotted: &str) -> Self {
        QPath(
            dotted
                .split('.')
                .filter(|s| !s.is_empty())
                .map(Seg::name)
                .collect(),
        )
    }

    pub fn segs(&self) -> &[Seg] {
        &self.0
    }

    pub fn last_name(&self) -> Option<&'static str> {
        self.0.last().map(|seg| seg.name.as_str())
    }

    pub fn is_call(&self) -> bool {
        self.0.last().is_some_and(|seg| seg.call != Call::No)
    }

    /// The path called: a class's path becomes an instance of it (`shop.Pay` → `shop.Pay()`).
    pub fn instance(mut self) -> QPath {
        if let Some(last) = self.0.last_mut() {
            last.call = Call::Any;
        }
        self
    }

    /// The dotted names without calls: `a.b().c` → `a.b.c`.
    pub fn dotted(&self) -> String {
        let len = self.0.iter().map(|seg| seg.name.len() + 1).sum::<usize>();
        let mut out = String::with_capacity(len.saturating_sub(1));
        for (i, seg) in self.0.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            out.push_str(&seg.name);
        }
        out
    }

    /// The longest prefix without any call, as a dotted string.
    pub fn plain_prefix_len(&self) -> usize {
        self.0
            .iter()
            .position(|seg| seg.call != Call::No)
            .map_or(self.0.len(), |i| i + 1)
    }

    #[must_use]
    pub fn join(&self, rest: &[Seg]) -> QPath {
        let mut segs = self.0.clone();
        segs.extend_from_slice(rest);
        QPath(segs)
    }

    /// Whether any segment (without calls) equals `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|seg| seg.name == name)
    }
}

impl fmt::Display for QPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(&seg.name)?;
            match &seg.call {
                Call::No => {}
                Call::Any => f.write_str("()")?,
                Call::Str(s) => write!(f, "(\"{s}\")")?,
            }
        }
        Ok(())
    }
}

/// A catalog pattern, parsed once.
#[derive(Clone, Debug)]
pub struct Pattern {
    segs: Vec<PatSeg>,
    source: String,
}

#[derive(Clone, Debug)]
enum PatSeg {
    /// `**`: any number of segments.
    Any,
    Name {
        glob: Box<str>,
        /// The name when `glob` has no wildcard: compared as a number, not as text (patterns
        /// are matched against nearly every call of the checked code).
        literal: Option<Sym>,
        call: PatCall,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum PatCall {
    Either,
    Required,
    Str(Sym),
}

impl Pattern {
    pub fn parse(source: &str) -> Pattern {
        let mut segs = Vec::new();
        for part in split_segments(source) {
            if part == "**" {
                segs.push(PatSeg::Any);
                continue;
            }
            let (name, call) = match part.find('(') {
                Some(open) => {
                    let inner = part[open + 1..].trim_end_matches(')').trim_matches('"');
                    let call = if inner.is_empty() {
                        PatCall::Required
                    } else {
                        PatCall::Str(Sym::new(inner))
                    };
                    (&part[..open], call)
                }
                None => (part, PatCall::Either),
            };
            segs.push(PatSeg::Name {
                glob: name.into(),
                literal: (!name.contains('*')).then(|| Sym::new(name)),
                call,
            });
        }
        Pattern {
            segs,
            source: source.to_string(),
        }
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// The literal last name, when there is one: patterns are indexed by it.
    pub fn last_literal(&self) -> Option<&str> {
        match self.segs.last()? {
            PatSeg::Name {
                literal: Some(name),
                ..
            } => Some(name.as_str()),
            _ => None,
        }
    }

    pub fn matches(&self, path: &QPath) -> bool {
        matches_from(&self.segs, &path.0)
    }

    /// The segments that are plain names, without wildcards.
    pub fn literal_names(&self) -> impl Iterator<Item = &str> {
        self.segs.iter().filter_map(|seg| match seg {
            PatSeg::Name { glob, .. } if !glob.contains(['*', '?', '[']) => Some(&**glob),
            _ => None,
        })
    }
}

/// Splits on dots that are not inside parentheses.
fn split_segments(source: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, ch) in source.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '.' if depth == 0 => {
                parts.push(&source[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&source[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

fn matches_from(pat: &[PatSeg], path: &[Seg]) -> bool {
    match pat.split_first() {
        None => path.is_empty(),
        Some((PatSeg::Any, rest)) => (0..=path.len()).any(|skip| matches_from(rest, &path[skip..])),
        Some((
            PatSeg::Name {
                glob,
                literal,
                call,
            },
            rest,
        )) => {
            let Some((seg, path_rest)) = path.split_first() else {
                return false;
            };
            let name_ok = match literal {
                Some(name) => seg.name == *name,
                None => glob_match(glob, &seg.name),
            };
            let call_ok = match call {
                PatCall::Either => true,
                PatCall::Required => seg.call != Call::No,
                PatCall::Str(s) => seg.call == Call::Str(*s),
            };
            name_ok && call_ok && matches_from(rest, path_rest)
        }
    }
}

/// `*` in a segment matches any run of characters.
pub fn glob_match(glob: &str, text: &str) -> bool {
    if !glob.contains('*') {
        return glob == text;
    }
    let parts: Vec<&str> = glob.split('*').collect();
    let mut rest = text;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(after) = rest.strip_prefix(part) else {
                return false;
            };
            rest = after;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else if let Some(pos) = rest.find(part) {
            rest = &rest[pos + part.len()..];
        } else {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_words_split_at_separators_and_case_changes() {
        let words = |name| identifier_words(name).collect::<Vec<_>>();
        assert_eq!(words("report_lock"), ["report", "lock"]);
        assert_eq!(words("fileLock"), ["file", "Lock"]);
        assert_eq!(words("self.LOCK2x"), ["self", "LOCK", "x"]);
        assert_eq!(words("__block__"), ["block"]);
        assert_eq!(words("zéroLock"), ["z", "ro", "Lock"]);
        assert!(words("").is_empty());
    }

    fn path(segs: &[(&str, Call)]) -> QPath {
        QPath(
            segs.iter()
                .map(|(n, c)| Seg {
                    name: Sym::new(n),
                    call: *c,
                })
                .collect(),
        )
    }

    #[test]
    fn patterns_match_segments_calls_and_globs() {
        let p = Pattern::parse("stripe.*.create");
        assert!(p.matches(&QPath::from_dotted("stripe.PaymentIntent.create")));
        assert!(!p.matches(&QPath::from_dotted("stripe.PaymentIntent.retrieve")));
        assert!(!p.matches(&QPath::from_dotted("stripe.create")));

        let sqs = Pattern::parse("boto3.client(sqs).send_message");
        let good = path(&[
            ("boto3", Call::No),
            ("client", Call::Str(Sym::new("sqs"))),
            ("send_message", Call::Any),
        ]);
        let bad = path(&[
            ("boto3", Call::No),
            ("client", Call::Str(Sym::new("ses"))),
            ("send_message", Call::Any),
        ]);
        assert!(sqs.matches(&good));
        assert!(!sqs.matches(&bad));

        let deep = Pattern::parse("twilio.rest.Client.**.messages.create");
        assert!(deep.matches(&QPath::from_dotted(
            "twilio.rest.Client.api.v2010.messages.create"
        )));
        assert!(deep.matches(&QPath::from_dotted("twilio.rest.Client.messages.create")));
        assert!(
            Pattern::parse("taskiq*.*.task")
                .matches(&QPath::from_dotted("taskiq_redis.ListQueueBroker.task"))
        );
        assert_eq!(deep.last_literal(), Some("create"));
    }
}
