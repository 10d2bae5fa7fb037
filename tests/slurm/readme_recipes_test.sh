#!/usr/bin/env bash
# Runs the README's "Running on clusters" recipes exactly as written (the first sh block of
# that section), with `cctune` on PATH, RANKS_PER_NODE=2, a hostfile naming this host and
# the localhost Slurm; checks each one's results.json (schema, formulas, rank count).
# Root needs Open MPI's documented OMPI_ALLOW_RUN_AS_ROOT*; a 2-core box needs
# oversubscription for `mpirun -np 4`: both are set through the environment, not the lines.
#
# usage: readme_recipes_test.sh CCTUNE WORKDIR SCHEMA
set -euo pipefail
cctune=$1 work=$2 schema=$3
test_name=readme_recipes
source "$(dirname "$0")/lib.sh"
require_slurm

rm -rf "$work" && mkdir -p "$work/bin" && cd "$work"
ln -s "$cctune" bin/cctune
ln -s "$repo/tools" tools
printf '%s slots=4\n' "$(hostname)" > hosts
export PATH=$work/bin:$PATH RANKS_PER_NODE=2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

mapfile -t recipes < <(python3 - "$repo/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = text.split("### Running on clusters", 1)[1].split("\n## ", 1)[0]
block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
for line in block.splitlines():
    if line.strip() and not line.lstrip().startswith("#"):
        print(line)
PY
)
[[ ${#recipes[@]} -ge 5 ]] || fail "found ${#recipes[@]} recipes in README.md"

for line in "${recipes[@]}"; do
  note "running: $line"
  before=$(find . -maxdepth 1 -type d -name "cctune-cctune-*" | sort)
  bash -c "$line" > recipe.log 2>&1 || { cat recipe.log; fail "recipe exited $?: $line"; }
  if [[ $line =~ -o\ ([^ ]+) ]]; then
    out=${BASH_REMATCH[1]}
  else
    out=$(comm -13 <(echo "$before") <(find . -maxdepth 1 -type d -name "cctune-cctune-*" | sort) | tail -1)
    [[ -n $out ]] || fail "no job directory after: $line"
    grep -q "launcher: srun --mpi=pmix" cctune-cctune-*.log || fail "sbatch recipe did not launch with srun --mpi=pmix"
  fi
  case $line in
    mpirun\ -np\ 4*) n=4 ;;
    *RANKS_PER_NODE*) n=$RANKS_PER_NODE ;;
    *) n=1 ;;
  esac
  python3 "$here_lib/../mpi/sweep/check_results.py" "$out/results.json" "$schema" --nranks "$n" --status complete \
    --collectives allreduce,allgather,reducescatter --min-points 30 || fail "results of '$line' did not check"
  note "ok: $n rank(s), $out/results.json"
done
note "OK: ${#recipes[@]} recipes"
