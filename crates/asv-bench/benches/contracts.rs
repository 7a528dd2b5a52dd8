//! Criterion benchmarks of the hot functions: canonical body, framed digest, lock rendering,
//! and `verify` in-process on a generated 200 × 10 repository.
#![allow(clippy::disallowed_methods)]

use criterion::{Criterion, criterion_group, criterion_main};

fn functions(c: &mut Criterion) {
    let mut rng = asv_bench::Rng::new(3);
    let text = format!(
        "---\ntitle: x\n---\n\n{}",
        asv_bench::text(&mut rng, 20 * 1024)
    );
    c.bench_function("canonical body 20 KiB", |b| {
        b.iter(|| asv_contracts::CanonicalBody::from_text("bench.md", std::hint::black_box(&text)))
    });
    let files: Vec<(String, Vec<u8>)> = (0..50)
        .map(|i| {
            (
                format!("cases/{i}.md"),
                asv_bench::text(&mut rng, 1024).into_bytes(),
            )
        })
        .collect();
    c.bench_function("framed digest 50 files", |b| {
        b.iter(|| {
            let mut f = asv_contracts::digest::Framed::default();
            for (p, d) in &files {
                f.add(p.clone(), d.clone());
            }
            f.finish()
        })
    });
}

fn verify_tree(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = asv_bench::Spec::new(200, 10);
    asv_bench::generate(&spec, dir.path()).expect("generate");
    let root = asv_fs::Root::open(dir.path()).expect("open");
    let repo = asv_contracts::Repository::load(&root).expect("load");
    let lock = root
        .lock_for_writing(std::time::Duration::from_secs(2))
        .expect("lock");
    asv_contracts::generate(&repo, &lock).expect("gen");
    drop(lock);
    let mut group = c.benchmark_group("in-process");
    group.sample_size(20);
    group.bench_function("verify 200 x 10", |b| {
        b.iter(|| {
            let root = asv_fs::Root::open(dir.path()).expect("open");
            let repo = asv_contracts::Repository::load(&root).expect("load");
            let found = asv_contracts::verify(&repo).expect("verify");
            assert!(found.is_empty());
        })
    });
    group.bench_function("lock render 200 x 10", |b| {
        let root = asv_fs::Root::open(dir.path()).expect("open");
        let repo = asv_contracts::Repository::load(&root).expect("load");
        let lock = repo.lock_file.lock();
        b.iter(|| lock.render())
    });
    group.finish();
}

criterion_group!(benches, functions, verify_tree);
criterion_main!(benches);
