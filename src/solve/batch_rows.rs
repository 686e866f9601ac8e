//! The rows of a batch file (`runner solve --batch FILE`): its columns,
//! read by name, and each position checked under the rules before any is
//! solved, so that a mistake in row 90,000 is one line now, not an error
//! after hours of work.

use super::recorded::{self, Cells, RECORDED_COLUMNS, column_named};
use super::report::{COLUMNS, check_rules};
use crate::games::tanhinmin::variant::Rules;

/// The columns a batch file may have.
const KNOWN_COLUMNS: [&str; 4] = ["first", "second", "field", "reversed"];

/// Other names of `first` and `second`: the plain study's
/// `disagreements.csv` writes its hands so.
const HAND_ALIASES: [(&str, &str); 2] = [("first_hand", "first"), ("second_hand", "second")];

/// The columns of the runner's own tables of positions that neither place
/// a position nor record a verdict, passed over so that such a table is a
/// batch file as it stands (the verdicts are compared: see
/// [`recorded`]). Any other column is refused: a misspelt `field` read
/// as an empty field would solve the wrong positions.
const PASSED_OVER_COLUMNS: [&str; 5] = ["n_first", "n_second", "weight", "check", "recorded"];

/// One position of the file, checked.
#[derive(Debug, PartialEq)]
pub struct Row {
    /// The first player's (to move) cards.
    pub first: Vec<u32>,
    /// The other player's.
    pub second: Vec<u32>,
    /// The field (0: empty).
    pub field: u32,
    /// Is the order reversed (an 11-back trick under way)?
    pub reversed: bool,
    /// The file's line, for messages.
    pub line: u64,
    /// What the row records of its position, compared once it is solved.
    pub recorded: Cells,
}

/// Reads and checks every row of a batch file's text under `rules`; the
/// error is one line naming `origin`, the line and the column at fault.
pub fn parse(origin: &str, text: &str, rules: Rules) -> Result<Vec<Row>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| format!("{origin}: {e}"))?
        .clone();
    let mut place = [None; 4];
    let mut recorded_at: Vec<(usize, usize)> = Vec::new();
    for (i, name) in header.iter().enumerate() {
        if PASSED_OVER_COLUMNS.contains(&name) {
            continue;
        }
        if let Some(r) = column_named(name) {
            if recorded_at.iter().any(|&(seen, _)| seen == r) {
                return Err(format!("{origin}: column `{}` is named twice", shown(name)));
            }
            recorded_at.push((r, i));
            continue;
        }
        let known = HAND_ALIASES
            .iter()
            .find(|(alias, _)| *alias == name)
            .map_or(name, |&(_, hand)| hand);
        if name.trim().is_empty() {
            return Err(format!(
                "{origin}: column {} of the first line has no name; the first line names the columns",
                i + 1
            ));
        }
        let Some(k) = KNOWN_COLUMNS.iter().position(|&c| c == known) else {
            let recorded: Vec<&str> = RECORDED_COLUMNS.iter().map(|c| c.name).collect();
            let every: Vec<&str> = KNOWN_COLUMNS
                .iter()
                .chain(&recorded)
                .chain(&PASSED_OVER_COLUMNS)
                .chain(HAND_ALIASES.iter().map(|(alias, _)| alias))
                .copied()
                .collect();
            if let Some(near) = crate::error::did_you_mean(name, &every) {
                return Err(format!(
                    "{origin}: column `{}` is not one a batch file may have; did you mean `{near}`? (the first line names the columns)",
                    shown(name)
                ));
            }
            return Err(format!(
                "{origin}: column `{}` is not one of {} (nor one the runner's own tables add: {}, which are compared with what is solved, or {}, which are passed over); the first line names the columns",
                shown(name),
                KNOWN_COLUMNS.join(", "),
                recorded.join(", "),
                PASSED_OVER_COLUMNS.join(", ")
            ));
        };
        if place[k].replace(i).is_some() {
            let alias = if known == name {
                String::new()
            } else {
                format!(" (`{}` is read as `{known}`)", shown(name))
            };
            return Err(format!("{origin}: column `{known}` is named twice{alias}"));
        }
    }
    let [Some(first), Some(second), field, reversed] = place else {
        return Err(format!(
            "{origin}: the first line must name the columns first and second (and may name field and reversed), as in `first,second,field`"
        ));
    };
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("{origin}: {e}"))?;
        let line = record.position().map_or(0, |p| p.line());
        let at = |e: String| format!("{origin}: line {line}: {e}");
        let cell = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("");
        let row = Row {
            first: hand(cell(Some(first)), "first").map_err(at)?,
            second: hand(cell(Some(second)), "second").map_err(at)?,
            field: match cell(field) {
                "" => 0,
                f => f.parse().map_err(|_| {
                    at(format!(
                        "column field: `{}` is not a card strength (0 for an empty field)",
                        shown(f)
                    ))
                })?,
            },
            reversed: match cell(reversed) {
                "" | "false" => false,
                "true" => true,
                r => {
                    return Err(at(format!(
                        "column reversed: `{}` is not true or false",
                        shown(r)
                    )));
                }
            },
            line,
            recorded: recorded::cells_of(&recorded_at, &record),
        };
        check_rules(
            &row.first,
            &row.second,
            row.field,
            rules,
            row.reversed,
            COLUMNS,
        )
        .map_err(at)?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(format!(
            "{origin}: no positions; after the line naming the columns, give one position a row, as in `1 1 3 4,1 2 3 5,0`"
        ));
    }
    Ok(rows)
}

/// A file's text quoted in a message: control characters escaped (a
/// quoted cell may hold a line break) and a long text cut short, so that
/// the message stays one line.
fn shown(text: &str) -> String {
    const MOST_CHARS: usize = 40;
    let escaped: String = text.escape_debug().collect();
    match escaped.char_indices().nth(MOST_CHARS) {
        Some((cut, _)) => format!("{}...", &escaped[..cut]),
        None => escaped,
    }
}

/// A hand written as strengths separated by spaces (or commas, in a
/// quoted cell).
fn hand(text: &str, column: &str) -> Result<Vec<u32>, String> {
    text.split([' ', ','])
        .filter(|s| !s.is_empty())
        .map(|c| {
            c.parse().map_err(|_| {
                format!(
                    "column {column}: `{}` is not a card strength (a whole number from 1)",
                    shown(c)
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows with the column names, order and cells a researcher might
    /// write, and one clear line for each kind of mistake.
    #[test]
    fn rows_are_read_or_refused_in_one_line() {
        let back = Rules {
            cut: None,
            back: Some(9),
        };
        let rows = parse(
            "b.csv",
            "# from the slides\nsecond,first,reversed,field\n1 2 3 5, 1 1 3 4 ,,\n\"2,10\",\"9\",true,8\n",
            back,
        )
        .unwrap();
        assert_eq!(rows[0].first, [1, 1, 3, 4]);
        assert_eq!(rows[0].second, [1, 2, 3, 5]);
        assert_eq!((rows[0].field, rows[0].reversed), (0, false));
        assert_eq!((rows[1].field, rows[1].reversed), (8, true));
        for (text, rules, problem) in [
            ("first,second\n", Rules::PLAIN, "no positions"),
            (
                "first\n1\n",
                Rules::PLAIN,
                "must name the columns first and second",
            ),
            (
                "first,second,turn\n1,2,3\n",
                Rules::PLAIN,
                "column `turn` is not one of",
            ),
            (
                "first,,second\n1,2,3\n",
                Rules::PLAIN,
                "column 2 of the first line has no name",
            ),
            (
                "first,second,x\n1,2,3\n",
                Rules::PLAIN,
                "column `x` is not one of",
            ),
            (
                "first,secnd\n1,2\n",
                Rules::PLAIN,
                "column `secnd` is not one a batch file may have; did you mean `second`?",
            ),
            (
                "first,second,Feild\n1,2,3\n",
                Rules::PLAIN,
                "did you mean `field`?",
            ),
            (
                "first,second,variant_winer\n1,2,first\n",
                Rules::PLAIN,
                "did you mean `variant_winner`?",
            ),
            ("first,first,second\n1,2,3\n", Rules::PLAIN, "named twice"),
            (
                "first,second,first_hand\n1,2,3\n",
                Rules::PLAIN,
                "column `first` is named twice (`first_hand` is read as `first`)",
            ),
            (
                "first,second,mu0,mu0\n1,2,3,3\n",
                Rules::PLAIN,
                "column `mu0` is named twice",
            ),
            (
                "first,second\n1 x,2\n",
                Rules::PLAIN,
                "line 2: column first: `x`",
            ),
            (
                "first,second\n1,\n",
                Rules::PLAIN,
                "line 2: column second: needs at least one card",
            ),
            (
                "first,second,field\n1,2,-1\n",
                Rules::PLAIN,
                "line 2: column field: `-1`",
            ),
            (
                "first,second\n1,2\n0,2\n",
                Rules::PLAIN,
                "line 3: column first: card strength 0",
            ),
            (
                "first,second,field,reversed\n1,2,3,yes\n",
                back,
                "column reversed: `yes`",
            ),
            (
                "first,second,field,reversed\n1,2,3,true\n",
                Rules::PLAIN,
                "give --back",
            ),
            (
                "first,second,reversed\n1,2,true\n",
                back,
                "give column field",
            ),
            (
                "first,second,field,reversed\n1,2,10,true\n",
                back,
                "column field: 10 is above the back rank 9, and a reversed trick only goes down from it",
            ),
            (
                "first,second,field,reversed\n1,2,6,true\n",
                Rules {
                    cut: Some(6),
                    back: Some(9),
                },
                "column field: 6 is the cut rank, which clears the field and ends the reversal",
            ),
            (
                "first,second\n1,2,3\n",
                Rules::PLAIN,
                "found record with 3 fields",
            ),
            // The file's text is quoted on the message's one line: a
            // quoted cell's line break escaped, a long cell cut short.
            (
                "\"first,second\n1 2,3\",second,first\n1,2,3\n",
                Rules::PLAIN,
                "column `first,second\\n1 2,3` is not one of",
            ),
            (
                "first,second,field\n1,2,\"3\n4\"\n",
                Rules::PLAIN,
                "column field: `3\\n4`",
            ),
            (
                &format!("first,second\n1 {},2\n", "9".repeat(100)),
                Rules::PLAIN,
                &format!("column first: `{}...`", "9".repeat(40)),
            ),
        ] {
            let e = parse("b.csv", text, rules).unwrap_err();
            assert!(e.starts_with("b.csv: "), "{e}");
            assert!(e.contains(problem), "{problem:?} in {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
