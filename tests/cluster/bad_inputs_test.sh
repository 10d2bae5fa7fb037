#!/usr/bin/env bash
# tools/onebox-cluster.sh refuses bad input in one line (naming the input and the fix) with a
# non-zero exit, and creates nothing for it: --hosts 0, bad rates, latencies and losses,
# unknown hosts and NICs, up twice, down and run with nothing up; and an up stopped by a
# signal half-way leaves nothing behind.
# Usage: bad_inputs_test.sh. Exit 77 (skip) without root or namespaces.
set -uo pipefail
test_name=cluster.bad_inputs test_tag=bad
source "$(dirname "$0")/lib.sh"
require_cluster_tools

# refused EXPECT_RC CMD...: exit EXPECT_RC, stdout empty, exactly one line on stderr naming a fix.
refused() {
  local want=$1 rc out err; shift
  out=$("$@" 2>"$state.err"); rc=$?
  err=$(cat "$state.err"); rm -f "$state.err"
  [[ $rc -eq $want ]] || fail "'$*' exited $rc, expected $want (stderr: $err)"
  [[ -z $out ]] || fail "'$*' printed on stdout: $out"
  [[ $(wc -l <<<"$err") -eq 1 && $err == "onebox: error: "*"Fix: "* ]] || fail "'$*' did not say one line with a fix: $err"
  note "refused (exit $rc): $err"
}

# Before any cluster exists: inputs are checked before anything is made.
refused 2 cluster up --hosts 0
refused 2 cluster up --hosts 65
refused 2 cluster up --hosts two
refused 2 cluster up --nics 0
refused 2 cluster up --link 25gb                   # gigabytes in tc: refused, not shaped 8x off
refused 2 cluster up --link fast
refused 2 cluster up --link 25gbit,5xs
refused 2 cluster up --link 25gbit,50us,100%
refused 2 cluster up --link 1kbit
refused 2 cluster up --hosts 2 --slow node2:eth0=1gbit  # node2 is not in a 2-host cluster
refused 2 cluster up --hosts 2 --slow node1:eth1=1gbit  # one NIC: no eth1
refused 2 cluster up --hosts 2 --slow node1=1gbit
ONEBOX_TEST_MACHINE_GPUS=1 refused 1 cluster up --hosts 2 --gpus-per-host 1   # 2 GPUs wanted, 1 there
ONEBOX_TEST_MACHINE_GPUS=0 refused 1 cluster up --hosts 2 --share-gpus        # nothing to share
refused 2 cluster up --frobnicate
refused 2 "$onebox" --name 'bad/name' up
refused 2 cluster
refused 2 cluster teleport
refused 1 cluster down
refused 1 cluster run node0 -- true
refused 1 cluster status
[[ ! -e $state ]] || fail "a refused command left $state"

cluster_up --hosts 2 --link 1gbit >/dev/null
refused 1 cluster up --hosts 2                          # up twice
cluster status >/dev/null || fail "the first cluster broke when a second up was refused"
refused 2 cluster run node7 -- true
refused 2 cluster run node0
refused 2 cluster shape node1:eth3 1gbit
refused 2 cluster shape node9:eth0 1gbit
refused 2 cluster shape node1:eth0 25gb
refused 2 cluster link node1:eth0 sideways
refused 2 "$state/bin/onebox-rsh" node7 true            # the agent, as mpirun would call it
refused 2 "$state/bin/onebox-rsh" node1
cluster_down_clean
refused 1 cluster down                                  # nothing up any more

# An up stopped by SIGINT half-way (Ctrl-C) removes what it made: wait until two hosts exist,
# then interrupt. Python starts it with SIGINT at its default, as a terminal would (a background
# job of this script would have it ignored, and then bash could not trap it).
python3 - "$onebox" "$cname" "$state" <<'PY' || fail "the interrupted up did not end as expected"
import os, signal, subprocess, sys, time
onebox, name, state = sys.argv[1:]
p = subprocess.Popen([onebox, "--name", name, "up", "--hosts", "6", "--nics", "2"],
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), stdout=subprocess.DEVNULL)
deadline = time.time() + 60
while not os.path.exists(os.path.join(state, "ns", "node1.ready")):
    if p.poll() is not None or time.time() > deadline:
        sys.exit(f"up ended ({p.poll()}) before node1 was made")
    time.sleep(0.02)
nets = set()
for f in os.listdir(os.path.join(state, "ns")):
    if f.endswith(".ids"):
        nets.add(open(os.path.join(state, "ns", f)).read().split(":")[0])
open(state + ".nets", "w").write("\n".join(sorted(nets)))
p.send_signal(signal.SIGINT)
rc = p.wait(timeout=60)
print(f"interrupted up exited {rc} with {len(nets)} namespaces made")
sys.exit(0 if rc == 130 else f"exit {rc}, expected 130")
PY
nets=$(cat "$state.nets"); rm -f "$state.nets"
leaves_nothing "$nets"
note "an interrupted up left nothing ($(wc -w <<<"$nets") namespaces gone)"
note "OK"
