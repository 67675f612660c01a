//! `twice review` output: a terminal report, Markdown for a pull-request comment, and JSON.

use std::io::{self, Write};

use clap::ValueEnum;
use serde::Serialize;

use crate::i18n::{Lang, tr};
use crate::review::{Finding, Summary, TaskReview, Verdict, summarize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReviewFormat {
    /// A readable report for the terminal.
    Terminal,
    /// A summary table and a section per task that is not safe, for a pull-request comment.
    Markdown,
    /// The same data as JSON (schema in the README).
    Json,
}

/// Renders the reviews with English texts.
pub fn render_review(
    out: &mut dyn Write,
    reviews: &[TaskReview],
    format: ReviewFormat,
    color: bool,
) -> io::Result<()> {
    render_review_in(out, reviews, format, color, Lang::En)
}

/// Renders the reviews with the report's own texts in `lang` (the reviews' texts are already in
/// the language they were made in).
pub fn render_review_in(
    out: &mut dyn Write,
    reviews: &[TaskReview],
    format: ReviewFormat,
    color: bool,
    lang: Lang,
) -> io::Result<()> {
    match format {
        ReviewFormat::Terminal => terminal(out, reviews, color, lang),
        ReviewFormat::Markdown => markdown(out, reviews, lang),
        ReviewFormat::Json => json(out, reviews),
    }
}

/// `5 tasks: 2 safe, 1 at risk, 2 unsafe, 0 unknown`.
pub fn summary_line(summary: &Summary) -> String {
    summary_line_in(summary, Lang::En)
}

/// The summary line in `lang`.
pub fn summary_line_in(summary: &Summary, lang: Lang) -> String {
    tr!(
        lang,
        "review.summary",
        count = summary.tasks,
        task_word = lang.plural("plural.task", summary.tasks),
        safe = summary.safe,
        at_risk = summary.at_risk,
        unsafe = summary.unsafe_,
        unknown = summary.unknown
    )
}

fn paint(text: &str, verdict: Verdict, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let code = match verdict {
        Verdict::Unsafe => "1;31",
        Verdict::AtRisk => "1;33",
        Verdict::Unknown => "1;35",
        Verdict::Safe => "1;32",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

fn terminal(
    out: &mut dyn Write,
    reviews: &[TaskReview],
    color: bool,
    lang: Lang,
) -> io::Result<()> {
    for review in reviews {
        let verdict = paint(
            &review.verdict.label(lang).to_uppercase(),
            review.verdict,
            color,
        );
        writeln!(
            out,
            "{verdict}  {}  ({}, {}:{}) · {}",
            review.task,
            review.framework,
            review.file,
            review.line,
            review.exposure.label(lang)
        )?;
        let d = &review.delivery;
        writeln!(
            out,
            "{}",
            tr!(
                lang,
                "review.delivery",
                acks = d.acks,
                reject = d.reject_on_worker_lost,
                retries = d.retries
            )
        )?;
        writeln!(
            out,
            "{}",
            tr!(
                lang,
                "review.limits",
                time_limit = d.time_limit,
                broker = d.broker
            )
        )?;
        if review.steps.is_empty() {
            writeln!(out, "{}", lang.text("review.nothing"))?;
        }
        let line_word = lang.text("review.step");
        for (i, step) in review.steps.iter().enumerate() {
            writeln!(
                out,
                "  {:>2}. {line_word} {:<5} {}",
                i + 1,
                step.line,
                step.text
            )?;
            if let Some(crash) = &step.crash {
                writeln!(out, "{}", tr!(lang, "review.crash", crash = crash))?;
            }
        }
        if !review.complete {
            writeln!(out, "{}", lang.text("review.incomplete"))?;
        }
        for finding in &review.findings {
            writeln!(
                out,
                "{}",
                tr!(
                    lang,
                    "review.finding",
                    code = finding.code,
                    line = finding.line,
                    message = finding.message
                )
            )?;
        }
        for finding in &review.suppressed {
            writeln!(
                out,
                "{}",
                tr!(
                    lang,
                    "review.suppressed",
                    code = finding.code,
                    line = finding.line
                )
            )?;
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", summary_line_in(&summarize(reviews), lang))
}

fn markdown(out: &mut dyn Write, reviews: &[TaskReview], lang: Lang) -> io::Result<()> {
    let summary = summarize(reviews);
    writeln!(out, "{}\n", lang.text("review.md_title"))?;
    writeln!(out, "**{}**\n", summary_line_in(&summary, lang))?;
    writeln!(out, "{}", lang.text("review.md_table"))?;
    writeln!(out, "|---|---|---|---|")?;
    for review in reviews {
        let codes = distinct_codes(&review.findings);
        let silenced = distinct_codes(&review.suppressed);
        let mut cell = if codes.is_empty() {
            "—".to_string()
        } else {
            codes.join(", ")
        };
        if !silenced.is_empty() {
            cell.push(' ');
            cell.push_str(&tr!(
                lang,
                "review.md_suppressed_cell",
                codes = silenced.join(", ")
            ));
        }
        writeln!(
            out,
            "| {} | `{}` ({}:{}) | {} | {} |",
            review.verdict.label(lang),
            review.task,
            review.file,
            review.line,
            review.exposure.label(lang),
            cell
        )?;
    }
    for review in reviews.iter().filter(|r| r.verdict != Verdict::Safe) {
        writeln!(
            out,
            "\n### {}: `{}`\n",
            review.verdict.label(lang),
            review.task
        )?;
        writeln!(
            out,
            "{} · `{}:{}` · {}\n",
            review.framework,
            review.file,
            review.line,
            review.exposure.label(lang)
        )?;
        let d = &review.delivery;
        writeln!(
            out,
            "{}",
            tr!(
                lang,
                "review.md_delivery",
                acks = d.acks,
                reject = d.reject_on_worker_lost,
                retries = d.retries,
                time_limit = d.time_limit,
                broker = d.broker
            )
        )?;
        writeln!(out, "{}", lang.text("review.md_story"))?;
        if review.steps.is_empty() {
            writeln!(out, "{}", lang.text("review.md_nothing"))?;
        }
        for (i, step) in review.steps.iter().enumerate() {
            write!(
                out,
                "{}",
                tr!(
                    lang,
                    "review.md_step",
                    number = i + 1,
                    line = step.line,
                    text = step.text
                )
            )?;
            match &step.crash {
                Some(crash) => writeln!(out, "{}", tr!(lang, "review.md_crash", crash = crash))?,
                None => writeln!(out)?,
            }
        }
        if !review.complete {
            writeln!(out, "{}", lang.text("review.md_incomplete"))?;
        }
        writeln!(out, "{}", lang.text("review.md_findings"))?;
        for finding in &review.findings {
            writeln!(
                out,
                "{}",
                tr!(
                    lang,
                    "review.md_finding",
                    code = finding.code,
                    name = finding.name,
                    line = finding.line,
                    message = finding.message
                )
            )?;
        }
        for finding in &review.suppressed {
            writeln!(
                out,
                "{}",
                tr!(
                    lang,
                    "review.md_suppressed",
                    code = finding.code,
                    name = finding.name,
                    line = finding.line
                )
            )?;
        }
    }
    Ok(())
}

/// The codes of `findings`, each once, in order.
fn distinct_codes(findings: &[Finding]) -> Vec<&'static str> {
    let mut codes = Vec::new();
    for finding in findings {
        if !codes.contains(&finding.code) {
            codes.push(finding.code);
        }
    }
    codes
}

#[derive(Serialize)]
struct JsonReview<'a> {
    summary: Summary,
    tasks: &'a [TaskReview],
}

fn json(out: &mut dyn Write, reviews: &[TaskReview]) -> io::Result<()> {
    serde_json::to_writer_pretty(
        &mut *out,
        &JsonReview {
            summary: summarize(reviews),
            tasks: reviews,
        },
    )
    .map_err(io::Error::other)?;
    writeln!(out)
}
