//! `runner slurm`: fills the templates in `scripts/slurm/` for a config and
//! a shard count, so a cluster user submits one script.

use crate::cli::SlurmArgs;
use crate::config::Config;
use crate::exit;
use crate::studies::load_config_to_run;
use std::path::{Path, PathBuf};

const ARRAY: &str = include_str!("../scripts/slurm/array.sbatch.in");
const MERGE: &str = include_str!("../scripts/slurm/merge.sbatch.in");
const SUBMIT: &str = include_str!("../scripts/slurm/submit.sh.in");

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Characters no value pasted into the scripts may hold. The templates put
/// every path between double quotes, where only these can end the quoting
/// or run a command, and `#SBATCH` lines end at a newline.
const UNSAFE: &[char] = &['\n', '\r', '"', '\'', '`', '$', '\\'];

/// Refuses a value the scripts cannot hold safely; `what` names its flag
/// or key.
fn safe<'a>(what: &str, value: &'a str) -> Result<&'a str, String> {
    match value.chars().find(|c| UNSAFE.contains(c)) {
        Some(c) => Err(format!(
            "{what}: {:?} holds {:?}, which the generated scripts cannot quote safely",
            value, c
        )),
        None => Ok(value),
    }
}

/// Whether `time` has one of the shapes sbatch's `--time` takes. Checked
/// here so that a typo ("4h") is one line now, not a rejected submission
/// after the scripts were copied to the cluster.
fn is_slurm_time(time: &str) -> bool {
    if matches!(time, "UNLIMITED" | "INFINITE") {
        return true;
    }
    let number = |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
    let (days, clock) = match time.split_once('-') {
        Some((days, clock)) => (Some(days), clock),
        None => (None, time),
    };
    let fields: Vec<&str> = clock.split(':').collect();
    let shape_fits = match days {
        // days-hours, days-hours:minutes, days-hours:minutes:seconds
        Some(days) => number(days) && (1..=3).contains(&fields.len()),
        // minutes, minutes:seconds, hours:minutes:seconds
        None => (1..=3).contains(&fields.len()),
    };
    shape_fits && fields.iter().all(|f| number(f))
}

/// Whether `mem` is a size sbatch's `--mem` takes: a whole number of
/// megabytes, or of the unit its K, M, G or T suffix names.
fn is_slurm_memory(mem: &str) -> bool {
    let digits = mem.trim_end_matches(['K', 'M', 'G', 'T', 'k', 'm', 'g', 't']);
    mem.len() - digits.len() <= 1
        && !digits.is_empty()
        && digits.len() <= 12
        && digits.bytes().all(|b| b.is_ascii_digit())
}

/// With `--keep-memo`, how long before its time limit a task is asked to
/// stop, to write its memo.
pub const MEMO_SIGNAL_LEAD_SECS: u32 = 300;

/// What the merge job asks SLURM for, and its flags beyond the shards and
/// `--out`.
struct MergeJob {
    cpus: String,
    mem: String,
    time: String,
    flags: String,
}

impl MergeJob {
    /// A merge that only sums the shards: seconds on one CPU even for
    /// thousands of shards, so a small request that schedules soon.
    fn summing_only() -> MergeJob {
        MergeJob {
            cpus: "1".into(),
            mem: "2G".into(),
            time: "00:30:00".into(),
            flags: String::new(),
        }
    }
}

/// The three scripts for `args`, as (file name, text); refused when a value
/// could break out of the scripts' quoting.
pub fn render(
    config: &Config,
    args: &SlurmArgs,
    workdir: &Path,
    runner: &Path,
) -> Result<Vec<(&'static str, String)>, String> {
    let out = absolute(&workdir.join(config.output_dir()));
    let logs = out.join("logs");
    let extra = if args.sbatch_options.trim().is_empty() {
        String::new()
    } else {
        format!("#SBATCH {}", args.sbatch_options.trim())
    };
    // The batch shell is the runner (the script execs it), so `B:` sends
    // it the signal; a stop then has the lead to write the memo (14.8 GiB
    // took 33 s on the project VM) before the scheduler's SIGKILL at the
    // limit.
    let (signal, mut run_flags) = if args.keep_memo {
        (
            format!("#SBATCH --signal=B:TERM@{MEMO_SIGNAL_LEAD_SECS}"),
            " --keep-memo".to_string(),
        )
    } else {
        (String::new(), String::new())
    };
    if let Some(n) = args.recheck {
        run_flags.push_str(&format!(" --recheck {n}"));
    }
    let merge_job = match args.merge_recheck {
        Some(n) => MergeJob {
            cpus: args.cpus.to_string(),
            mem: args.mem.clone(),
            time: args.time.clone(),
            flags: format!(
                " --recheck {n} -j \"${{SLURM_CPUS_PER_TASK:-{}}}\"",
                args.cpus
            ),
        },
        None => MergeJob::summing_only(),
    };
    // A path that is not UTF-8 would be written with replacement
    // characters, naming a file that does not exist on the cluster.
    let text = |what: &str, p: &Path| {
        p.to_str().map(str::to_owned).ok_or_else(|| {
            format!(
                "{what}: {:?} is not valid UTF-8, which the generated scripts cannot name",
                p.as_os_str()
            )
        })
    };
    let (out_s, logs_s, workdir_s, runner_s, config_s) = (
        text("[output] dir", &out)?,
        text("[output] dir", &logs)?,
        text("working directory", workdir)?,
        text("--runner", runner)?,
        text("--config", &absolute(&args.config))?,
    );
    for (what, value) in [
        ("[experiment] name", config.experiment.name.as_str()),
        ("[output] dir", out_s.as_str()),
        ("working directory", workdir_s.as_str()),
        ("--runner", runner_s.as_str()),
        ("--config", config_s.as_str()),
        ("--mem", args.mem.as_str()),
        ("--time", args.time.as_str()),
        ("--sbatch-options", args.sbatch_options.as_str()),
    ] {
        safe(what, value)?;
    }
    if !is_slurm_time(&args.time) {
        return Err(format!(
            "--time: {:?} is not a SLURM time (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)",
            args.time
        ));
    }
    if !is_slurm_memory(&args.mem) {
        return Err(format!(
            "--mem: {:?} is not a SLURM memory size (a whole number with an optional K, M, G or T, e.g. 8G)",
            args.mem
        ));
    }
    let fill = |t: &str| {
        t.replace("{{NAME}}", &config.experiment.name)
            .replace("{{LAST}}", &(args.shards - 1).to_string())
            .replace("{{SHARDS3}}", &format!("{:03}", args.shards))
            .replace("{{SHARDS}}", &args.shards.to_string())
            .replace("{{CPUS}}", &args.cpus.to_string())
            .replace("{{MEM}}", &args.mem)
            .replace("{{TIME}}", &args.time)
            .replace("{{LOGS}}", &logs_s)
            .replace("{{SIGNAL}}", &signal)
            .replace("{{EXTRA}}", &extra)
            .replace("{{RUN_FLAGS}}", &run_flags)
            .replace("{{MERGE_CPUS}}", &merge_job.cpus)
            .replace("{{MERGE_MEM}}", &merge_job.mem)
            .replace("{{MERGE_TIME}}", &merge_job.time)
            .replace("{{MERGE_FLAGS}}", &merge_job.flags)
            .replace("{{WORKDIR}}", &workdir_s)
            .replace("{{RUNNER}}", &runner_s)
            .replace("{{CONFIG}}", &config_s)
            .replace("{{OUT}}", &out_s)
    };
    Ok(vec![
        ("array.sbatch", fill(ARRAY)),
        ("merge.sbatch", fill(MERGE)),
        ("submit.sh", fill(SUBMIT)),
    ])
}

/// `runner slurm`: writes the three scripts; returns the exit status.
pub fn main(args: &SlurmArgs) -> i32 {
    let Some(config) = exit::or_say(load_config_to_run(&args.config, args.keep_memo)) else {
        return exit::USAGE;
    };
    let workdir = absolute(Path::new("."));
    let runner = args
        .runner
        .clone()
        .or_else(|| std::env::current_exe().ok())
        .unwrap_or_else(|| PathBuf::from("runner"));
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| Path::new("scripts/slurm").join(&config.experiment.name));
    let Some(scripts) = exit::or_say(render(&config, args, &workdir, &runner)) else {
        return exit::USAGE;
    };
    let result = (|| -> anyhow::Result<()> {
        // A --dir that cannot be a directory is a bad flag, refused as
        // `--out` is, not an I/O failure.
        std::fs::create_dir_all(&dir).map_err(|e| {
            crate::error::refuse(format!(
                "{}: cannot be the directory of the scripts (--dir): {e}",
                dir.display()
            ))
        })?;
        for (name, text) in scripts {
            let path = dir.join(name);
            crate::export::write_atomic(&path, text.as_bytes())?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
            }
        }
        Ok(())
    })();
    match result {
        Ok(()) => {
            println!(
                "wrote {0}/array.sbatch, {0}/merge.sbatch and {0}/submit.sh",
                dir.display()
            );
            println!(
                "submit with: bash {}",
                crate::error::path_word(&dir.join("submit.sh"))
            );
            exit::OK
        }
        Err(e) => {
            exit::say_error(format_args!("{e:#}"));
            exit::of_error(&e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_slurm_memory, is_slurm_time};

    #[test]
    fn times_and_sizes_are_read_as_sbatch_reads_them() {
        for good in [
            "30",
            "30:00",
            "04:00:00",
            "1-12",
            "1-12:30",
            "2-00:00:00",
            "0",
            "UNLIMITED",
        ] {
            assert!(is_slurm_time(good), "{good}");
        }
        for bad in [
            "",
            "4h",
            "1:2:3:4",
            "1-",
            "-1",
            "1-2-3",
            "1-1:2:3:4",
            ":",
            "1::2",
            " 1",
            "1.5",
            "unlimited",
            "1234567890",
        ] {
            assert!(!is_slurm_time(bad), "{bad}");
        }
        for good in ["8G", "8000", "512M", "1t", "0"] {
            assert!(is_slurm_memory(good), "{good}");
        }
        for bad in [
            "",
            "G",
            "8GB",
            "8 G",
            "-8G",
            "8.5G",
            "0x10",
            "9999999999999G",
        ] {
            assert!(!is_slurm_memory(bad), "{bad}");
        }
    }
}
