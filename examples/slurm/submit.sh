#!/bin/bash
# The masked pipeline over RANKS ranks as four Slurm jobs chained with afterok:
#   1. prepare  (array: stages and segment counts, one task per rank)
#   2. counts   (one task: `midpack mask merge` of every rank's counts; refuses a rank missing)
#   3. pack     (array: mask, tokenize, pack with the merged counts)
#   4. merge    (one task: `midpack merge` into OUT/merged; refuses a rank missing)
#
#   examples/slurm/submit.sh CONFIG OUT RANKS
#
# OUT is the config's `out` as seen from the submitting folder (the jobs start there), on a
# filesystem every node shares. A job that fails leaves the jobs after it pending forever
# (DependencyNeverSatisfied): `scancel` them, resubmit the failed tasks with
# `sbatch --array=<ids> run-phase.sbatch ...` (they keep their ranks), then submit the rest again.
set -euo pipefail
config=$1
out=$2
ranks=$3
here=$(dirname "$(readlink -f "$0")")
last=$((ranks - 1))

prepare=$(sbatch --parsable --array=0-$last "$here/run-phase.sbatch" prepare "$config")
counts=$(sbatch --parsable --dependency=afterok:$prepare --job-name=midpack-counts --cpus-per-task=1 --mem=4G \
  --output="midpack-counts-%j.log" --wrap "midpack mask merge $out/rank-*/.run/mask-counts.bin --out $out/counts.bin")
pack=$(sbatch --parsable --dependency=afterok:$counts --array=0-$last "$here/run-phase.sbatch" pack "$config" --counts "$out/counts.bin")
merge=$(sbatch --parsable --dependency=afterok:$pack --job-name=midpack-merge --cpus-per-task=1 --mem=4G \
  --output="midpack-merge-%j.log" --wrap "midpack merge $out/rank-* --out $out/merged --verify")
echo "prepare=$prepare counts=$counts pack=$pack merge=$merge"
