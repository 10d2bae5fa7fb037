#!/usr/bin/env bash
# A cluster built with a carried iproute2 (ONEBOX_IPROUTE), as on the lent GPU machines that
# have no ip or tc: the folder is prepared here by tools/onebox-carry.sh --from-system (no
# network needed), and ip/tc on PATH are made to fail, so only the carried ones can work.
# Without ONEBOX_IPROUTE the same PATH is refused in one line.
# Usage: carried_iproute_test.sh WORKDIR. Exit 77 (skip) without root, namespaces or ip/tc here.
set -uo pipefail
work=$1
test_name=cluster.carried_iproute test_tag=car
source "$(dirname "$0")/lib.sh"
require_cluster_tools
command -v ldd >/dev/null || skip "no ldd"
rm -rf "$work" && mkdir -p "$work/fake"
"$repo/tools/onebox-carry.sh" --from-system "$work/iproute" || fail "onebox-carry.sh --from-system exited $?"
for t in ip tc; do printf '#!/bin/sh\necho "the machine'"'"'s %s must not be used" >&2\nexit 97\n' "$t" > "$work/fake/$t"; done
chmod +x "$work/fake"/*
export PATH=$work/fake:$PATH

out=$(cluster up --hosts 2 2>&1); rc=$?
[[ $rc -ne 0 && $(wc -l <<<"$out") -eq 1 && $out == *"Fix: "* ]] || fail "up without a working ip did not refuse in one line (exit $rc): $out"
note "refused without ONEBOX_IPROUTE: $out"

export ONEBOX_IPROUTE=$work/iproute
cluster_up --hosts 2 --link 500mbit --slow node1:eth0=50mbit
state1=$("${on[@]}" node1 -- cat /sys/class/net/eth0/operstate) || fail "run node1 exited $?"
[[ $state1 == up ]] || fail "node1's eth0 is '$state1'"
# Later commands take the folder up recorded: no variable needed any more.
ONEBOX_IPROUTE= cluster shape node1:eth0 100mbit || fail "shape with the carried tc exited $?"
grep -qP '^node1\teth0\t10\.100\.0\.2\t100mbit' "$state/links.tsv" || fail "links.tsv does not record the new rate: $(cat "$state/links.tsv")"
ONEBOX_IPROUTE= cluster link node1:eth0 down || fail "link down exited $?"
[[ $("${on[@]}" node1 -- cat /sys/class/net/eth0/operstate) == down ]] || fail "node1's eth0 did not go down"
cluster link node1:eth0 up || fail "link up exited $?"
cluster_down_clean
note "OK: up, shape, link down/up and down with the carried iproute2 only"
