# Sourced by the GPU checks that run one cctune sweep on every GPU of the host (overlap_gpu_check.sh,
# register_gpu_check.sh): the shared start. Needs NAME (the check's name, e.g. overlap) set and the
# script's arguments BUNDLE_DIR OUTPUT_DIR. Sets bundle, out, ngpu, cctune, dir (OUTPUT_DIR/NAME,
# emptied) and workers (--test-shared-gpu 2 on a one-GPU host: functional only); exits 0 with
# "SKIP: reason" without a GPU, 1 when the bundle or python3 is missing. NVLink multicast stays off.
bundle=${1:?usage: ${NAME}_gpu_check.sh BUNDLE_DIR OUTPUT_DIR}
out=${2:?usage: ${NAME}_gpu_check.sh BUNDLE_DIR OUTPUT_DIR}
export NCCL_NVLS_ENABLE=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v nvidia-smi >/dev/null 2>&1 || { echo "SKIP: nvidia-smi not found"; exit 0; }
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
((ngpu >= 1)) || { echo "SKIP: nvidia-smi finds no GPU"; exit 0; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read results.json"; exit 1; }
cctune=$bundle/cctune
[[ -x $cctune ]] || { echo "FAIL: $cctune not found (build the cctune target)"; exit 1; }
mkdir -p "$out"
dir=$out/$NAME
rm -rf "$dir"
workers=()
((ngpu >= 2)) || workers=(--test-shared-gpu 2)
echo "== ${NAME}_gpu_check: $ngpu GPU(s), output in $dir"
