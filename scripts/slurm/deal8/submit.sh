#!/bin/bash
# Submits the array job, then the merge job to run after every task succeeded.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "/work/main/results/deal8/logs"
array=$(sbatch --parsable "$here/array.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" "$here/merge.sbatch")
echo "array job $array (100000 tasks), merge job ${merge%%;*}; results in /work/main/results/deal8"
