//! The columns of a batch file that record what a run, or an earlier
//! batch, found for its position. The batch solves each position again and
//! compares, so that a table the runner wrote (`formula_failures.csv`,
//! `c1_failures.csv`, `disagreements.csv`, or a batch's own output) is a
//! regression check as it stands: a row whose recorded verdict the solvers
//! no longer give is named, and the batch exits 1. Without this a tampered
//! or stale table read back by `--batch` was solved and passed, its wrong
//! cell never looked at.

use super::report::SolveReport;

/// One column a table may record, and how the batch writes what it solved
/// for it: the two are compared as text.
pub struct RecordedColumn {
    /// The column's name, as the runner's tables write it.
    pub name: &'static str,
    /// Is a blank cell a value? For `proof_move` it is (the theorem says
    /// the mover loses, so the proof plays nothing); elsewhere a blank cell
    /// records nothing and is not compared.
    blank_is_a_value: bool,
    /// What the solvers found, written as the runner writes the column, or
    /// `None` where this batch did not look (the card count without
    /// `--score`, a position past the variant twin's reach).
    solved: fn(&SolveReport) -> Option<String>,
    /// Why a column recorded in the file may go uncompared, for the
    /// summary.
    when_solved: &'static str,
}

fn winner(first_wins: bool) -> String {
    if first_wins { "first" } else { "second" }.to_string()
}

/// Every column a table of the runner records about a position.
pub const RECORDED_COLUMNS: [RecordedColumn; 14] = [
    column(
        "variant_winner",
        false,
        |r| Some(winner(r.minimax_first_wins)),
        "always",
    ),
    column(
        "formula_says",
        false,
        |r| Some(winner(r.formula_first_wins)),
        "always",
    ),
    column(
        "minimax_first_wins",
        false,
        |r| Some(r.minimax_first_wins.to_string()),
        "always",
    ),
    column(
        "formula_first_wins",
        false,
        |r| Some(r.formula_first_wins.to_string()),
        "always",
    ),
    column(
        "mu_test_first_wins",
        false,
        |r| Some(r.formula_first_wins.to_string()),
        "always",
    ),
    column("mu0", false, |r| Some(r.mu0.to_string()), "always"),
    column("mu1", false, |r| Some(r.mu1.to_string()), "always"),
    column(
        "proof_move",
        true,
        |r| {
            r.variant
                .is_none()
                .then(|| r.proof_move.clone().unwrap_or_default())
        },
        "under the plain rules",
    ),
    column(
        "plain_first_wins",
        false,
        |r| {
            r.variant
                .as_ref()
                .and_then(|v| v.plain_first_wins)
                .map(|b| b.to_string())
        },
        "under --cut or --back, in normal order",
    ),
    column(
        "twin_first_wins",
        false,
        |r| {
            r.variant
                .as_ref()
                .and_then(|v| v.twin_first_wins)
                .map(|b| b.to_string())
        },
        "where the variant's plain recursion reaches; see --check-positions",
    ),
    column(
        "score",
        false,
        |r| r.card_count.as_ref().map(|c| c.value.to_string()),
        "with --score",
    ),
    column(
        "card_count",
        false,
        |r| r.card_count.as_ref().map(|c| c.value.to_string()),
        "with --score",
    ),
    column(
        "c1",
        false,
        |r| r.card_count.as_ref().map(|c| c.c1.to_string()),
        "with --score",
    ),
    column(
        "winning_moves",
        true,
        |r| r.winning_moves.as_ref().map(|w| w.join(" ")),
        "without --verdicts-only",
    ),
];

const fn column(
    name: &'static str,
    blank_is_a_value: bool,
    solved: fn(&SolveReport) -> Option<String>,
    when_solved: &'static str,
) -> RecordedColumn {
    RecordedColumn {
        name,
        blank_is_a_value,
        solved,
        when_solved,
    }
}

/// The recorded column named `name`, as an index into
/// [`RECORDED_COLUMNS`].
pub fn column_named(name: &str) -> Option<usize> {
    RECORDED_COLUMNS.iter().position(|c| c.name == name)
}

/// What one row records: (index into [`RECORDED_COLUMNS`], cell).
pub type Cells = Vec<(usize, String)>;

/// The cells of a row worth comparing: the blank ones only where blank is
/// a value.
pub fn cells_of(columns: &[(usize, usize)], record: &csv::StringRecord) -> Cells {
    columns
        .iter()
        .filter_map(|&(column, at)| {
            let cell = record.get(at).unwrap_or("");
            (RECORDED_COLUMNS[column].blank_is_a_value || !cell.is_empty())
                .then(|| (column, cell.to_string()))
        })
        .collect()
}

/// A recorded cell the solvers no longer give.
#[derive(Debug, PartialEq)]
pub struct Difference {
    pub column: &'static str,
    pub recorded: String,
    pub solved: String,
}

/// How a row's recorded cells compare with what was solved for it.
#[derive(Debug, Default, PartialEq)]
pub struct Comparison {
    /// The columns compared.
    pub compared: Vec<&'static str>,
    /// Those that differ.
    pub differences: Vec<Difference>,
}

impl Comparison {
    /// The batch's `recorded` cell: blank when nothing was compared,
    /// `agrees`, or `differs:` and the columns.
    pub fn cell(&self) -> String {
        match (self.compared.is_empty(), self.differences.is_empty()) {
            (true, _) => String::new(),
            (false, true) => "agrees".to_string(),
            (false, false) => {
                let names: Vec<&str> = self.differences.iter().map(|d| d.column).collect();
                format!("differs: {}", names.join(" "))
            }
        }
    }
}

/// Compares a row's recorded cells with its report.
pub fn compare(cells: &Cells, report: &SolveReport) -> Comparison {
    let mut out = Comparison::default();
    for (column, recorded) in cells {
        let c = &RECORDED_COLUMNS[*column];
        let Some(solved) = (c.solved)(report) else {
            continue;
        };
        out.compared.push(c.name);
        if *recorded != solved {
            out.differences.push(Difference {
                column: c.name,
                recorded: recorded.clone(),
                solved,
            });
        }
    }
    out
}

/// The summary's part on the recorded columns: which agree, which rows
/// differ (the first few named by line), and which were in the file but
/// never compared, with when they would be. `None` when the file records
/// nothing.
pub fn summary(
    present: &[usize],
    lines: &[u64],
    comparisons: &[Comparison],
    plain_rules: bool,
) -> Option<String> {
    if present.is_empty() {
        return None;
    }
    let compared: Vec<&str> = present
        .iter()
        .map(|&i| RECORDED_COLUMNS[i].name)
        .filter(|name| comparisons.iter().any(|c| c.compared.contains(name)))
        .collect();
    let uncompared: Vec<String> = present
        .iter()
        .map(|&i| &RECORDED_COLUMNS[i])
        .filter(|c| !compared.contains(&c.name))
        .map(|c| format!("{} (solved {})", c.name, c.when_solved))
        .collect();
    let rows = comparisons
        .iter()
        .filter(|c| !c.compared.is_empty())
        .count();
    let differing: Vec<(u64, &Comparison)> = lines
        .iter()
        .copied()
        .zip(comparisons)
        .filter(|(_, c)| !c.differences.is_empty())
        .collect();
    let mut text = if compared.is_empty() {
        "the recorded columns were not compared".to_string()
    } else if differing.is_empty() {
        format!(
            "the recorded {} agree{} on {}",
            compared.join(", "),
            if compared.len() == 1 { "s" } else { "" },
            if rows == 1 {
                "the 1 row".to_string()
            } else {
                format!("all {rows} rows")
            }
        )
    } else {
        let shown: Vec<String> = differing
            .iter()
            .take(3)
            .map(|(line, c)| {
                let d = &c.differences[0];
                format!(
                    "line {line}: {} recorded `{}`, solved `{}`",
                    d.column, d.recorded, d.solved
                )
            })
            .collect();
        let n = differing.len();
        let hint = if plain_rules
            && present.iter().any(|&i| {
                matches!(
                    RECORDED_COLUMNS[i].name,
                    "variant_winner"
                        | "mu_test_first_wins"
                        | "plain_first_wins"
                        | "twin_first_wins"
                )
            }) {
            "; the file records a variant's verdicts, so give its --cut or --back"
        } else {
            ""
        };
        format!(
            "what is solved DIFFERS from what is recorded on {n} of {rows} row{} ({}{}){hint}",
            if rows == 1 { "" } else { "s" },
            shown.join("; "),
            if n > 3 { "; ..." } else { "" }
        )
    };
    if !uncompared.is_empty() {
        text += &format!("; not compared: {}", uncompared.join(", "));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::variant::Rules;
    use crate::solve::report::report_under;

    fn record(cells: &[&str]) -> csv::StringRecord {
        csv::StringRecord::from(cells.to_vec())
    }

    /// A recorded cell is compared as the batch writes it; a blank one is
    /// compared only where blank is a value; a changed cell is caught.
    #[test]
    fn recorded_cells_are_compared_and_a_changed_one_is_caught() {
        // X = {1, 1, 3, 4} against {1, 2, 3, 5}: the first player loses.
        let r = report_under(&[1, 1, 3, 4], &[1, 2, 3, 5], 0, Rules::PLAIN, false);
        let columns: Vec<(usize, usize)> = ["minimax_first_wins", "mu0", "proof_move", "score"]
            .iter()
            .enumerate()
            .map(|(at, name)| (column_named(name).unwrap(), at))
            .collect();
        let truth = r.minimax_first_wins.to_string();
        let mu0 = r.mu0.to_string();
        let proof = r.proof_move.clone().unwrap_or_default();
        let cells = cells_of(&columns, &record(&[&truth, &mu0, &proof, "3"]));
        let c = compare(&cells, &r);
        assert_eq!(c.compared, ["minimax_first_wins", "mu0", "proof_move"]);
        assert_eq!(c.cell(), "agrees");
        // A blank verdict records nothing; a blank proof move is a value.
        let cells = cells_of(&columns, &record(&["", &mu0, "", ""]));
        assert_eq!(cells.len(), 2);
        let flipped = (!r.minimax_first_wins).to_string();
        let c = compare(
            &cells_of(&columns, &record(&[&flipped, &mu0, &proof, ""])),
            &r,
        );
        assert_eq!(c.cell(), "differs: minimax_first_wins");
        assert_eq!(
            c.differences,
            [Difference {
                column: "minimax_first_wins",
                recorded: flipped,
                solved: truth,
            }]
        );
        // Nothing compared, nothing said.
        assert_eq!(compare(&Vec::new(), &r).cell(), "");
    }

    #[test]
    fn the_summary_names_the_rows_that_differ_and_what_went_uncompared() {
        let r = report_under(&[2, 5], &[1, 3], 0, Rules::PLAIN, false);
        let winner_column = column_named("variant_winner").unwrap();
        let score_column = column_named("score").unwrap();
        let right = winner(r.minimax_first_wins);
        let wrong = winner(!r.minimax_first_wins);
        let comparisons: Vec<Comparison> = [&right, &wrong, &right]
            .iter()
            .map(|w| {
                compare(
                    &vec![(winner_column, w.to_string()), (score_column, "1".into())],
                    &r,
                )
            })
            .collect();
        let text = summary(
            &[winner_column, score_column],
            &[2, 3, 4],
            &comparisons,
            true,
        )
        .unwrap();
        assert!(
            text.starts_with("what is solved DIFFERS from what is recorded on 1 of 3 rows"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "line 3: variant_winner recorded `{wrong}`, solved `{right}`"
            )),
            "{text}"
        );
        assert!(text.contains("give its --cut or --back"), "{text}");
        assert!(
            text.ends_with("not compared: score (solved with --score)"),
            "{text}"
        );
        let text = summary(&[winner_column], &[2], &comparisons[..1], false).unwrap();
        assert_eq!(text, "the recorded variant_winner agrees on the 1 row");
        assert_eq!(summary(&[], &[], &[], false), None);
    }
}
