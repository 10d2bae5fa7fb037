#!/usr/bin/env bash
# Prepares a folder holding ip and tc for a machine that has neither (the lent GPU machines have
# unshare and nsenter, but no iproute2): Debian's iproute2 and the libraries it links, unpacked
# with dpkg -x, for tools/onebox-cluster.sh there with ONEBOX_IPROUTE=DIR.
#
#   tools/onebox-carry.sh DIR              # apt-get download + dpkg -x (needs the apt mirror)
#   tools/onebox-carry.sh --from-system DIR   # copies this machine's ip, tc and their libraries
#
# Only the libraries are carried, never glibc: the binaries need GLIBC_2.34 or later there
# (Debian 12, Ubuntu 22.04 and later have it), which the script checks here and prints.
# DIR ends up with bin/ip and sbin/tc (Debian 12's places; usr/sbin with --from-system), lib folders, and ONEBOX_IPROUTE.txt saying
# what it holds. About 4 MB.
set -euo pipefail
die() { echo "onebox-carry: error: $*" >&2; exit 1; }
say() { echo "onebox-carry: $*"; }

mode=apt
[[ ${1:-} == --from-system ]] && { mode=system; shift; }
dir=${1:-}
[[ -n $dir && $# -eq 1 ]] || { echo "usage: $0 [--from-system] DIR" >&2; exit 2; }
[[ ! -e $dir || -d $dir ]] || die "$dir exists and is not a folder. Fix: name a new folder"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[[ -z $(ls -A "$dir") ]] || die "$dir is not empty. Fix: name a new or empty folder (rm -rf it first)"

# The libraries ip and tc link besides glibc (ldd of Debian 12's iproute2 6.1).
packages=(iproute2 libbpf1 libelf1 libmnl0 libbsd0 libcap2 libxtables12 zlib1g libmd0)
glibc_libs='^(libc|libm|libdl|libpthread|librt|ld-linux-x86-64)\.so'

if [[ $mode == apt ]]; then
  command -v apt-get >/dev/null && command -v dpkg >/dev/null || die "apt-get and dpkg are needed. Fix: run this on Debian/Ubuntu, or use --from-system"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get download "${packages[@]}" >/dev/null 2>"$work/apt.err") \
    || die "apt-get download failed: $(tail -1 "$work/apt.err"). Fix: apt-get update, or use --from-system"
  for deb in "$work"/*.deb; do dpkg -x "$deb" "$dir"; done
  rm -rf "$dir/usr/share/doc" "$dir/usr/share/man" "$dir/usr/share/bash-completion" "$dir/etc/init.d"
else
  for bin in ip tc; do
    src=$(command -v "$bin") || die "$bin is not installed here. Fix: apt-get install iproute2"
    install -D -m 0755 "$(readlink -f "$src")" "$dir/usr/sbin/$bin"
    ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r soname path; do
      [[ $soname =~ $glibc_libs ]] && continue
      install -D -m 0644 "$(readlink -f "$path")" "$dir/usr/lib/x86_64-linux-gnu/$soname"
    done
  done
fi

# Check it: ip and tc must run from DIR with only DIR's libraries added, and resolve every
# library there or in glibc.
ip_bin=$(find "$dir" -path '*bin/ip' -type f | head -1)
tc_bin=$(find "$dir" -path '*bin/tc' -type f | head -1)
[[ -n $ip_bin && -n $tc_bin ]] || die "no ip or tc in $dir after unpacking. Fix: check the package list in $0"
libs=$(find "$dir" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)
for b in "$ip_bin" "$tc_bin"; do
  missing=$(LD_LIBRARY_PATH=$libs ldd "$b" | grep 'not found' || true)
  [[ -z $missing ]] || die "$b: $missing. Fix: add its package to the list in $0"
  LD_LIBRARY_PATH=$libs "$b" -V >/dev/null || die "$b -V fails with LD_LIBRARY_PATH=$libs"
  outside=$(LD_LIBRARY_PATH=$libs ldd "$b" | awk '$3 ~ /^\// { print $1, $3 }' | grep -vE "$glibc_libs" | grep -v " $dir/" || true)
  [[ -z $outside ]] || die "$b still takes libraries from this machine: $outside. Fix: add their packages to the list in $0"
done
mapfile -t carried_libs < <(find "$dir" -name '*.so*' -type f)
need=$(objdump -T "$ip_bin" "$tc_bin" "${carried_libs[@]}" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
{
  echo "iproute2 for tools/onebox-cluster.sh: ONEBOX_IPROUTE=$dir (or wherever this folder is carried)"
  echo "made by: $0 ($mode) on $(hostname) $(date -u +%FT%TZ)"
  echo "ip: ${ip_bin#"$dir"/} ($(LD_LIBRARY_PATH=$libs "$ip_bin" -V))"
  echo "tc: ${tc_bin#"$dir"/}"
  echo "needs glibc: $need or later"
} > "$dir/ONEBOX_IPROUTE.txt"
say "ready: $dir ($(du -sh "$dir" | cut -f1), needs $need). There: ONEBOX_IPROUTE=<carried path> tools/onebox-cluster.sh up ..."
