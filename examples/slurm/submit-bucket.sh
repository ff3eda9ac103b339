#!/bin/bash
# An unmasked pipeline whose inputs and output live in an S3-compatible bucket, as two Slurm jobs
# chained with afterok (no shared filesystem needed):
#   1. run    (array: one task per rank; each writes OUT/rank-RRRRR in the bucket)
#   2. merge  (one task: `midpack merge` server-side into MERGED; refuses a rank missing)
#
#   examples/slurm/submit-bucket.sh CONFIG s3://BUCKET/run s3://BUCKET/merged RANKS [WORK_DIR]
#
# CONFIG's `out` is the same s3://BUCKET/run and its inputs may be s3:// prefixes too. The endpoint
# and credentials come from the AWS environment of the submitting shell (AWS_ENDPOINT_URL,
# AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), which sbatch passes to the tasks.
# What a rank needs locally: WORK_DIR (default /tmp/midpack-work) on each node, with room for its
# work store (its share's tokenized chunks, the plan) and its finished output until the upload
# ends. A resubmitted task (`sbatch --array=3 run-phase.sbatch all CONFIG --world-size RANKS`)
# resumes from that folder on the same node, else from what the bucket holds. The rank and world
# size come from the array and the flags (an s3:// OUT keeps no .midpack-ranks.json).
set -euo pipefail
config=$1
out=$2
merged=$3
ranks=$4
work=${5:-/tmp/midpack-work}
here=$(dirname "$(readlink -f "$0")")
last=$((ranks - 1))

run=$(sbatch --parsable --array=0-$last --export=ALL,MIDPACK_WORK_DIR="$work" \
  "$here/run-phase.sbatch" all "$config" --world-size "$ranks")
merge=$(sbatch --parsable --dependency=afterok:$run --job-name=midpack-merge --cpus-per-task=1 --mem=4G \
  --export=ALL,MIDPACK_WORK_DIR="$work" --output="midpack-merge-%j.log" --wrap "midpack merge $out --out $merged")
echo "run=$run merge=$merge"
