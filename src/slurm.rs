//! `runner slurm`: fills the templates in `scripts/slurm/` for a config and
//! a shard count, so a cluster user submits one script.

use crate::cli::SlurmArgs;
use crate::config::Config;
use crate::exit;
use crate::studies::load_config;
use std::path::{Path, PathBuf};

const ARRAY: &str = include_str!("../scripts/slurm/array.sbatch.in");
const MERGE: &str = include_str!("../scripts/slurm/merge.sbatch.in");
const SUBMIT: &str = include_str!("../scripts/slurm/submit.sh.in");

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The three scripts for `args`, as (file name, text).
pub fn render(
    config: &Config,
    args: &SlurmArgs,
    workdir: &Path,
    runner: &Path,
) -> Vec<(&'static str, String)> {
    let out = absolute(&workdir.join(config.output_dir()));
    let logs = out.join("logs");
    let extra = if args.sbatch_options.trim().is_empty() {
        String::new()
    } else {
        format!("#SBATCH {}", args.sbatch_options.trim())
    };
    let fill = |t: &str| {
        t.replace("{{NAME}}", &config.experiment.name)
            .replace("{{LAST}}", &(args.shards - 1).to_string())
            .replace("{{SHARDS3}}", &format!("{:03}", args.shards))
            .replace("{{SHARDS}}", &args.shards.to_string())
            .replace("{{CPUS}}", &args.cpus.to_string())
            .replace("{{MEM}}", &args.mem)
            .replace("{{TIME}}", &args.time)
            .replace("{{LOGS}}", &logs.display().to_string())
            .replace("{{EXTRA}}", &extra)
            .replace("{{WORKDIR}}", &workdir.display().to_string())
            .replace("{{RUNNER}}", &runner.display().to_string())
            .replace("{{CONFIG}}", &absolute(&args.config).display().to_string())
            .replace("{{OUT}}", &out.display().to_string())
    };
    vec![
        ("array.sbatch", fill(ARRAY)),
        ("merge.sbatch", fill(MERGE)),
        ("submit.sh", fill(SUBMIT)),
    ]
}

/// `runner slurm`: writes the three scripts; returns the exit status.
pub fn main(args: &SlurmArgs) -> i32 {
    let config = match load_config(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::USAGE;
        }
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
    let result = (|| -> anyhow::Result<()> {
        for (name, text) in render(&config, args, &workdir, &runner) {
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
            println!("submit with: bash {}/submit.sh", dir.display());
            exit::OK
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::RUNTIME
        }
    }
}
