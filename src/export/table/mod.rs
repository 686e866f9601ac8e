//! `runner table DIR`: a table of a results directory as text to paste into
//! a paper or a README, one file per format behind [`TableFormat`].
//!
//! The numbers are the CSV's own text: a rate printed for a paper is the
//! rate the run wrote, or that text cut to fewer digits (`rounding.rs`),
//! never a float printed again. What the table is (run, study,
//! deck, version, commit) goes in a comment above it, so a pasted table
//! keeps its provenance in the source without showing in the document.

mod latex;
mod markdown;
pub mod rounding;

pub use latex::Latex;
pub use markdown::Markdown;

use super::manifest::Recorded;
use super::plot::Labels;
use crate::error::refuse;
use std::path::Path;

/// What `runner table` was asked for.
pub struct Request<'a> {
    /// The CSV file of the directory, by name (`stats.csv`).
    pub table: &'a str,
    /// The columns to keep, in order; all when empty.
    pub columns: &'a [String],
    /// Whether the tables of a run not finished may be printed.
    pub interim: bool,
    /// Digits after the point for decimals ([`CsvTable::rounded`]); as
    /// written when `None`.
    pub digits: Option<usize>,
    /// Said instead of the list of tables when the table is missing: the
    /// caller knows why (a run not finished) where this module does not.
    pub when_missing: Option<&'a str>,
}

/// The table `request` names, from the results in `dir` (whose manifest
/// the caller has read), in `format`. Refused (one line, exit 2): a name
/// that is not a CSV file of `dir`, a table edited since its run (its
/// SHA-256), a rate no run writes, a row unlike its header, interim tables without
/// `request.interim`, an unknown column.
pub fn text(
    dir: &Path,
    manifest: Option<&Recorded>,
    labels: &Labels,
    request: &Request,
    format: &dyn TableFormat,
) -> anyhow::Result<String> {
    let name = request.table;
    // Only a plain name in the directory: `../x.csv` must not read elsewhere.
    if !name.ends_with(".csv") || Path::new(name).file_name() != Some(std::ffi::OsStr::new(name)) {
        return Err(refuse(format!(
            "--table {name}: not the name of a CSV table in a results directory (for example stats.csv)"
        )));
    }
    let path = dir.join(name);
    // Only a missing table is listed here; a FIFO or a directory in its
    // place is refused by the read below, in the words every reader uses.
    if !path.exists() {
        let mut here: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".csv"))
                    .collect()
            })
            .unwrap_or_default();
        here.sort();
        return Err(refuse(if !dir.is_dir() {
            format!("{}: no such results directory", dir.display())
        } else if let Some(why) = request.when_missing {
            format!("{}: no such table; {why}", path.display())
        } else if here.is_empty() {
            format!(
                "{}: no such table, and no CSV tables in {}",
                path.display(),
                dir.display()
            )
        } else {
            format!(
                "{}: no such table;{} the tables there are {}",
                path.display(),
                guess(name, &here),
                here.join(", ")
            )
        }));
    }
    if let Some(recorded) = manifest {
        recorded.check_hashes()?;
        if let Some(facts) = recorded.interim().filter(|_| !request.interim) {
            return Err(refuse(format!(
                "{}: interim tables ({} of a run not finished, by `runner interim`); pass --interim to print them anyway, marked as interim in the comment above the table",
                dir.display(),
                facts.share()
            )));
        }
    }
    let what = path.display().to_string();
    let bytes = super::read_result_file(&path)?;
    super::plot::refuse_impossible_rates(name, &bytes, &what)?;
    let table = CsvTable::parse(&what, &bytes)?;
    // A row longer or shorter than the header would lose fields, or show
    // blanks no run wrote, without a word.
    if let Some((i, row)) = table
        .rows
        .iter()
        .enumerate()
        .find(|(_, row)| row.len() != table.header.len())
    {
        return Err(refuse(format!(
            "{what}: row {} has {} fields, its header {}",
            i + 1,
            row.len(),
            table.header.len()
        )));
    }
    let mut table = table.select(&what, request.columns)?;
    if let Some(digits) = request.digits {
        table = table.rounded(digits);
    }
    Ok(format.render(&table, &about(dir, name, manifest, labels)))
}

/// The comment lines above a table: what run it is, and from which build.
fn about(dir: &Path, name: &str, manifest: Option<&Recorded>, labels: &Labels) -> Vec<String> {
    let mut lines = Vec::new();
    match (labels.run.is_empty(), labels.context.is_empty()) {
        (false, false) => lines.push(format!("{}: {}", labels.run, labels.context)),
        (false, true) => lines.push(labels.run.clone()),
        _ => {}
    }
    let source = format!("{name} of {}", dir.display());
    let Some(m) = manifest.and_then(|m| m.json().ok()) else {
        lines.push(format!(
            "{source}; no readable manifest.json, so which run wrote it is unknown"
        ));
        return lines;
    };
    let field = |key: &str| m.get(key).and_then(|v| v.as_str()).unwrap_or("?");
    // Older manifests record only the exit code.
    let check = match (m.get("check").and_then(|v| v.as_str()), m.get("exit_code")) {
        (Some(check), _) => format!("check {check}"),
        (None, Some(code)) => format!("exit {code}"),
        (None, None) => "check ?".into(),
    };
    lines.push(format!(
        "{source}; written by runner {} (commit {}), started {}, {check}",
        field("version"),
        field("git_commit"),
        field("started"),
    ));
    lines
}

/// A CSV table read back: its header and rows, every field as written.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvTable {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header or shorter (a flexible CSV).
    pub rows: Vec<Vec<String>>,
}

impl CsvTable {
    /// Parses the CSV `bytes` of the file `name`; a bad header or row is
    /// refused with one line naming the file.
    pub fn parse(name: &str, bytes: &[u8]) -> anyhow::Result<Self> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(bytes);
        let header = reader
            .headers()
            .map_err(|e| refuse(format!("{name}: cannot read its header: {e}")))?
            .iter()
            .map(str::to_owned)
            .collect();
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| refuse(format!("{name}: bad CSV row: {e}")))?;
            rows.push(record.iter().map(str::to_owned).collect());
        }
        Ok(Self { header, rows })
    }

    /// The table cut to `columns`, in that order; all of it when `columns`
    /// is empty. An unknown name is refused, naming the columns there are.
    pub fn select(self, name: &str, columns: &[String]) -> anyhow::Result<Self> {
        if columns.is_empty() {
            return Ok(self);
        }
        let mut picked = Vec::with_capacity(columns.len());
        for column in columns {
            let Some(i) = self.header.iter().position(|h| h == column) else {
                return Err(refuse(format!(
                    "{name}: no column `{column}`;{} its columns are {}",
                    guess(column, &self.header),
                    self.header.join(", ")
                )));
            };
            picked.push(i);
        }
        let cut = |fields: &[String]| -> Vec<String> {
            picked
                .iter()
                .map(|&i| fields.get(i).cloned().unwrap_or_default())
                .collect()
        };
        Ok(Self {
            header: cut(&self.header),
            rows: self.rows.iter().map(|r| cut(r)).collect(),
        })
    }

    /// The table with every decimal cut to `digits` digits after the
    /// point, on its text: rates to the nearest, interval bounds
    /// (`ci95_low`, `ci95_high`) outward, so that the printed interval
    /// still holds the one computed. Integers and exact fractions stay as
    /// written.
    pub fn rounded(mut self, digits: usize) -> Self {
        for row in &mut self.rows {
            for (field, column) in row.iter_mut().zip(&self.header) {
                let direction = rounding::direction_of(column);
                if let Some(rounded) = rounding::round_decimal(field, digits, direction) {
                    *field = rounded;
                }
            }
        }
        self
    }

    /// Whether column `i` holds numbers only (empty fields allowed), so a
    /// format can align it to the right: integers, decimals and exact
    /// fractions such as `30261189615611/52613141318430`.
    pub fn is_numeric(&self, i: usize) -> bool {
        let number = |s: &str| {
            let s = s.strip_prefix('-').unwrap_or(s);
            let (whole, below) = s.split_once('/').unwrap_or((s, "1"));
            let decimal = |t: &str| {
                !t.is_empty()
                    && t.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    && t.bytes().filter(|&b| b == b'.').count() <= 1
                    && t.bytes().any(|b| b.is_ascii_digit())
            };
            decimal(whole) && decimal(below)
        };
        let mut fields = self.rows.iter().filter_map(|r| r.get(i)).peekable();
        fields.peek().is_some() && fields.all(|f| f.is_empty() || number(f))
    }
}

/// A text format for a table.
pub trait TableFormat {
    /// `table` in this format, with each line of `about` as a comment above
    /// it; ends with a newline.
    fn render(&self, table: &CsvTable, about: &[String]) -> String;
}

/// A small table of a number, a rate and a word, for the formats' tests.
#[cfg(test)]
fn sample() -> CsvTable {
    CsvTable::parse(
        "s.csv",
        b"n_first,first_win_rate,who\n8,0.575164091,first\n",
    )
    .unwrap()
}

/// " did you mean `x`?" when `typed` is near one of `known`, else nothing.
fn guess(typed: &str, known: &[String]) -> String {
    crate::error::did_you_mean(typed, known)
        .map(|near| format!(" did you mean `{near}`?"))
        .unwrap_or_default()
}

/// `text` on one line, without control characters: a field or a comment
/// holds no line break that would end it early.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(csv: &str) -> CsvTable {
        CsvTable::parse("t.csv", csv.as_bytes()).unwrap()
    }

    #[test]
    fn columns_are_picked_in_the_order_asked() {
        let t = table("a,b,c\n1,2,3\n4,5,6\n")
            .select("t.csv", &["c".into(), "a".into()])
            .unwrap();
        assert_eq!(t.header, ["c", "a"]);
        assert_eq!(t.rows, [["3", "1"], ["6", "4"]]);
    }

    #[test]
    fn an_unknown_column_is_refused_naming_the_columns_there_are() {
        let e = table("a,b\n1,2\n")
            .select("t.csv", &["rate".into()])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.csv") && e.contains("`rate`") && e.contains("a, b"),
            "{e}"
        );
    }

    #[test]
    fn numbers_fractions_and_blanks_are_numeric_and_words_are_not() {
        let t = table(
            "n,rate,exact,who,mixed\n8,0.575164091,30261189615611/52613141318430,first,1\n9,,,second,x\n",
        );
        assert!(t.is_numeric(0) && t.is_numeric(1) && t.is_numeric(2));
        assert!(!t.is_numeric(3) && !t.is_numeric(4));
        assert!(!table("a\n1.2.3\n").is_numeric(0));
        assert!(!table("a\n/\n").is_numeric(0));
        assert!(!table("a\n").is_numeric(0), "no rows: nothing to align");
    }

    #[test]
    fn a_bad_row_is_refused_naming_the_file() {
        let e = CsvTable::parse("t.csv", b"a,b\n\xff,1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.csv"), "{e}");
    }
}
