#!/bin/bash
# A schedkit sweep as a Slurm array job: submit with
#   sbatch --array=0-15 bench/scenario/examples/slurm-array.sh
# Each task runs one shard; merge when the array is done:
#   sweep -scenario seed001-kargl -reps 30 -merge shard-*.jsonl
#SBATCH --job-name=schedkit-sweep
#SBATCH --cpus-per-task=2
#SBATCH --output=sweep-%A_%a.log
set -euo pipefail
n=${SLURM_ARRAY_TASK_COUNT:?run as an array job}
k=${SLURM_ARRAY_TASK_ID:?run as an array job}
./sweep -scenario seed001-kargl -reps 30 -shard "$k/$n" > "shard-$k.jsonl.tmp"
mv "shard-$k.jsonl.tmp" "shard-$k.jsonl"
