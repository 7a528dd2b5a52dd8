//! `asv-bench`: generate synthetic repositories and time the release binary on them, each
//! command beside its peer or floor in the same run (issue 16).
//!
//! Every scenario is a subcommand that prints a markdown report; `asv-bench all` runs each once
//! and prints one report. A peer that is not installed (`skills-ref`, `zip`, `strace`) is
//! reported as skipped. Scratch trees go under `/dev/shm/asv-bench` when `/dev/shm` exists
//! (tmpfs: a disk's discards and writeback make file creation times noisy), else under
//! `target/asv-bench`.
//!
//! - `run`: `gen` and `verify` at several sizes beside `openssl dgst` and `sha256sum` over the
//!   files `verify` reads (the `matrix` module).
//! - `skill`: `skill pack` beside `zip -r` and `skill install` beside `unzip` (`skill`).
//! - `startup`: `--version` and `verify` of an empty repository (`startup`).
//! - `validate`: `skill validate` beside the reference validator `skills-ref` (`validate`).
//! - `pull`: `skill pull` beside `git merge` of the same three trees (`pull`).
//! - `sync`: `skill sync` with nothing to change beside hashing the same files (`sync`).
//! - `scale`: every read-only command at 10,000 and 100,000 skills (`scale`).
//! - `add`: `skill add --all` of 100 and 1,000 local skills beside `npx skills add` (`add`).
//! - `git`: `skill add --all`, `outdated` and `pull` of 150 skills over git (`file://` and
//!   HTTPS) beside `git clone --depth 1` and `git ls-remote` plus a shallow fetch (`over_git`).
//! - `skill-scale`: `skill sync`, `verify`, `status` and `list` at 1,000 and 10,000 imported
//!   skills (`skill_scale`).
//! - `audit`: `skill audit` and `skill verify` of 2,000 skills of ten files beside `openssl
//!   dgst`, and with `--baseline` beside the `skill verify` of a binary from before verify
//!   audited (`audit`).
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};
use asv_bench::{Spec, break_copies, generate};
use clap::{Args, Parser, Subcommand};

mod add;
mod audit;
mod matrix;
mod measure;
mod over_git;
mod pull;
mod scale;
mod skill;
mod skill_scale;
mod startup;
mod sync;
mod validate;

#[derive(Parser)]
#[command(about = "Synthetic repositories and whole-process benchmarks for agentic-skill-vendor")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// One scenario of `all`: given its scratch directory, its markdown report.
type Scenario<'a> = Box<dyn Fn(&Path) -> Result<String> + 'a>;

/// What every scenario takes.
#[derive(Args, Clone)]
struct Common {
    /// Runs per measurement (the median is reported, after one untimed warm-up)
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// The release binary [default: agentic-skill-vendor beside this executable, else $CARGO_TARGET_DIR/release/… or target/release/…]
    #[arg(long)]
    bin: Option<PathBuf>,
    /// Scratch directory, emptied first [default: /dev/shm/asv-bench/<scenario> when /dev/shm exists, else target/asv-bench/<scenario>]
    #[arg(long)]
    work: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write a synthetic repository (canonical texts and skills; run gen for the rest)
    Generate {
        /// Number of skills
        #[arg(long, default_value_t = 200)]
        skills: usize,
        /// Number of document contracts (each skill declares all)
        #[arg(long, default_value_t = 10)]
        contracts: usize,
        /// Seed of the text generator
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Contract body sizes in bytes, smallest-largest
        #[arg(long, default_value = "2048-20480", value_parser = parse_range)]
        body: (usize, usize),
        /// Also run gen with --bin and then break this many copies
        #[arg(long)]
        r#break: Option<usize>,
        /// The release binary, used with --break
        #[arg(long)]
        bin: Option<PathBuf>,
        /// Where to write (must not exist)
        dir: PathBuf,
    },
    /// gen and verify at several sizes beside openssl and sha256sum over the same files
    Run {
        /// Sizes in skills, comma-separated
        #[arg(long, default_value = "200,2000,10000", value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Contracts per skill
        #[arg(long, default_value_t = 10)]
        contracts: usize,
        #[command(flatten)]
        common: Common,
    },
    /// skill pack and skill install of one generated 28 MiB skill beside zip and unzip
    Skill {
        /// Seed of the generator
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        common: Common,
    },
    /// Start-up: --version and verify of an empty repository
    Startup {
        #[command(flatten)]
        common: Common,
    },
    /// skill validate beside the reference validator (PyPI skills-ref)
    Validate {
        /// Number of skills
        #[arg(long, default_value_t = 10_000)]
        skills: usize,
        /// Runs of the reference validator (it takes minutes on 10,000 skills)
        #[arg(long, default_value_t = 5)]
        peer_runs: usize,
        /// A Python that can import skills_ref
        #[arg(long, default_value = "python3")]
        python: String,
        #[command(flatten)]
        common: Common,
    },
    /// skill audit of many skills of ten files beside skill verify and openssl over the same files
    Audit {
        /// Number of skills
        #[arg(long, default_value_t = 2000)]
        skills: usize,
        /// A second binary whose `skill verify` is timed too: one from before verify audited
        /// (c7e7c86 or older), the structural check the audit's goal is stated against
        #[arg(long)]
        baseline: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// skill pull of a 28 MiB skill beside git merge of the same trees, and a no-change pull
    Pull {
        #[command(flatten)]
        common: Common,
    },
    /// skill add --all, outdated and pull of 150 skills over git (file:// and HTTPS) beside git clone and ls-remote + fetch
    Git {
        #[command(flatten)]
        common: Common,
    },
    /// skill sync into three targets with nothing to change beside hashing the same files
    Sync {
        /// Number of skills
        #[arg(long, default_value_t = 500)]
        skills: usize,
        #[command(flatten)]
        common: Common,
    },
    /// Every read-only command at growing sizes: time, CPU, peak memory, ratio
    Scale {
        /// Sizes in skills, comma-separated
        #[arg(long, default_value = "10000,100000", value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Contracts per skill
        #[arg(long, default_value_t = 10)]
        contracts: usize,
        /// Contract body sizes in bytes, smallest-largest
        #[arg(long, default_value = "1024-3072", value_parser = parse_range)]
        body: (usize, usize),
        #[command(flatten)]
        common: Common,
    },
    /// skill add --all of many local skills into two agents beside the npm `skills` CLI
    Add {
        /// Sizes in skills, comma-separated
        #[arg(long, default_value = "100,1000", value_delimiter = ',')]
        sizes: Vec<usize>,
        #[command(flatten)]
        peer: PeerArgs,
        #[command(flatten)]
        common: Common,
    },
    /// skill sync, verify, status and list at growing numbers of imported skills
    SkillScale {
        /// Sizes in skills, comma-separated
        #[arg(long, default_value = "1000,10000", value_delimiter = ',')]
        sizes: Vec<usize>,
        #[command(flatten)]
        common: Common,
    },
    /// Every scenario once, one markdown report (scale only with --scale-sizes, skill-scale
    /// only with --skill-scale-sizes)
    All {
        /// Sizes of run, comma-separated
        #[arg(long, default_value = "200,2000", value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Skills for validate
        #[arg(long, default_value_t = 10_000)]
        validate_skills: usize,
        /// Runs of the reference validator
        #[arg(long, default_value_t = 5)]
        peer_runs: usize,
        /// A Python that can import skills_ref
        #[arg(long, default_value = "python3")]
        python: String,
        /// Skills for sync
        #[arg(long, default_value_t = 500)]
        sync_skills: usize,
        /// Sizes of scale, comma-separated (none: scale is not run)
        #[arg(long, value_delimiter = ',')]
        scale_sizes: Vec<usize>,
        /// Sizes of skill-scale in skills, comma-separated (none: it is not run; issue 30 §6
        /// is judged at 1000,10000)
        #[arg(long, value_delimiter = ',')]
        skill_scale_sizes: Vec<usize>,
        /// Sizes of add, comma-separated
        #[arg(long, default_value = "100,1000", value_delimiter = ',')]
        add_sizes: Vec<usize>,
        #[command(flatten)]
        peer: PeerArgs,
        #[command(flatten)]
        common: Common,
    },
}

/// Where the npm `skills` CLI is (it needs Node 22; bun runs it on an older Node).
#[derive(Args, Clone)]
struct PeerArgs {
    /// bun, to run the `skills` CLI (npm install bun skills)
    #[arg(long)]
    bun: Option<PathBuf>,
    /// The `skills` package's bin/cli.mjs (without it and --bun, `cp -r` is the peer)
    #[arg(long)]
    skills_cli: Option<PathBuf>,
}

impl PeerArgs {
    fn peer(&self) -> add::Peer {
        add::Peer {
            bun: self.bun.clone(),
            cli: self.skills_cli.clone(),
        }
    }
}

fn parse_range(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = s
        .split_once('-')
        .ok_or_else(|| format!("{s}: give smallest-largest, as 1024-3072"))?;
    let a: usize = a.trim().parse().map_err(|e| format!("{a}: {e}"))?;
    let b: usize = b.trim().parse().map_err(|e| format!("{b}: {e}"))?;
    if a > b {
        return Err(format!("{s}: the smallest is larger than the largest"));
    }
    Ok((a, b))
}

/// The release binary: `--bin`, else the one beside this executable when that is not a debug
/// build (both built into the same target directory and profile), else the one in `$CARGO_TARGET_DIR` or `target`.
fn binary(bin: Option<PathBuf>) -> Result<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
        .filter(|d| d.file_name().is_some_and(|n| n != "debug"))
        .map(|d| d.join("agentic-skill-vendor"))
        .filter(|b| b.is_file());
    let bin = bin.or(beside).unwrap_or_else(|| {
        let dir =
            std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| "target".into(), PathBuf::from);
        dir.join("release/agentic-skill-vendor")
    });
    if !bin.is_file() {
        bail!(
            "{} not found; build it with cargo build --release -p agentic-skill-vendor, or pass --bin",
            bin.display()
        );
    }
    Ok(bin.canonicalize()?)
}

/// The scratch directory of `scenario`: `--work`, else on tmpfs when there is one.
fn work_dir(work: Option<PathBuf>, scenario: &str) -> Result<PathBuf> {
    let dir = work.unwrap_or_else(|| {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm/asv-bench")
        } else {
            PathBuf::from("target/asv-bench")
        };
        base.join(scenario)
    });
    std::fs::create_dir_all(&dir)?;
    Ok(dir.canonicalize()?)
}

/// The header of every report: date, machine, load, binary.
fn header(bin: &Path) -> String {
    let (cpu, cores) = machine();
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(String::new(), |kib| {
            format!(", {:.1} GiB of memory", kib / 1024.0 / 1024.0)
        });
    format!(
        "{date}. Machine: {cpu}, {cores} cores{mem}; load average {} at the start. Binary: {}.\n",
        load(),
        bin.display()
    )
}

/// The 1-, 5- and 15-minute load averages.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The CPU's model name and how many cores this process may use, for a report's header.
fn machine() -> (String, usize) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    (cpu, cores)
}

/// Runs one scenario and prints its report under the common header (taken before it runs, so
/// that the load average is the one it started under).
fn print(bin: &Path, scenario: impl FnOnce() -> Result<String>) -> Result<()> {
    let head = header(bin);
    let report = scenario()?;
    println!("{head}\n{report}\nLoad average at the end: {}.", load());
    Ok(())
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Cmd::Generate {
            skills,
            contracts,
            seed,
            body,
            r#break,
            bin,
            dir,
        } => {
            if dir.exists() {
                bail!("{} exists; give a new directory", dir.display());
            }
            std::fs::create_dir_all(&dir)?;
            let spec = Spec {
                skills,
                contracts,
                seed,
                body,
            };
            generate(&spec, &dir)?;
            if let Some(k) = r#break {
                let bin = binary(bin)?;
                measure::succeed(&mut matrix::tool(&bin, &["gen"], &dir))?;
                let broken = break_copies(&spec, &dir, k)?;
                eprintln!("broke {} copies", broken.len());
            }
            Ok(())
        }
        Cmd::Run {
            sizes,
            contracts,
            common,
        } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "run")?;
            print(&bin, || {
                matrix::run(&sizes, contracts, common.runs, &bin, &work)
            })
        }
        Cmd::Skill { seed, common } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "skill")?;
            print(&bin, || skill::run(common.runs, seed, &bin, &work))
        }
        Cmd::Startup { common } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "startup")?;
            print(&bin, || startup::run(common.runs.max(100), &bin, &work))
        }
        Cmd::Validate {
            skills,
            peer_runs,
            python,
            common,
        } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "validate")?;
            print(&bin, || {
                validate::run(skills, common.runs, peer_runs, &python, &bin, &work)
            })
        }
        Cmd::Audit {
            skills,
            baseline,
            common,
        } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "audit")?;
            print(&bin, || {
                audit::run(skills, common.runs, &bin, baseline.as_deref(), &work)
            })
        }
        Cmd::Pull { common } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "pull")?;
            print(&bin, || pull::run(common.runs, &bin, &work))
        }
        Cmd::Git { common } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "git")?;
            print(&bin, || over_git::run(common.runs, &bin, &work))
        }
        Cmd::Sync { skills, common } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "sync")?;
            print(&bin, || sync::run(skills, common.runs, &bin, &work))
        }
        Cmd::Scale {
            sizes,
            contracts,
            body,
            common,
        } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "scale")?;
            print(&bin, || {
                scale::run(&sizes, contracts, body, common.runs, &bin, &work)
            })
        }
        Cmd::SkillScale { sizes, common } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "skill-scale")?;
            print(&bin, || skill_scale::run(&sizes, common.runs, &bin, &work))
        }
        Cmd::Add {
            sizes,
            peer,
            common,
        } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "add")?;
            print(&bin, || {
                add::run(&sizes, common.runs, &bin, &peer.peer(), &work)
            })
        }
        Cmd::All {
            sizes,
            validate_skills,
            peer_runs,
            python,
            sync_skills,
            scale_sizes,
            skill_scale_sizes,
            add_sizes,
            peer,
            common,
        } => {
            let bin = binary(common.bin)?;
            let work = work_dir(common.work, "all")?;
            let runs = common.runs;
            let mut out = format!("# asv-bench all\n\n{}", header(&bin));
            let mut failed = Vec::new();
            let scenarios: Vec<(&str, Scenario<'_>)> = vec![
                (
                    "Start-up",
                    Box::new(|w| startup::run(runs.max(100), &bin, w)),
                ),
                (
                    "`gen` and `verify` beside the hash floor",
                    Box::new(|w| matrix::run(&sizes, 10, runs, &bin, w)),
                ),
                (
                    "`skill pack` and `skill install`",
                    Box::new(|w| skill::run(runs, 1, &bin, w)),
                ),
                (
                    "`skill validate`",
                    Box::new(|w| validate::run(validate_skills, runs, peer_runs, &python, &bin, w)),
                ),
                ("`skill pull`", Box::new(|w| pull::run(runs, &bin, w))),
                (
                    "`skill sync`",
                    Box::new(|w| sync::run(sync_skills, runs, &bin, w)),
                ),
                (
                    "`skill add --all`",
                    Box::new(|w| add::run(&add_sizes, runs, &bin, &peer.peer(), w)),
                ),
                (
                    "The skill commands over git",
                    Box::new(|w| over_git::run(runs, &bin, w)),
                ),
            ];
            for (k, (title, scenario)) in scenarios.iter().enumerate() {
                eprintln!("== {title}");
                let w = work.join(format!("{k}"));
                std::fs::create_dir_all(&w)?;
                writeln!(out, "\n## {title}\n")?;
                match scenario(&w) {
                    Ok(report) => out.push_str(&report),
                    Err(e) => {
                        writeln!(out, "**failed**: {e:#}")?;
                        failed.push(*title);
                    }
                }
                measure::clear(&w)?;
            }
            // The slow ones, each only when its sizes are given.
            let slow: Vec<(&str, &str, Scenario<'_>)> = vec![
                (
                    "scale",
                    "Scale",
                    Box::new(|w| scale::run(&scale_sizes, 10, (1024, 3072), runs, &bin, w)),
                ),
                (
                    "skill-scale",
                    "The skill commands at scale",
                    Box::new(|w| skill_scale::run(&skill_scale_sizes, runs, &bin, w)),
                ),
            ];
            for ((name, title, scenario), sizes) in
                slow.iter().zip([&scale_sizes, &skill_scale_sizes])
            {
                if sizes.is_empty() {
                    continue;
                }
                eprintln!("== {name}");
                writeln!(out, "\n## {title}\n")?;
                let w = work.join(name);
                match scenario(&w) {
                    Ok(report) => out.push_str(&report),
                    Err(e) => {
                        writeln!(out, "**failed**: {e:#}")?;
                        failed.push(*name);
                    }
                }
                measure::clear(&w)?;
            }
            writeln!(out, "\nLoad average at the end: {}.", load())?;
            println!("{out}");
            if !failed.is_empty() {
                bail!("scenarios failed: {}", failed.join(", "));
            }
            Ok(())
        }
    }
}
