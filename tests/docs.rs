//! `docs/rules.md`, where the SARIF and GitLab reports' rule links point, is the rules' own
//! documentation: every rule under the anchor its link names, and nothing edited by hand.

use twice::i18n::Lang;
use twice::render::rule_url;
use twice::rules::ALL;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md");

#[test]
fn rules_document_is_generated_from_the_rules() {
    let generated = twice::cli::rules_document(Lang::En);
    if std::env::var_os("TWICE_UPDATE_DOCS").is_some() {
        std::fs::write(PATH, &generated).expect("write docs/rules.md");
    }
    let on_disk = std::fs::read_to_string(PATH).expect("docs/rules.md");
    assert!(
        on_disk == generated,
        "docs/rules.md is out of date: run `TWICE_UPDATE_DOCS=1 cargo test --test docs`"
    );
}

#[test]
fn every_rule_link_finds_its_section() {
    let doc = twice::cli::rules_document(Lang::En);
    for rule in ALL {
        let url = rule_url(rule.code);
        let (page, anchor) = url.split_once('#').expect("an anchor");
        assert!(page.ends_with("/docs/rules.md"), "{url}");
        let target = format!(
            "<a id=\"{anchor}\"></a>\n\n## {} ({})",
            rule.name, rule.code
        );
        assert!(doc.contains(&target), "{url}: no `{target}`");
        // The rule's sections sit below its title, and its code blocks are untouched.
        let section = doc.split(&target).nth(1).expect("section");
        let section = section.split("<a id=").next().expect("own section");
        assert!(section.contains("\n### What it does\n"), "{}", rule.code);
        assert!(!section.contains("\n## "), "{}", rule.code);
    }
}
