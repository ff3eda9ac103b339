#!/bin/bash
# The bucket pipeline as two Kubernetes Jobs, the merge started when every rank completed:
#   examples/kubernetes/submit-bucket.sh     (kubectl's current context and namespace;
#                                             the secret midpack-s3 holds the bucket's keys)
# A Job that fails stops the chain: delete it and apply it again; the ranks resume from the bucket.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
source "$here/wait-job.sh"

for step in run merge; do
  kubectl apply -f "$here/bucket-$step-job.yaml"
  wait_job "midpack-bucket-$step"
done
