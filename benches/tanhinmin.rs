//! Criterion benches: μ, the formula per deal, and minimax per deal, with the
//! naive solver (raw-hand keys, memo cleared per deal) as the baseline in the
//! same run so the ratio is measured, not assumed; and a card-count deal's
//! value proved by the dropped-cards lemma's plain searches against the
//! card-count game's own threshold searches, in the same run.

use criterion::{Criterion, criterion_group, criterion_main};
use rand_xoshiro::rand_core::Rng;
use runner::games::cards::{Deal, Dealer, Deck};
use runner::games::tanhinmin::dropped_cards::DroppedCardsSolver;
use runner::games::tanhinmin::formula::{mu_pair_counts, mu_sorted};
use runner::games::tanhinmin::memo::SharedMemo;
use runner::games::tanhinmin::ordering::MoveOrder;
use runner::games::tanhinmin::position::Position;
use runner::games::tanhinmin::reference::NaiveSolver;
use runner::games::tanhinmin::score::{ThresholdShared, ThresholdSolver, c1_value};
use runner::games::tanhinmin::solver::Solver;
use runner::random::chunk_rng;
use std::hint::black_box;
use std::sync::Arc;

fn deals(n: usize, size: usize) -> Vec<Deal> {
    let deck = Deck {
        copies: vec![4; 13],
    };
    let mut dealer = Dealer::new(&deck);
    let mut rng = chunk_rng(2024, 0);
    (0..n).map(|_| dealer.deal(&mut rng, size, size)).collect()
}

fn cards(counts: &[u8]) -> Vec<u32> {
    let mut v = Vec::new();
    for (r, &c) in counts.iter().enumerate() {
        v.extend(std::iter::repeat_n(r as u32 + 1, c as usize));
    }
    v
}

fn bench_mu(c: &mut Criterion) {
    let mut rng = chunk_rng(1, 1);
    let mut a: Vec<u32> = (0..13).map(|_| (rng.next_u32() % 13) + 1).collect();
    let mut b: Vec<u32> = (0..13).map(|_| (rng.next_u32() % 13) + 1).collect();
    a.sort();
    b.sort();
    c.bench_function("mu_sorted/13x13", |bench| {
        bench.iter(|| mu_sorted(black_box(&a), black_box(&b)))
    });
    let ds = deals(1024, 8);
    c.bench_function("formula_counts/8x8 deal", |bench| {
        let mut i = 0;
        bench.iter(|| {
            let d = &ds[i & 1023];
            i += 1;
            mu_pair_counts(black_box(&d.first[..13]), black_box(&d.second[..13]), 0)
        })
    });
}

fn bench_minimax(c: &mut Criterion) {
    let ds = deals(4096, 8);
    let mut group = c.benchmark_group("minimax/8x8 deal");
    group.sample_size(20);
    // The production path: a fresh random deal every iteration (never a
    // repeat), one shared memo kept across deals as in a run. "Warm" first
    // solves a million other random deals, untimed, as a run has done after
    // its first half second; "cold" starts from an empty memo, so it mostly
    // measures the first few thousand deals of a run.
    for warm_deals in [0u64, 1_000_000] {
        let name = if warm_deals == 0 {
            "production (fresh deals, memo kept, cold)"
        } else {
            "production (fresh deals, memo kept, warm)"
        };
        group.bench_function(name, |bench| {
            let memo = Arc::new(SharedMemo::with_bytes(256 << 20));
            let mut solver = Solver::with_shared(memo, 0, MoveOrder::WeakestFirst);
            let deck = Deck {
                copies: vec![4; 13],
            };
            let mut dealer = Dealer::new(&deck);
            let mut rng = chunk_rng(77, 0);
            let mut solve_next = move || {
                let d = dealer.deal(&mut rng, 8, 8);
                solver.mover_wins(&Position {
                    mover: d.first,
                    other: d.second,
                    ranks: 13,
                    field: 0,
                })
            };
            for _ in 0..warm_deals {
                black_box(solve_next());
            }
            bench.iter(&mut solve_next)
        });
    }
    group.bench_function("production (memo cleared per deal)", |bench| {
        let mut i = 0;
        bench.iter(|| {
            let d = &ds[i % ds.len()];
            i += 1;
            let mut solver = Solver::new(1 << 20);
            solver.mover_wins(&Position {
                mover: d.first,
                other: d.second,
                ranks: 13,
                field: 0,
            })
        })
    });
    let raw: Vec<(Vec<u32>, Vec<u32>)> = ds
        .iter()
        .map(|d| (cards(&d.first[..13]), cards(&d.second[..13])))
        .collect();
    group.bench_function("naive (raw keys, cleared per deal)", |bench| {
        let mut naive = NaiveSolver::new();
        let mut i = 0;
        bench.iter(|| {
            let (x, y) = &raw[i % raw.len()];
            i += 1;
            naive.solve_deal(x, y, 0)
        })
    });
    group.finish();
}

/// One 13x13 card-count deal's value proved at C1's value v ("reaches v"
/// and not "reaches v + 1"), fresh deals each iteration and the tables kept
/// across deals as in a run: the two methods of `[solver] score_method`.
fn bench_card_count(c: &mut Criterion) {
    let mut group = c.benchmark_group("card-count/13x13 deal, value proved");
    group.sample_size(10);
    let deck = Deck {
        copies: vec![4; 13],
    };
    let next_deal = move || {
        let mut dealer = Dealer::new(&deck);
        let mut rng = chunk_rng(13, 0);
        move || {
            let d = dealer.deal(&mut rng, 13, 13);
            let p = Position {
                mover: d.first,
                other: d.second,
                ranks: 13,
                field: 0,
            };
            let v = c1_value(&cards(&d.first[..13]), &cards(&d.second[..13]), 0);
            (p, v)
        }
    };
    group.bench_function("dropped cards (plain searches)", |bench| {
        let memo = Arc::new(SharedMemo::with_bytes(256 << 20));
        let mut solver = DroppedCardsSolver::new(memo, 64 << 20, MoveOrder::default());
        let mut deal = next_deal.clone()();
        bench.iter(|| {
            let (p, v) = deal();
            solver.reaches(&p, v) && !solver.reaches(&p, v + 1)
        })
    });
    group.bench_function("threshold searches", |bench| {
        let memo = Arc::new(ThresholdShared::with_bytes(256 << 20));
        let mut solver = ThresholdSolver::new(memo, 64 << 20, 64 << 20);
        let mut deal = next_deal.clone()();
        bench.iter(|| {
            let (p, v) = deal();
            solver.reaches(&p, v) && !solver.reaches(&p, v + 1)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_mu, bench_minimax, bench_card_count);
criterion_main!(benches);
