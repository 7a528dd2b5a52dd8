//! `asv-bench startup`: the cost of starting the tool, `--version` and `verify` of an empty git
//! repository (goal: 5 ms each). No peer: the goal is the yardstick.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::Result;

use crate::measure::{children_cpu, clear, git, median, succeed, ticks};

/// Times `runs` runs of each (after a few warm-ups) and returns the markdown report: the
/// median wall time and the mean CPU time (the children's CPU over all runs, so that 10 ms
/// ticks still give a tenth of a millisecond over 100 runs).
pub(crate) fn run(runs: usize, bin: &Path, work: &Path) -> Result<String> {
    clear(work)?;
    let empty = work.join("empty");
    std::fs::create_dir_all(&empty)?;
    succeed(git(&empty).args(["init", "-q"]))?;
    let ticks = ticks();
    let mut out = String::new();
    writeln!(
        out,
        "Median wall time and mean CPU time (user plus system) of {runs} runs after 10 warm-ups; goal ≤ 5 ms.\n"
    )?;
    writeln!(out, "| command | median wall (ms) | mean CPU (ms) | exit |")?;
    writeln!(out, "|---|---:|---:|---:|")?;
    let empty_arg = empty.to_string_lossy().into_owned();
    for (label, args) in [
        ("`--version`", vec!["--version"]),
        (
            "`verify`, empty git repository",
            vec!["verify", "--root", empty_arg.as_str()],
        ),
    ] {
        let run_once = || {
            Command::new(bin)
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
        };
        for _ in 0..10 {
            run_once()?;
        }
        let mut walls = Vec::with_capacity(runs);
        let mut code = 0;
        let cpu_before = children_cpu(ticks)?;
        for _ in 0..runs {
            let start = Instant::now();
            code = run_once()?.code().unwrap_or(-1);
            walls.push(start.elapsed());
        }
        let cpu = children_cpu(ticks)?.saturating_sub(cpu_before);
        writeln!(
            out,
            "| {label} | {:.2} | {:.2} | {code} |",
            median(walls).as_secs_f64() * 1000.0,
            cpu.as_secs_f64() * 1000.0 / runs.max(1) as f64
        )?;
    }
    Ok(out)
}
