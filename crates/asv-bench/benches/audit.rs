//! Criterion benchmark of the audit's scanner in one thread, on the skills `asv-bench audit`
//! writes (ten files each, clean): the bytes per second one core judges, without the file
//! system (docs/PERFORMANCE.md, "`skill audit` beside `skill verify`").
#![allow(clippy::disallowed_methods)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn scan(c: &mut Criterion) {
    let skills: Vec<Vec<asv_bench::SkillFileSpec>> = (0..100).map(asv_bench::audit_skill).collect();
    let bytes: usize = skills.iter().flatten().map(|f| f.text.len()).sum();
    let mut group = c.benchmark_group("audit");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("scan 100 skills x 10 files", |b| {
        b.iter(|| {
            let mut findings = 0;
            for skill in &skills {
                let report = asv_audit::scan_skill(skill.iter().map(|f| asv_audit::SkillFile {
                    path: &f.path,
                    bytes: f.text.as_bytes(),
                    executable: f.executable,
                }));
                findings += report.findings.len();
            }
            std::hint::black_box(findings)
        })
    });
    group.finish();
}

criterion_group!(benches, scan);
criterion_main!(benches);
