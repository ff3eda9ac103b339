# Sourced by submit.sh and submit-bucket.sh.
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
