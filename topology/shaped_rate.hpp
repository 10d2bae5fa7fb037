#pragma once
// The rate a traffic shaper sets on a network interface's egress: a tc `tbf` qdisc (anywhere in
// the interface's tree, e.g. under netem). A shaped link carries no more than that whatever the
// driver's nominal speed says (a veth always reports 10 Gb/s in sysfs), so it is the interface's
// effective limit. Read over rtnetlink (RTM_GETQDISC), as `tc qdisc show` does; no tc needed.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "topology/paths.hpp"

namespace cctune::topo {

// Interface name -> the lowest tbf rate on it, Gb/s (1e9 bit/s). Interfaces without a tbf are
// absent. Empty when rtnetlink cannot be asked (it is never an error: the rate is a refinement).
std::map<std::string, double> shaped_rates_Gbps();

// The parsing half, on the bytes of an RTM_GETQDISC dump (netlink messages back to back):
// interface index -> lowest tbf rate in Gb/s. Messages of other kinds and qdiscs are skipped;
// truncated ones end the parse. Stops at NLMSG_DONE.
std::map<int, double> tbf_rates_from_dump(const std::vector<std::uint8_t>& dump);

// effective_Gbps (what a shaped link carries) lives in topology/paths.hpp, with the other limits.

}  // namespace cctune::topo
