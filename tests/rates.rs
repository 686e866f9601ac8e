//! The exact-rate dynamic programme against the exhaustive minimax: fresh
//! minimax runs on small decks, and the committed 8- and 9-card results.

mod common;

use common::{run, run_args, scratch, stderr};
use runner::games::cards::{DealSpace, Deck};
use runner::games::tanhinmin::position::Position;
use runner::games::tanhinmin::solver::Solver;
use runner::studies::rates::dp::{Tally, formula_tally};

/// Weighted minimax wins over every deal of a cell: no formula involved.
fn minimax_tally(copies: &[u32], a: u32, b: u32, field: u32) -> Tally {
    let deck = Deck {
        copies: copies.to_vec(),
    };
    let space = DealSpace::new(&deck, a, b, field).unwrap();
    let mut solver = Solver::new(64 << 20);
    let mut t = Tally::default();
    space.for_each_in_range(0, space.len(), |deal| {
        let pos = Position {
            mover: deal.first,
            other: deal.second,
            ranks: copies.len(),
            field: field as usize,
        };
        t.deals += deal.weight;
        if solver.mover_wins(&pos) {
            t.first_wins += deal.weight;
        }
    });
    t
}

#[test]
fn dp_matches_minimax_on_small_decks_unequal_sizes_and_fields() {
    let decks: [&[u32]; 4] = [
        &[4; 13],
        &[2, 3, 1, 4, 2, 2, 3],
        &[1; 9],
        &[4, 4, 4, 4, 4, 2],
    ];
    let mut checked = 0;
    for copies in decks {
        let ranks = copies.len() as u32;
        for (a, b) in [(1, 1), (2, 3), (3, 2), (4, 4), (5, 3)] {
            if a + b > copies.iter().sum::<u32>() {
                continue;
            }
            for field in [0, 1, ranks / 2, ranks] {
                let dp = formula_tally(copies, a, b, field).unwrap();
                let mm = minimax_tally(copies, a, b, field);
                assert_eq!(dp, mm, "deck {copies:?} {a}x{b} field {field}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 60, "{checked}");
}

/// (deals, first_wins) of the cell `a x b` in a committed stats.csv.
fn committed(file: &str, a: u32, b: u32) -> (u128, u128) {
    let text = std::fs::read_to_string(file).unwrap();
    let row = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f[0] == a.to_string() && f[1] == b.to_string() && f[2] == "0")
        .unwrap_or_else(|| panic!("no {a}x{b} in {file}"));
    (row[3].parse().unwrap(), row[4].parse().unwrap())
}

#[test]
fn dp_matches_the_committed_exhaustive_minimax_results() {
    for (file, n) in [
        ("results/quick/stats.csv", 1),
        ("results/quick/stats.csv", 4),
        ("results/deal8/stats.csv", 8),
        ("results/deal9/stats.csv", 9),
        ("results/deal10/stats.csv", 10),
    ] {
        let t = formula_tally(&[4; 13], n, n, 0).unwrap();
        assert_eq!((t.deals, t.first_wins), committed(file, n, n), "{n}x{n}");
    }
}

#[test]
fn rates_study_writes_every_size_and_agrees_with_its_library() {
    let dir = scratch("rates");
    let cfg = dir.join("r.toml");
    std::fs::write(
        &cfg,
        "[experiment]\nname = \"r\"\nstudy = \"rates\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[26, 26], [3, 5]]\nfield = 4\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = run(&run_args(&cfg, &out, &[]));
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("rates.csv")).unwrap();
    let t = formula_tally(&[4; 13], 26, 26, 4).unwrap();
    let row = csv.lines().nth(1).unwrap();
    assert!(
        row.starts_with(&format!("26,26,4,{},{},", t.deals, t.first_wins)),
        "{row}"
    );
    assert_eq!(csv.lines().count(), 3);
}

#[test]
fn plot_redraws_the_pictures_a_run_wrote() {
    let dir = scratch("plot");
    let out = dir.join("quick");
    let o = run(&run_args(
        std::path::Path::new("configs/quick.toml"),
        &out,
        &[],
    ));
    assert!(o.status.success(), "{}", stderr(&o));
    let rates = std::fs::read(out.join("rates.svg")).unwrap();
    let mu = std::fs::read(out.join("mu.svg")).unwrap();
    assert!(rates.starts_with(b"<svg") && mu.starts_with(b"<svg"));
    std::fs::remove_file(out.join("rates.svg")).unwrap();
    std::fs::remove_file(out.join("mu.svg")).unwrap();
    let o = run(&["plot", &out.display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The title is the directory's name rather than the experiment's, so
    // compare what is drawn, not the caption.
    let redrawn = std::fs::read_to_string(out.join("mu.svg")).unwrap();
    assert_eq!(
        redrawn.matches("<rect").count(),
        String::from_utf8_lossy(&mu).matches("<rect").count()
    );
    assert!(out.join("rates.svg").exists());

    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = run(&["plot", &empty.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no stats.csv"), "{}", stderr(&o));
}
