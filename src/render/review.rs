//! `twice review` output: a terminal report, Markdown for a pull-request comment, and JSON.

use std::io::{self, Write};

use clap::ValueEnum;
use serde::Serialize;

use crate::review::{Summary, TaskReview, Verdict, summarize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReviewFormat {
    /// A readable report for the terminal.
    Terminal,
    /// A summary table and a section per task that is not safe, for a pull-request comment.
    Markdown,
    /// The same data as JSON (schema in the README).
    Json,
}

pub fn render_review(
    out: &mut dyn Write,
    reviews: &[TaskReview],
    format: ReviewFormat,
    color: bool,
) -> io::Result<()> {
    match format {
        ReviewFormat::Terminal => terminal(out, reviews, color),
        ReviewFormat::Markdown => markdown(out, reviews),
        ReviewFormat::Json => json(out, reviews),
    }
}

pub fn summary_line(summary: &Summary) -> String {
    format!(
        "{} {}: {} safe, {} at risk, {} unsafe, {} unknown",
        summary.tasks,
        if summary.tasks == 1 { "task" } else { "tasks" },
        summary.safe,
        summary.at_risk,
        summary.unsafe_,
        summary.unknown
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

fn terminal(out: &mut dyn Write, reviews: &[TaskReview], color: bool) -> io::Result<()> {
    for review in reviews {
        let verdict = paint(
            &review.verdict.as_str().to_uppercase(),
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
            review.exposure.as_str()
        )?;
        let d = &review.delivery;
        writeln!(
            out,
            "  delivery: acks {} · reject on worker lost: {} · retries: {}",
            d.acks, d.reject_on_worker_lost, d.retries
        )?;
        writeln!(
            out,
            "            time limit: {} · broker: {}",
            d.time_limit, d.broker
        )?;
        if review.steps.is_empty() {
            writeln!(out, "  replay: nothing that matters on a second run")?;
        }
        for (i, step) in review.steps.iter().enumerate() {
            writeln!(out, "  {:>2}. line {:<5} {}", i + 1, step.line, step.text)?;
            if let Some(crash) = &step.crash {
                writeln!(out, "      crash after this step: {crash}")?;
            }
        }
        if !review.complete {
            writeln!(
                out,
                "  note: some calls could not be followed (dynamic dispatch); the story may be incomplete"
            )?;
        }
        for finding in &review.findings {
            writeln!(
                out,
                "  {} line {}: {}",
                finding.code, finding.line, finding.message
            )?;
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", summary_line(&summarize(reviews)))
}

fn markdown(out: &mut dyn Write, reviews: &[TaskReview]) -> io::Result<()> {
    let summary = summarize(reviews);
    writeln!(
        out,
        "## twice review: what happens when these tasks run twice?\n"
    )?;
    writeln!(out, "**{}**\n", summary_line(&summary))?;
    writeln!(out, "| verdict | task | touches | findings |")?;
    writeln!(out, "|---|---|---|---|")?;
    for review in reviews {
        let mut codes: Vec<&str> = Vec::new();
        for finding in &review.findings {
            if !codes.contains(&finding.code) {
                codes.push(finding.code);
            }
        }
        writeln!(
            out,
            "| {} | `{}` ({}:{}) | {} | {} |",
            review.verdict.as_str(),
            review.task,
            review.file,
            review.line,
            review.exposure.as_str(),
            if codes.is_empty() {
                "—".to_string()
            } else {
                codes.join(", ")
            }
        )?;
    }
    for review in reviews.iter().filter(|r| r.verdict != Verdict::Safe) {
        writeln!(
            out,
            "\n### {}: `{}`\n",
            review.verdict.as_str(),
            review.task
        )?;
        writeln!(
            out,
            "{} · `{}:{}` · {}\n",
            review.framework,
            review.file,
            review.line,
            review.exposure.as_str()
        )?;
        let d = &review.delivery;
        writeln!(
            out,
            "- **acks:** {}\n- **reject on worker lost:** {}\n- **retries:** {}\n- **time limit:** {}\n- **broker:** {}\n",
            d.acks, d.reject_on_worker_lost, d.retries, d.time_limit, d.broker
        )?;
        writeln!(out, "**Replay story**\n")?;
        if review.steps.is_empty() {
            writeln!(out, "Nothing that matters on a second run.")?;
        }
        for (i, step) in review.steps.iter().enumerate() {
            write!(out, "{}. line {}: {}", i + 1, step.line, step.text)?;
            match &step.crash {
                Some(crash) => writeln!(out, "  \n   *crash after this step:* {crash}")?,
                None => writeln!(out)?,
            }
        }
        if !review.complete {
            writeln!(
                out,
                "\n_Some calls could not be followed (dynamic dispatch): the story may be incomplete._"
            )?;
        }
        writeln!(out, "\n**Findings**\n")?;
        for finding in &review.findings {
            writeln!(
                out,
                "- `{}` ({}) line {}: {}",
                finding.code, finding.name, finding.line, finding.message
            )?;
        }
    }
    Ok(())
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
