#!/usr/bin/env bash
# Writes every deterministic output cctune derives from the repo's fixtures (tune, compare,
# report, topo) into OUTDIR, so a refactor can be checked byte for byte:
#   tools/golden_outputs.sh build/cctune /tmp/before   (on the old commit)
#   tools/golden_outputs.sh build/cctune /tmp/after    (on the new one)
#   diff -r /tmp/before /tmp/after
# The build's git revision is replaced by REV, so only behaviour differences show.
set -uo pipefail
cctune=$(realpath "$1"); out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
sha=$(git -C "$root" rev-parse --short=12 HEAD)
out=$(realpath "$out")
scrub() {
  sed -e "s/$sha/REV/g" -e 's/"\(generated_at\|created\)": *"[^"]*"/"\1": "T"/' \
      -e "s#$out#OUT#g" -e "s#$root#ROOT#g"
}
run() {  # name, command...: stdout+stderr and exit code of one command
  local name=$1; shift
  "$@" > "$out/$name.stdout" 2> "$out/$name.stderr"; echo "rc=$?" >> "$out/$name.stdout"
  for f in "$out/$name.stdout" "$out/$name.stderr"; do scrub < "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done
}
fx=$root/tests/fixtures
for r in "$fx"/tuning/*.results.json "$fx"/results/nccl_tuned.json "$fx"/results/mpi_*.json "$fx"/results/failed_group.json; do
  n=$(basename "$r" .json)
  mkdir -p "$out/tune-$n"
  run "tune-$n/cli" "$cctune" tune -v "$r" -o "$out/tune-$n" --plugin /opt/plugin.so
  for f in "$out/tune-$n"/*; do case $f in *.stdout|*.stderr) ;; *) scrub < "$f" > "$f.tmp" && mv "$f.tmp" "$f";; esac; done
done
res=$fx/results
run compare-text "$cctune" compare "$res/mpi_shm.json" "$res/mpi_tcp.json" "$res/mpi_np4.json"
run compare-csv "$cctune" compare --csv "$res/mpi_shm.json" "$res/mpi_tcp.json"
run compare-json "$cctune" compare --json "$res/mpi_shm.json" "$res/mpi_tcp.json"
run compare-groups "$cctune" compare "$res/nccl_tuned.json" "$res/failed_group.json"
for bad in bad_schema truncated disjoint; do run "compare-$bad" "$cctune" compare "$res/mpi_shm.json" "$res/$bad.json"; done
run report "$cctune" report "$res/mpi_shm.json" "$res/nccl_tuned.json" "$res/failed_group.json" -o "$out/report.html"
[ -f "$out/report.html" ] && { scrub < "$out/report.html" > "$out/r.tmp" && mv "$out/r.tmp" "$out/report.html"; }
for t in "$fx"/topology/*.json; do run "topo-$(basename "$t" .json)" "$cctune" topo --from "$t"; done
echo "wrote $(find "$out" -type f | wc -l) files to $out"
