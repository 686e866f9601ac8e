//! GitHub-flavoured Markdown: a pipe table under an HTML comment.

use super::{CsvTable, TableFormat, one_line};
use std::fmt::Write as _;

/// A pipe table, numeric columns aligned right.
pub struct Markdown;

/// A field of a pipe table: a `|` would start a new cell.
fn cell(text: &str) -> String {
    one_line(text).replace('\\', "\\\\").replace('|', "\\|")
}

impl TableFormat for Markdown {
    fn render(&self, table: &CsvTable, about: &[String]) -> String {
        let mut out = String::new();
        for line in about {
            // `--` may not appear inside an HTML comment; `-->` would end it.
            let _ = writeln!(out, "<!-- {} -->", one_line(line).replace("--", "- -"));
        }
        let row = |fields: &mut dyn Iterator<Item = String>| {
            let cells: Vec<String> = fields.collect();
            format!("| {} |\n", cells.join(" | "))
        };
        out.push_str(&row(&mut table.header.iter().map(|h| cell(h))));
        out.push_str(&row(&mut (0..table.header.len()).map(|i| {
            if table.is_numeric(i) {
                "--:".to_string()
            } else {
                "---".to_string()
            }
        })));
        for r in &table.rows {
            out.push_str(&row(
                &mut (0..table.header.len()).map(|i| cell(r.get(i).map_or("", String::as_str)))
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_with_its_provenance_above() {
        let t = super::super::sample();
        let text = Markdown.render(&t, &["deal8 -- every deal".into()]);
        assert_eq!(
            text,
            "<!-- deal8 - - every deal -->\n| n_first | first_win_rate | who |\n| --: | --: | --- |\n| 8 | 0.575164091 | first |\n"
        );
    }

    #[test]
    fn a_pipe_or_a_line_break_in_a_field_stays_in_its_cell() {
        let t = CsvTable::parse("s.csv", b"a,b\n\"x|y\",\"two\nlines\"\n").unwrap();
        let text = Markdown.render(&t, &[]);
        assert!(text.ends_with("| x\\|y | two lines |\n"), "{text}");
        assert_eq!(text.lines().count(), 3);
    }
}
