//! LaTeX: a `tabular` with booktabs rules, under `%` comments.

use super::{CsvTable, TableFormat, one_line};
use std::fmt::Write as _;

/// A `tabular` with `\toprule`, `\midrule` and `\bottomrule` (the booktabs
/// package, which most journal classes load), numeric columns aligned
/// right.
pub struct Latex;

/// A field escaped for LaTeX text: the ten special characters would
/// otherwise break the document or change what it says.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in one_line(text).chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

impl TableFormat for Latex {
    fn render(&self, table: &CsvTable, about: &[String]) -> String {
        let mut out = String::new();
        for line in about {
            let _ = writeln!(out, "% {}", one_line(line));
        }
        out.push_str("% needs \\usepackage{booktabs}\n");
        let spec: String = (0..table.header.len())
            .map(|i| if table.is_numeric(i) { 'r' } else { 'l' })
            .collect();
        let row = |fields: Vec<String>| format!("{} \\\\\n", fields.join(" & "));
        let _ = writeln!(out, "\\begin{{tabular}}{{{spec}}}");
        out.push_str("\\toprule\n");
        out.push_str(&row(table.header.iter().map(|h| cell(h)).collect()));
        out.push_str("\\midrule\n");
        for r in &table.rows {
            out.push_str(&row((0..table.header.len())
                .map(|i| cell(r.get(i).map_or("", String::as_str)))
                .collect()));
        }
        out.push_str("\\bottomrule\n\\end{tabular}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tabular_with_booktabs_rules_and_escaped_names() {
        let t = super::super::sample();
        let text = Latex.render(&t, &["deal8: every deal".into()]);
        assert_eq!(
            text,
            "% deal8: every deal\n% needs \\usepackage{booktabs}\n\\begin{tabular}{rrl}\n\\toprule\nn\\_first & first\\_win\\_rate & who \\\\\n\\midrule\n8 & 0.575164091 & first \\\\\n\\bottomrule\n\\end{tabular}\n"
        );
    }

    #[test]
    fn every_special_character_is_escaped() {
        assert_eq!(
            cell("a\\b~c^d&e%f$g#h_i{j}k"),
            "a\\textbackslash{}b\\textasciitilde{}c\\textasciicircum{}d\\&e\\%f\\$g\\#h\\_i\\{j\\}k"
        );
    }

    #[test]
    fn a_line_break_cannot_end_a_comment_early() {
        let t = CsvTable::parse("s.csv", b"a\n1\n").unwrap();
        let text = Latex.render(&t, &["name\n\\input{x}".into()]);
        assert!(text.starts_with("% name \\input{x}\n"), "{text}");
    }
}
