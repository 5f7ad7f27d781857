#!/bin/bash
# Darkroom develop with GNU parallel on one big workstation (or over ssh with --sshlogin): N
# shards, JOBS of them at a time, one report each, then one merged report.
#
#   develop-parallel.sh INPUT OUTDIR [N [JOBS]] [-- more `darkroom develop` options]
#
# --shard auto/N takes K from PARALLEL_SEQ (the 1-based sequence number parallel gives each job;
# not the job slot, which is reused). DARKROOM names the darkroom executable.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: develop-parallel.sh INPUT OUTDIR [N [JOBS]] [-- options]" >&2; exit 2; }
input=$1 outdir=$2
shift 2
shards=4 jobs=2
if [ $# -gt 0 ] && [ "$1" != "--" ]; then shards=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then jobs=$1; shift; fi
[ "${1:-}" = "--" ] && shift
reports=${DARKROOM_REPORTS:-$outdir.reports}
mkdir -p "$outdir" "$reports"
status=0
seq "$shards" | parallel -q --jobs "$jobs" --halt never \
    "${DARKROOM:-darkroom}" develop "$input" -r -o "$outdir" --shard "auto/$shards" --threads 1 \
    --report "$reports/develop-{}.json" --quiet "$@" || status=$?
# parallel's exit status counts the shards that failed; the merged report says which inputs.
"${DARKROOM:-darkroom}" report merge "$reports" -o "$outdir.report.json" || status=$?
exit "$status"
