#!/bin/bash
# servecmp under Slurm: submit the per-rank analysis as an array and the
# merge after it (docs/cluster.md):
#   EXPORTS=/shared/run1/exports OUT=/shared/run1/summaries ./submit.sh RANKS
# RANKS is the number of rank exports (rank-0.sqlite ... rank-(RANKS-1)).
set -euo pipefail

ranks=${1:?usage: submit.sh RANKS (the number of rank exports)}
case $ranks in
'' | *[!0-9]*) echo "submit.sh: RANKS must be a whole number, got $ranks" >&2; exit 2 ;;
esac
if [ "$ranks" -lt 1 ]; then
	echo "submit.sh: RANKS must be at least 1" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
export EXPORTS=${EXPORTS:-$PWD/exports} OUT=${OUT:-$PWD/summaries}
array=$(sbatch --parsable --export=ALL --array=0-$((ranks - 1)) "$here/analyze-ranks.sbatch")
array=${array%%;*} # --parsable gives "id" or "id;cluster"
merge=$(sbatch --parsable --export=ALL --dependency=afterok:"$array" "$here/merge.sbatch")
echo "servecmp: analysis array job $array ($ranks ranks), merge job ${merge%%;*} after it; summaries in $OUT"
