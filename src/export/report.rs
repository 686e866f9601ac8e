//! `runner report DIR`: one self-contained HTML page of a results directory.
//!
//! The page holds every CSV table, every SVG picture inline and the run's
//! provenance from `manifest.json`, with no script and nothing fetched, so it
//! can be mailed, archived next to a paper, or opened years later offline.
//! Deterministic results come first; run details (time, host, commit) are
//! kept apart at the end, as in the directory itself.

use super::manifest::{RecheckPassed, Recorded};
use super::plot::Labels;
use super::table::CsvTable;
use crate::error::refuse;
use anyhow::Context;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The most rows of one table the page shows; a longer table is cut, and
/// the page says so and names the CSV that has all of it.
pub const MAX_ROWS: usize = 2000;

/// The file name the report is written to inside the directory.
pub const FILE_NAME: &str = "report.html";

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A CSV table as an HTML table with `id`, cut at `MAX_ROWS` rows.
fn table_html(name: &str, bytes: &[u8]) -> anyhow::Result<String> {
    let table = CsvTable::parse(name, bytes)?;
    let total = table.rows.len();
    let mut rows = String::new();
    for record in table.rows.iter().take(MAX_ROWS) {
        rows.push_str("<tr>");
        for field in record {
            let _ = write!(rows, "<td>{}</td>", escape(field));
        }
        rows.push_str("</tr>\n");
    }
    let mut html = String::new();
    let _ = write!(
        html,
        "<section class=\"table\" id=\"{id}\">\n<h3>{name}</h3>\n",
        id = escape(&table_id(name)),
        name = escape(name)
    );
    let shown = if total > MAX_ROWS {
        format!("the first {MAX_ROWS} of {total} rows; {name} has them all")
    } else {
        format!("{total} row{}", if total == 1 { "" } else { "s" })
    };
    let _ = writeln!(html, "<p class=\"note\">{}</p>", escape(&shown));
    html.push_str("<div class=\"scroll\"><table>\n<thead><tr>");
    for h in &table.header {
        let _ = write!(html, "<th>{}</th>", escape(h));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    html.push_str(&rows);
    html.push_str("</tbody></table></div>\n</section>\n");
    Ok(html)
}

/// The element id of a table's section: `table-stats` for `stats.csv`.
pub fn table_id(file_name: &str) -> String {
    format!("table-{}", file_name.trim_end_matches(".csv"))
}

/// An SVG drawn by `runner` as an inline figure. The XML prolog, if any, is
/// dropped: it is not allowed inside HTML.
fn figure_html(name: &str, svg: &str) -> String {
    let body = match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    };
    format!(
        "<figure id=\"figure-{id}\">\n{body}\n<figcaption>{name}</figcaption>\n</figure>\n",
        id = escape(name.trim_end_matches(".svg")),
        name = escape(name)
    )
}

/// Provenance rows from the manifest, in the order a reader looks for them.
fn provenance_html(manifest: &serde_json::Value) -> String {
    let keys = [
        ("tool", "tool"),
        ("version", "version"),
        ("git_commit", "git commit"),
        ("study", "study"),
        ("config_path", "config file"),
        ("config_hash", "config hash (inputs that decide results)"),
        ("command_line", "command line"),
        ("started", "started"),
        ("started_unix", "started (unix time)"),
        ("elapsed_s", "wall time, s"),
        ("threads", "threads"),
        ("shards", "shards"),
        ("shard_index", "shard index"),
        ("merged_from", "merged from"),
        ("host", "host"),
        ("peak_rss_mb", "peak memory, MB"),
        ("check", "check"),
        ("exit_code", "exit code"),
        (
            "rechecks",
            "rechecks (--recheck: chunks solved again, each as recorded)",
        ),
    ];
    let mut html = String::from("<table class=\"facts\">\n");
    for (key, label) in keys {
        let Some(value) = manifest.get(key) else {
            continue;
        };
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(items) if items.is_empty() => continue,
            // Read as the runner wrote them; a list this build cannot read
            // (edited by hand) is shown as it stands rather than dropped.
            serde_json::Value::Array(_) if key == "rechecks" => {
                match Vec::<RecheckPassed>::deserialize(value) {
                    Ok(rechecks) => rechecks
                        .iter()
                        .map(RecheckPassed::describe)
                        .collect::<Vec<_>>()
                        .join("; "),
                    Err(_) => value.to_string(),
                }
            }
            other => other.to_string(),
        };
        let _ = writeln!(
            html,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(label),
            escape(&text)
        );
    }
    html.push_str("</table>\n");
    // `render` has checked every file here against its hash, so the page
    // may say they match.
    if let Some(hashes) = manifest.get("sha256").and_then(|h| h.as_object()) {
        html.push_str(
            "<h3>SHA-256 of the files as the run wrote them (each file here matches)</h3>\n<table class=\"facts\">\n",
        );
        for (name, hex) in hashes {
            let _ = writeln!(
                html,
                "<tr><th>{}</th><td><code>{}</code></td></tr>",
                escape(name),
                escape(hex.as_str().unwrap_or_default())
            );
        }
        html.push_str("</table>\n");
    } else {
        html.push_str(
            "<p class=\"note\">The manifest records no SHA-256 of the files (the run predates them), so they are not checked against the run.</p>\n",
        );
    }
    if let Some(config) = manifest.get("config") {
        let pretty = serde_json::to_string_pretty(config).unwrap_or_default();
        let _ = write!(
            html,
            "<h3>config as run</h3>\n<pre>{}</pre>\n",
            escape(&pretty)
        );
    }
    html
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}\
h1{font-size:1.6em;margin-bottom:.2em}.context{color:#555;margin-top:0}\
h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}\
.scroll{overflow-x:auto;max-height:36em;overflow-y:auto;border:1px solid #ddd}\
table{border-collapse:collapse;font-size:.85em}th,td{padding:.2em .6em;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}\
thead th{position:sticky;top:0;background:#f4f4f4}.facts th{text-align:left;background:none}.facts td{text-align:left;white-space:normal}\
.note{color:#666;font-size:.85em;margin:.2em 0}figure{margin:1em 0}figure svg{max-width:100%;height:auto}\
figcaption{color:#666;font-size:.85em}pre{background:#f8f8f8;padding:.8em;overflow-x:auto;font-size:.85em}";

/// The whole page for the results in `dir`, whose `manifest.json` the
/// caller has read (`None`: the directory has none).
pub fn render(dir: &Path, manifest: Option<&Recorded>, labels: &Labels) -> anyhow::Result<String> {
    if !dir.is_dir() {
        return Err(refuse(format!(
            "{}: no such results directory",
            dir.display()
        )));
    }
    if let Some(recorded) = manifest {
        recorded.check_hashes()?;
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read results directory {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    let in_dir = || dir.display().to_string();
    let read = |name: &str| super::read_result_file(&dir.join(name));
    // run.csv holds run details, not results; it goes with the provenance.
    let tables: Vec<&String> = names
        .iter()
        .filter(|n| n.ends_with(".csv") && *n != "run.csv")
        .collect();
    let pictures: Vec<&String> = names.iter().filter(|n| n.ends_with(".svg")).collect();
    if tables.is_empty() && pictures.is_empty() {
        return Err(refuse(format!(
            "{}: no CSV tables or SVG pictures to report",
            dir.display()
        )));
    }
    let manifest = manifest
        .map(|recorded| {
            recorded
                .json()
                .map_err(|e| refuse(format!("{}: manifest.json is not JSON: {e}", dir.display())))
        })
        .transpose()?;

    let mut html = String::new();
    let title = if labels.run.is_empty() {
        dir.display().to_string()
    } else {
        labels.run.clone()
    };
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}: runner report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>{t}</h1>\n<p class=\"context\">{c}</p>\n",
        t = escape(&title),
        c = escape(&labels.context)
    );
    if let Some(m) = manifest {
        // Newer manifests say `check`; older ones only their exit code.
        let check = match (
            m.get("check").and_then(|v| v.as_str()),
            m.get("exit_code").and_then(|v| v.as_i64()),
        ) {
            (Some("passed"), _) | (None, Some(0)) => "every check passed".to_string(),
            (Some("failed"), _) | (None, Some(1)) => {
                "a check FAILED: see the failures table below".to_string()
            }
            (Some(other), _) => format!("check: {other}"),
            (None, Some(code)) => format!("the run ended with exit {code}"),
            (None, None) => String::new(),
        };
        if !check.is_empty() {
            let _ = writeln!(html, "<p><strong>{}</strong></p>", escape(&check));
        }
        if let Some(facts) = super::manifest::interim_in(m) {
            let _ = writeln!(
                html,
                "<p><strong>{}</strong></p>",
                escape(&format!(
                    "Interim: these tables count {} of the run's {} chunks ({}), from the checkpoint of a run not finished (runner interim); its results are only what it writes when it finishes.",
                    facts.chunks_done, facts.chunks_total, facts.chunks
                ))
            );
        }
    }
    let _ = writeln!(
        html,
        "<p class=\"note\">Tables and pictures first (they are deterministic: the same config \
         and seed give the same bytes); run details last. Written by runner {} from {}.</p>",
        env!("CARGO_PKG_VERSION"),
        escape(&dir.display().to_string())
    );
    if !pictures.is_empty() {
        html.push_str("<h2>Pictures</h2>\n");
        for name in &pictures {
            let bytes = read(name)?;
            html.push_str(&figure_html(name, &String::from_utf8_lossy(&bytes)));
        }
    }
    if !tables.is_empty() {
        html.push_str("<h2>Tables</h2>\n");
        for name in &tables {
            let bytes = read(name)?;
            // A page for a paper must not show a rate no run wrote, as
            // `plot` would not draw it (a hand-made or edited table).
            let what = dir.join(name.as_str()).display().to_string();
            super::plot::refuse_impossible_rates(name, &bytes, &what)?;
            html.push_str(&table_html(name, &bytes).with_context(in_dir)?);
        }
    }
    html.push_str("<h2>Provenance</h2>\n");
    match manifest {
        Some(m) => html.push_str(&provenance_html(m)),
        None => html.push_str("<p class=\"note\">no manifest.json in this directory</p>\n"),
    }
    if names.iter().any(|n| n == "run.csv") {
        html.push_str(&table_html("run.csv", &read("run.csv")?).with_context(in_dir)?);
    }
    html.push_str("</body>\n</html>\n");
    Ok(html)
}

/// Writes `DIR/report.html` atomically and returns its path.
pub fn write(dir: &Path, manifest: Option<&Recorded>, labels: &Labels) -> anyhow::Result<PathBuf> {
    let html = render(dir, manifest, labels)?;
    let path = dir.join(FILE_NAME);
    super::write_atomic(&path, html.as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page for `dir`, its manifest read as `runner report` reads it.
    fn page(dir: &Path, labels: &Labels) -> anyhow::Result<String> {
        render(dir, Recorded::read(dir)?.as_ref(), labels)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("runner-report-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn every_table_and_picture_is_in_the_page_and_text_is_escaped() {
        let dir = scratch("all");
        std::fs::write(dir.join("stats.csv"), "n_first,rate\n8,0.5<1&\n").unwrap();
        std::fs::write(dir.join("mu.csv"), "mu0,mu1\n1,0\n2,0\n").unwrap();
        std::fs::write(dir.join("run.csv"), "cell,wall_s\n8x8,1.5\n").unwrap();
        std::fs::write(dir.join("rates.svg"), "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><text>hi</text></svg>").unwrap();
        std::fs::write(
            dir.join("manifest.json"),
            r#"{"tool":"runner","git_commit":"abc123","command_line":"runner --config x.toml","check":"passed","config":{"experiment":{"name":"x"}}}"#,
        )
        .unwrap();
        let labels = Labels {
            run: "x".into(),
            context: "tanhinmin · 52 cards".into(),
        };
        let html = page(&dir, &labels).unwrap();
        for id in ["table-stats", "table-mu", "table-run", "figure-rates"] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id} missing");
        }
        assert!(html.contains("<td>0.5&lt;1&amp;</td>"), "cells are escaped");
        assert!(!html.contains("<?xml"), "no XML prolog inside HTML");
        assert!(html.contains("abc123") && html.contains("runner --config x.toml"));
        assert!(html.contains("every check passed"));
        assert!(
            !html.contains("<script") && !html.contains("src=\"http"),
            "self-contained"
        );
        let path = write(&dir, Recorded::read(&dir).unwrap().as_ref(), &labels).unwrap();
        assert_eq!(path, dir.join("report.html"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The page of a directory holding one small table and a manifest
    /// with `extra` (JSON members, each followed by a comma) after its check.
    fn page_with_manifest(dir: &Path, extra: &str) -> String {
        std::fs::write(dir.join("stats.csv"), "n_first,rate\n8,0.5\n").unwrap();
        let manifest = format!(
            r#"{{"tool":"runner","check":"passed",{extra}"config":{{"experiment":{{"name":"x"}}}}}}"#
        );
        std::fs::write(dir.join("manifest.json"), manifest).unwrap();
        page(dir, &Labels::default()).unwrap()
    }

    /// Tables of a run's chunks so far (`runner interim`) say so at the top
    /// of the page, which counts, and of how many; a finished run's do not.
    #[test]
    fn an_interim_directory_says_so_at_the_top() {
        let dir = scratch("interim");
        let html = page_with_manifest(&dir, "");
        assert!(!html.contains("Interim"), "a finished run's page");
        let html = page_with_manifest(
            &dir,
            r#""interim":{"from":["c"],"chunks_done":211,"chunks_total":1000,"chunks":"0-80, 250"},"#,
        );
        assert!(
            html.contains(
                "Interim: these tables count 211 of the run&#39;s 1000 chunks (0-80, 250)"
            ),
            "{html}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The rechecks a run's checkpoint passed are listed with the
    /// provenance, one after another; a run never rechecked has no row.
    #[test]
    fn the_rechecks_a_run_passed_are_in_its_provenance() {
        let dir = scratch("rechecks");
        assert!(!page_with_manifest(&dir, "").contains("rechecks (--recheck"));
        let html = page_with_manifest(
            &dir,
            r#""rechecks":[{"started":"2026-12-04T03:00:00Z","chunks":[40,213,353],"of_chunks":901,"git_commit":"abc","seconds":175.7},{"started":"2026-12-05T01:00:00Z","chunks":[7],"of_chunks":950,"git_commit":"def","seconds":2.0,"shard_index":1}],"#,
        );
        assert!(
            html.contains("at 2026-12-04T03:00:00Z, chunks 40, 213, 353 of 901, build abc (175.7 s); shard 1, at 2026-12-05T01:00:00Z, chunks 7 of 950, build def (2.0 s)"),
            "{html}"
        );
        // A list edited past what the runner writes is shown as it stands.
        let html = page_with_manifest(&dir, r#""rechecks":[{"started":"noon"}],"#);
        assert!(
            html.contains("[{&quot;started&quot;:&quot;noon&quot;}]"),
            "{html}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// As `plot` refuses to draw them, a page meant for a paper refuses a
    /// rate outside [0, 1] or more wins than deals, naming the file; tables
    /// that do not have the columns are shown as they are.
    #[test]
    fn rates_that_cannot_be_are_refused_in_the_page_too() {
        let dir = scratch("impossible");
        let head = "n_first,n_second,first_win_rate,ci95_low,ci95_high\n";
        std::fs::write(dir.join("stats.csv"), format!("{head}8,8,0.5,0.4,0.6\n")).unwrap();
        let mu = "n_first,n_second,mu0,mu1,deals,first_wins\n8,8,1,0,10,4\n";
        std::fs::write(dir.join("mu.csv"), mu).unwrap();
        page(&dir, &Labels::default()).unwrap();
        std::fs::write(dir.join("stats.csv"), format!("{head}8,8,1.17,0.4,1.2\n")).unwrap();
        let e = page(&dir, &Labels::default()).unwrap_err().to_string();
        assert!(e.contains("stats.csv") && e.contains("1.17"), "{e}");
        std::fs::write(dir.join("stats.csv"), format!("{head}8,8,0.5,0.4,0.6\n")).unwrap();
        std::fs::write(dir.join("mu.csv"), mu.replace(",10,4", ",10,11")).unwrap();
        let e = page(&dir, &Labels::default()).unwrap_err().to_string();
        assert!(
            e.contains("mu.csv") && e.contains("11 first-player wins"),
            "{e}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn long_tables_are_cut_and_say_so() {
        let dir = scratch("long");
        let mut csv = String::from("a\n");
        for i in 0..MAX_ROWS + 5 {
            csv.push_str(&format!("{i}\n"));
        }
        std::fs::write(dir.join("disagreements.csv"), csv).unwrap();
        let html = page(&dir, &Labels::default()).unwrap();
        assert!(html.contains(&format!("the first {MAX_ROWS} of {} rows", MAX_ROWS + 5)));
        assert_eq!(html.matches("<tr><td>").count(), MAX_ROWS);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_directory_without_results_is_refused() {
        let dir = scratch("empty");
        let e = page(&dir, &Labels::default()).unwrap_err();
        assert!(e.to_string().contains("no CSV tables"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
