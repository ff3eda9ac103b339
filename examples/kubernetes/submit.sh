#!/bin/bash
# The masked pipeline as four Kubernetes Jobs, each started when the one before completed:
#   examples/kubernetes/submit.sh            (kubectl's current context and namespace)
# A Job that fails stops the chain. Its completed ranks are done; delete the Job and apply it
# again: the finished ranks reuse their work, the others resume theirs, under the same indexes.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")

# Waits for a Job's Complete condition; returns 1 on its Failed condition.
wait_job() {
  local state
  while :; do
    state=$(kubectl get job "$1" -o jsonpath='{.status.conditions[?(@.status=="True")].type}')
    case "$state" in
      *Complete*) return 0 ;;
      *Failed*) echo "job $1 failed: kubectl describe job $1; kubectl logs -l job-name=$1" >&2; return 1 ;;
    esac
    sleep 10
  done
}

for step in prepare counts pack merge; do
  kubectl apply -f "$here/$step-job.yaml"
  wait_job "midpack-$step"
done
