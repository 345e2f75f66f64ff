//! Tool search over 10,000 tools: building the index, and one query's time at p50 and p99 (each
//! of 5,000 queries timed on its own, then criterion's mean), and the index's memory.
//!
//! The tools are generated, the same on every run (a fixed seed): names of two or three words
//! from a vocabulary of 4,000 made-up words, picked with Zipf's law as real text is;
//! descriptions of 8 to 30 words; two to six parameters with descriptions of 4 to 12 words and
//! some enums. Queries are 3 to 12 words drawn the same way.
//!
//! Run: `cargo bench -p toolwright-benches --bench search`. Figures are in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use toolwright::search::ToolIndex;

/// xorshift64*: a fixed stream of numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn between(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }
}

struct Words {
    words: Vec<String>,
    /// Cumulative Zipf weights.
    weights: Vec<f64>,
}

impl Words {
    fn new(rng: &mut Rng, n: usize) -> Self {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mi", "ra", "te", "su", "no", "vi", "de", "pa", "zu", "ho", "ge", "ri",
            "fa", "bo", "ne", "xi", "qua", "len", "mor", "sta", "tri", "ven",
        ];
        let mut words = Vec::with_capacity(n);
        while words.len() < n {
            let word: String = (0..rng.between(2, 4))
                .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                .collect();
            if !words.contains(&word) {
                words.push(word);
            }
        }
        let mut total = 0.0;
        let weights = (1..=n)
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Words { words, weights }
    }

    fn pick(&self, rng: &mut Rng) -> &str {
        let total = *self.weights.last().unwrap();
        let at = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let index = self.weights.partition_point(|&w| w < at);
        &self.words[index.min(self.words.len() - 1)]
    }

    fn text(&self, rng: &mut Rng, low: usize, high: usize) -> String {
        (0..rng.between(low, high))
            .map(|_| self.pick(rng))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `(name, description, parameters)` of `n` tools.
fn tools(n: usize) -> (Vec<(String, String, Value)>, Vec<String>) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let words = Words::new(&mut rng, 4000);
    let tools = (0..n)
        .map(|i| {
            let name = format!(
                "{}_{}_{i}",
                words.pick(&mut rng),
                words.text(&mut rng, 1, 2).replace(' ', "_")
            );
            let description = words.text(&mut rng, 8, 30);
            let mut properties = Map::new();
            for _ in 0..rng.between(2, 6) {
                let mut property =
                    json!({"type": "string", "description": words.text(&mut rng, 4, 12)});
                if rng.below(4) == 0 {
                    property["enum"] =
                        json!(words.text(&mut rng, 2, 5).split(' ').collect::<Vec<_>>());
                }
                properties.insert(words.text(&mut rng, 1, 2).replace(' ', "_"), property);
            }
            (
                name,
                description,
                json!({"type": "object", "properties": properties}),
            )
        })
        .collect();
    let queries = (0..5000).map(|_| words.text(&mut rng, 3, 12)).collect();
    (tools, queries)
}

/// The index of every tool at once, as a toolbox builds it.
fn build(tools: &[(String, String, Value)]) -> ToolIndex {
    let mut index = ToolIndex::new();
    index.insert_all(tools.iter().map(|(n, d, p)| (n.as_str(), d.as_str(), p)));
    index
}

/// The same, one tool at a time, as tools added at run time are.
fn build_one_by_one(tools: &[(String, String, Value)]) -> ToolIndex {
    let mut index = ToolIndex::new();
    for (name, description, parameters) in tools {
        index.insert(name, description, parameters);
    }
    index
}

/// Resident memory, in KiB (Linux).
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn search(c: &mut Criterion) {
    let (tools, queries) = tools(10_000);
    let text: usize = tools
        .iter()
        .map(|(n, d, p)| n.len() + d.len() + p.to_string().len())
        .sum();

    let before = resident_kib();
    let started = Instant::now();
    let index = build(&tools);
    let built = started.elapsed();
    let after = resident_kib();
    let mut times: Vec<u128> = queries
        .iter()
        .map(|query| {
            let started = Instant::now();
            black_box(index.search(black_box(query), 5));
            started.elapsed().as_nanos()
        })
        .collect();
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize] as f64 / 1000.0;
    println!(
        "10,000 tools ({:.1} MB of definitions): index built in {:.1} ms, {} of memory; one query of 5,000: p50 {:.1} us, p99 {:.1} us, max {:.1} us",
        text as f64 / 1e6,
        built.as_secs_f64() * 1000.0,
        match (before, after) {
            (Some(b), Some(a)) => format!("{:.1} MB", (a.saturating_sub(b)) as f64 / 1024.0),
            _ => "unknown".to_owned(),
        },
        at(0.5),
        at(0.99),
        at(1.0),
    );

    let mut group = c.benchmark_group("search");
    group.sample_size(20);
    group.bench_function("build_10k", |b| {
        b.iter_with_large_drop(|| build(black_box(&tools)))
    });
    group.bench_function("build_10k_one_by_one", |b| {
        b.iter_with_large_drop(|| build_one_by_one(black_box(&tools)))
    });
    let mut next = 0;
    group.bench_function("query_10k", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            index.search(black_box(&queries[next]), 5).len()
        })
    });
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
