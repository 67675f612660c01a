//! The machine-readable output formats (SARIF, GitHub, GitLab, JUnit, pylint) on the bundled
//! example: snapshots of each, SARIF validated against the official 2.1.0 schema, and
//! fingerprints that survive code moving.

mod common;

use std::path::Path;

use common::{UNKEYED, example_shop, project, stdout, twice, write};
use serde_json::Value;

/// twice's output for the example, run inside it so that paths are relative.
fn shop(format: &str) -> String {
    let out = twice(&example_shop(), &["check", "--output-format", format]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// The version changes with every release; the snapshots should not.
fn redact_version(text: &str) -> String {
    text.replace(
        &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"[version]\"",
    )
}

fn sarif_schema_validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("resources/test/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(path).expect("the SARIF schema");
    let mut schema: Value = serde_json::from_str(&text).expect("schema JSON");
    // This copy of the schema keeps the log's own constraints in `definitions/Root` and
    // leaves the top level unconstrained: validate against `Root`, or anything passes.
    let root = schema.as_object_mut().expect("schema object");
    assert!(
        root["definitions"].get("Root").is_some(),
        "the schema defines Root"
    );
    root.insert(
        "allOf".into(),
        serde_json::json!([{ "$ref": "#/definitions/Root" }]),
    );
    // The published `language` patterns have an unescaped `]`, which ECMA-262 reads as a
    // literal in non-Unicode mode but the meta-schema's strict `regex` format check rejects:
    // escape it (same meaning; twice never writes `language`).
    let patched = escape_language_patterns(&mut schema);
    assert!(
        patched >= 1,
        "the schema's language patterns changed; revisit this"
    );
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("a valid schema")
}

/// Escapes the stray `]` in the schema's `language` patterns; returns how many it changed.
fn escape_language_patterns(value: &mut Value) -> usize {
    match value {
        Value::Object(map) => {
            let mut changed = 0;
            for (key, child) in map.iter_mut() {
                if key == "pattern"
                    && let Some(pattern) = child.as_str()
                    && pattern.ends_with("}]?$")
                {
                    *child = pattern.replace("}]?$", "}\\]?$").into();
                    changed += 1;
                } else {
                    changed += escape_language_patterns(child);
                }
            }
            changed
        }
        Value::Array(items) => items.iter_mut().map(escape_language_patterns).sum(),
        _ => 0,
    }
}

fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn sarif_is_valid_against_the_official_schema() {
    let validator = sarif_schema_validator();
    let log: Value = serde_json::from_str(&shop("sarif")).expect("SARIF is JSON");
    let errors = schema_errors(&validator, &log);
    assert!(errors.is_empty(), "{errors:#?}");

    // The validator bites: documents that break the schema fail.
    for broken in [
        serde_json::json!({ "version": "2.1.0" }),
        serde_json::json!({ "version": "2.0.0", "runs": [] }),
        {
            let mut bad = log.clone();
            bad["runs"][0]["results"][0]["level"] = "fatal".into();
            bad
        },
        {
            let mut bad = log.clone();
            bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
                0.into();
            bad
        },
    ] {
        assert!(
            !schema_errors(&validator, &broken).is_empty(),
            "should be invalid: {broken:.200}"
        );
    }
}

#[test]
fn sarif_describes_every_rule_and_result() {
    let log: Value = serde_json::from_str(&shop("sarif")).expect("SARIF is JSON");
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "twice");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), twice::rules::ALL.len());
    for (rule, meta) in rules.iter().zip(twice::rules::ALL) {
        assert_eq!(rule["id"], meta.code);
        assert_eq!(rule["name"], meta.name);
        assert_eq!(rule["shortDescription"]["text"], meta.summary);
        assert_eq!(
            rule["defaultConfiguration"]["level"],
            meta.severity.as_str()
        );
        let full = rule["fullDescription"]["text"].as_str().expect("text");
        assert!(!full.is_empty() && !full.contains('#'), "{full}");
        let markdown = rule["help"]["markdown"].as_str().expect("markdown");
        assert!(markdown.starts_with("## What it does"), "{markdown}");
        assert!(
            rule["helpUri"]
                .as_str()
                .is_some_and(|u| u.starts_with("https://"))
        );
    }
    let results = run["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for result in results {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let location = &result["locations"][0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(!uri.starts_with('/') && !uri.contains('\\'), "{uri}");
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(
            result["partialFingerprints"]["twice/v1"]
                .as_str()
                .is_some_and(|f| f.len() > 16)
        );
    }
    // A reached effect carries the path to it.
    let reached = results
        .iter()
        .find(|r| r["ruleId"] == "TW101")
        .expect("a TW101");
    let related = reached["relatedLocations"].as_array().expect("related");
    assert!(
        related
            .iter()
            .any(|l| l["physicalLocation"]["artifactLocation"]["uri"] == "orders/payments.py"),
        "{related:#?}"
    );
}

#[test]
fn sarif_snapshot() {
    let mut log: Value = serde_json::from_str(&shop("sarif")).expect("SARIF is JSON");
    // Rule documentation is the rules' own business (`twice rule`); keep it out of this
    // snapshot.
    for rule in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array_mut()
        .expect("rules")
    {
        rule["help"]["text"] = "[documentation]".into();
        rule["help"]["markdown"] = "[documentation]".into();
    }
    let text = serde_json::to_string_pretty(&log).expect("json");
    insta::assert_snapshot!("sarif", redact_version(&text));
}

#[test]
fn github_snapshot() {
    insta::assert_snapshot!("github", shop("github"));
}

#[test]
fn gitlab_snapshot() {
    insta::assert_snapshot!("gitlab", shop("gitlab"));
}

#[test]
fn junit_snapshot() {
    insta::assert_snapshot!("junit", shop("junit"));
}

#[test]
fn pylint_snapshot() {
    insta::assert_snapshot!("pylint", shop("pylint"));
}

#[test]
fn gitlab_report_has_the_code_quality_fields() {
    let issues: Value = serde_json::from_str(&shop("gitlab")).expect("JSON");
    let issues = issues.as_array().expect("array");
    let mut fingerprints = std::collections::HashSet::new();
    for issue in issues {
        for field in ["description", "check_name", "fingerprint", "severity"] {
            assert!(issue[field].is_string(), "{field} in {issue}");
        }
        assert!(["critical", "major"].contains(&issue["severity"].as_str().unwrap_or("")));
        assert!(issue["location"]["path"].is_string());
        assert!(issue["location"]["lines"]["begin"].as_u64().is_some());
        assert!(
            fingerprints.insert(issue["fingerprint"].to_string()),
            "unique"
        );
    }
}

#[test]
fn github_commands_escape_messages_and_properties() {
    // A file name with a comma and a colon, and a message with a newline-free percent sign
    // (the task name) must not break the command's syntax.
    let dir = project(&[("a,b:c.py", UNKEYED)]);
    let out = twice(dir.path(), &["check", "--output-format", "github"]);
    let text = stdout(&out);
    let line = text.lines().next().expect("a command");
    assert!(
        line.starts_with("::error file=a%2Cb%3Ac.py,line=7,col=5,endLine=7,endColumn="),
        "{line}"
    );
    assert!(
        line.contains(",title=TW101 (effect-without-idempotency-key)::"),
        "{line}"
    );
    assert!(line.contains("%0Ahelp: "), "{line}");
    assert_eq!(text.lines().count(), 1, "one line per diagnostic: {text}");
}

#[test]
fn junit_escapes_xml() {
    let dir = project(&[("tasks.py", UNKEYED), ("a&b.py", "x = 1\n")]);
    let out = twice(dir.path(), &["check", "--output-format", "junit"]);
    let text = stdout(&out);
    assert!(
        text.contains(r#"<testcase name="a&amp;b.py" classname="a&amp;b.py"/>"#),
        "{text}"
    );
    assert!(
        text.contains(r#"<failure message="`stripe.PaymentIntent.create`"#),
        "{text}"
    );
    assert!(text.contains(r#"type="TW101""#), "{text}");
    assert!(text.contains("tasks.py:7:5: TW101"), "{text}");
    assert!(text.contains(r#"tests="2" failures="1""#), "{text}");
    assert!(!text.contains("All checks passed") && !text.contains("Found "));
}

#[test]
fn pylint_lines_follow_ruff() {
    let dir = project(&[("tasks.py", UNKEYED)]);
    let out = twice(dir.path(), &["check", "--output-format", "pylint"]);
    assert_eq!(
        stdout(&out),
        "tasks.py:7: [TW101] `stripe.PaymentIntent.create` is a payment without an idempotency key: a second run of `charge` charges or pays out again; Stripe makes up a random key when none is passed, which does not protect against the task running twice\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn fingerprints_survive_code_moving_above() {
    let dir = project(&[("tasks.py", UNKEYED)]);
    let fingerprints = |dir: &Path| {
        let out = twice(dir, &["check", "--output-format", "sarif"]);
        let log: Value = serde_json::from_slice(&out.stdout).expect("SARIF");
        let sarif: Vec<(Value, Value)> = log["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| {
                (
                    r["partialFingerprints"].clone(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"].clone(),
                )
            })
            .collect();
        let out = twice(dir, &["check", "--output-format", "gitlab"]);
        let gitlab: Value = serde_json::from_slice(&out.stdout).expect("GitLab JSON");
        (sarif, gitlab[0]["fingerprint"].clone())
    };
    let (before, gitlab_before) = fingerprints(dir.path());
    let moved = UNKEYED.replace(
        "import stripe\n",
        "import stripe\nimport logging\n\nlog = logging.getLogger(__name__)\n",
    );
    write(dir.path(), "tasks.py", &moved);
    let (after, gitlab_after) = fingerprints(dir.path());
    assert_eq!(before.len(), 1);
    assert_eq!(after.len(), 1);
    assert_ne!(before[0].1, after[0].1, "the finding moved");
    assert_eq!(before[0].0, after[0].0, "its fingerprint did not");
    assert_eq!(gitlab_before, gitlab_after);
}
