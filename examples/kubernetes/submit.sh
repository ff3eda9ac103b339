#!/bin/bash
# The masked pipeline as four Kubernetes Jobs, each started when the one before completed:
#   examples/kubernetes/submit.sh            (kubectl's current context and namespace)
# A Job that fails stops the chain. Its completed ranks are done; delete the Job and apply it
# again: the finished ranks reuse their work, the others resume theirs, under the same indexes.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")

source "$here/wait-job.sh"

for step in prepare counts pack merge; do
  kubectl apply -f "$here/$step-job.yaml"
  wait_job "midpack-$step"
done
