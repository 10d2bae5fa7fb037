#!/usr/bin/env bash
# The .deb installs with dpkg on this host, /usr/bin/cctune runs and finds its pieces under
# /usr, every library its programs need comes from a package it depends on (NCCL and the
# CUDA driver excepted: recommended), and `dpkg -r` removes every file it installed. The
# tarball made beside it unpacks into a tree whose cctune finds its own plugin.
# It changes the system (root, /usr): ctest runs it alone (RUN_SERIAL), and it removes the
# package again on every exit path.
#
# usage: deb_package_test.sh BUILD_DIR SOURCE_DIR
# Exit 77 (skipped) when not root, without dpkg, or when a cctune package is installed already.
set -uo pipefail
build=$(cd "${1:?usage: deb_package_test.sh BUILD_DIR SOURCE_DIR}" && pwd)
src=$(cd "${2:?source dir}" && pwd)

fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok:   $*"; }
skip() { echo "SKIP: $*"; exit 77; }

[[ $(id -u) -eq 0 ]] || skip "dpkg -i needs root"
command -v dpkg >/dev/null && command -v dpkg-deb >/dev/null || skip "dpkg not found (not a Debian-based host)"
dpkg-query -W -f '${Status}' cctune 2>/dev/null | grep -q 'installed' && skip "a cctune package is installed already; not touching it"
[[ -e /usr/bin/cctune ]] && skip "/usr/bin/cctune exists already (not from a package); not touching it"

work=$(mktemp -d /tmp/cctune-deb.XXXXXX)
installed=0
cleanup() {
  [[ $installed == 1 ]] && dpkg -r cctune >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

"$src/tools/package.sh" "$build" "$work/pkg" >"$work/package.log" 2>&1 || { cat "$work/package.log"; fail "tools/package.sh"; }
deb=$(ls "$work"/pkg/*.deb 2>/dev/null | head -1)
tgz=$(ls "$work"/pkg/*.tar.gz 2>/dev/null | head -1)
[[ -f $deb && -f $tgz ]] || fail "tools/package.sh made no .deb or .tar.gz: $(ls "$work/pkg")"
pass "packages: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB), $(basename "$tgz") ($(du -k "$tgz" | cut -f1) KiB)"
# The tarball is the same relocatable tree: unpacked anywhere, its cctune finds its own plugin.
mkdir -p "$work/unpacked" && tar -xzf "$tgz" -C "$work/unpacked" || fail "cannot unpack $tgz"
top=$(ls -d "$work"/unpacked/cctune-*)
"$top/bin/cctune" --version >"$work/tgz-version.txt" 2>&1 || { cat "$work/tgz-version.txt"; fail "the unpacked bin/cctune --version"; }
grep -qx "plugin  $top/lib/libnccl-tuner-cctune.so" "$work/tgz-version.txt" || fail "the unpacked cctune does not find its plugin"
pass "the unpacked tarball's bin/cctune --version names $top/lib/libnccl-tuner-cctune.so"
depends=$(dpkg-deb -f "$deb" Depends)
depend_names=$(tr ',|' '\n\n' <<<"$depends" | awk 'NF { print $1 }')
pass "Depends: $depends; Recommends: $(dpkg-deb -f "$deb" Recommends)"

# What the package holds (regular files and links), from the archive itself.
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort >"$work/files.txt"
[[ -s $work/files.txt ]] || fail "the .deb holds no files"
for f in /usr/bin/cctune /usr/lib/libnccl-tuner-cctune.so /usr/share/cctune/spaces/quick.json /usr/share/cctune/cctune.sbatch \
         /usr/share/cctune/schema/results.schema.json /usr/share/doc/cctune/README.md /usr/share/doc/cctune/LICENSE; do
  grep -qx "$f" "$work/files.txt" || fail "the .deb has no $f"
done
while read -r f; do [[ -e $f ]] && fail "$f exists before installing: the removal check could not tell"; done <"$work/files.txt"

dpkg -i "$deb" >"$work/dpkg-i.log" 2>&1 || { cat "$work/dpkg-i.log"; installed=1; fail "dpkg -i $deb"; }
installed=1
pass "dpkg -i: $(wc -l <"$work/files.txt") files"

/usr/bin/cctune --version >"$work/version.txt" 2>&1 || { cat "$work/version.txt"; fail "/usr/bin/cctune --version exited $?"; }
sed 's/^/        /' "$work/version.txt"
grep -qx "plugin  /usr/lib/libnccl-tuner-cctune.so" "$work/version.txt" || fail "the installed cctune does not find /usr/lib/libnccl-tuner-cctune.so"
grep -qx "spaces  /usr/share/cctune/spaces" "$work/version.txt" || fail "the installed cctune does not find /usr/share/cctune/spaces"
(cd "$work" && /usr/bin/cctune tune "$src"/tests/fixtures/tuning/two_nodes.results.json -o "$work/tune" >"$work/tune.log" 2>&1) ||
  { cat "$work/tune.log"; fail "/usr/bin/cctune tune"; }
grep -qx "NCCL_TUNER_PLUGIN=/usr/lib/libnccl-tuner-cctune.so" "$work/tune/nccl.env" || fail "nccl.env: $(grep TUNER_PLUGIN "$work/tune/nccl.env")"
pass "/usr/bin/cctune --version and tune (nccl.env names /usr/lib/libnccl-tuner-cctune.so)"

# Every NEEDED library resolves, and comes from a package named in Depends (or recommended).
for elf in /usr/bin/cctune /usr/lib/libnccl-tuner-cctune.so /usr/lib/libcctune-nccl.so; do
  [[ -f $elf ]] || continue
  ldd "$elf" >"$work/ldd.txt" 2>&1
  grep -q 'not found' "$work/ldd.txt" && fail "$elf: $(grep 'not found' "$work/ldd.txt" | tr -s ' \t' ' ')"
  while read -r lib; do
    path=$(awk -v l="$lib" '$1 == l && $2 == "=>" { print $3 }' "$work/ldd.txt")
    [[ -n $path ]] || continue
    case $lib in libnccl.so* | libcuda.so*) continue ;; esac  # recommended, not required
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
    [[ -n $pkg ]] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
    [[ -n $pkg ]] || fail "$elf needs $lib ($path), which no package provides"
    grep -qxF "$pkg" <<<"$depend_names" || fail "$elf needs $lib from package $pkg, which Depends does not name"
  done < <(objdump -p "$elf" | awk '$1 == "NEEDED" { print $2 }')
done
pass "every NEEDED library comes from a package named in Depends"

dpkg -r cctune >"$work/dpkg-r.log" 2>&1 || { cat "$work/dpkg-r.log"; fail "dpkg -r cctune"; }
installed=0
left=$(while read -r f; do [[ -e $f || -L $f ]] && echo "$f"; done <"$work/files.txt")
[[ -z $left ]] || fail "dpkg -r left files behind: $left"
for d in /usr/share/cctune /usr/share/doc/cctune; do [[ -e $d ]] && fail "dpkg -r left $d behind"; done
pass "dpkg -r removed all $(wc -l <"$work/files.txt") files"
echo "deb_package_test: all checks passed"
