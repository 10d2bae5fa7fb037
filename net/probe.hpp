#pragma once
// The network probe's one entry point: `cctune probe` and `cctune sweep --probe` call
// it on every rank; it returns the `net` section of results.json on every rank
// (identical everywhere), documented in docs/NETWORK.md.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "comm/rank_comm.hpp"
#include "net/probe_options.hpp"
#include "net/probe_result.hpp"

namespace cctune::net {

// Called on rank 0 with one-line progress notes ("no RDMA device ...; measuring TCP").
using NoteFn = std::function<void(const std::string&)>;

// Chooses the transport (auto: ibverbs when every rank has an active RDMA port, else
// TCP), measures every rank pair in rounds of disjoint pairs (circle schedule), and
// summarises. Every rank must call it with the same options. Errors the user can fix
// (--probe ib without RDMA, unknown --socket-ifname, one rank) throw UsageError or
// EnvironmentError on every rank alike; a pair that fails mid-measurement is recorded
// in its entry and the other pairs go on. `hosts`: every rank's host, indexed by rank (the
// caller's JobLayout::hosts, gathered once per job).
nlohmann::json run_network_probe(RankComm& comm, const ProbeOptions& options, const NoteFn& note, const std::vector<std::string>& hosts);

// A short human table of a `net` section: one line per pair, then the summary. The JSON
// form reads the section with parse_probe_result (UsageError naming a bad field).
std::string format_network_probe(const ProbeResult& net);
std::string format_network_probe(const nlohmann::json& net);

}  // namespace cctune::net
