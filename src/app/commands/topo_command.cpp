// `cctune topo`: the topology of this node, or of every node under mpirun/srun: a matrix
// like `nvidia-smi topo -m` with NICs and NUMA/CPU affinity, per-node facts with link
// limits, the cluster summary; or JSON (schema cctune.topology/1, docs/TOPOLOGY.md).
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/cli/command.hpp"
#include "app/commands/commands_list.hpp"
#include "app/cli/session.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "topology/cluster.hpp"
#include "topology/fixtures.hpp"
#include "topology/node_probe.hpp"
#include "topology/render.hpp"
#include "topology/topology_json.hpp"

namespace cctune::app {
namespace {

// True when a launcher started this process as one rank of several (or of one, on purpose).
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

class TopoCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    add_to(parent, "topo", "show the GPU / NIC / NUMA topology of this node, or of every node under mpirun");
    cmd_->add_flag("--json", json_, "print the topology as JSON (schema cctune.topology/1) instead of tables");
    cmd_->add_option("-o,--output", output_, "write the JSON to this file (tables still go to standard output unless --json)");
    auto* from = cmd_->add_option("--from", from_, "render a saved topology JSON (from `cctune topo --json`) instead of probing");
    auto* smi = cmd_->add_option("--from-nvidia-smi", nvidia_smi_, "build the node from `nvidia-smi -q` output (with --nccl-topo)");
    auto* nccl = cmd_->add_option("--nccl-topo", nccl_topo_, "NCCL topology dump (NCCL_TOPO_DUMP_FILE) of the same host");
    auto* hwloc = cmd_->add_option("--from-hwloc", hwloc_xml_, "build the node from an hwloc XML (`lstopo --of xml`, with --facts)");
    auto* facts = cmd_->add_option("--facts", facts_, "device facts JSON for --from-hwloc (node format of docs/TOPOLOGY.md)");
    smi->needs(nccl);
    nccl->needs(smi);
    hwloc->needs(facts);
    facts->needs(hwloc);
    from->excludes(smi)->excludes(hwloc);
    smi->excludes(hwloc);
  }

  int run(Session& session) override {
    std::optional<topo::Topology> topology = load_or_probe(session);
    if (!topology) return exit_code::ok;  // a rank other than 0 under mpirun
    const nlohmann::json doc = topo::to_json(*topology);
    const std::string json_text = text::dump_json(doc, 2) + "\n";  // probed names may hold any bytes
    if (!output_.empty()) write_file_atomically(output_, json_text);
    if (json_ && output_.empty()) {
      std::cout << json_text << std::flush;
    } else if (!json_) {
      std::ostringstream out;
      // Every string shown escaped (a file from --from, or names a node reported).
      topo::render_topology(topo::topology_from_json(text::map_strings(doc, text::terminal_text)), out);
      std::cout << out.str() << std::flush;
    }
    return exit_code::ok;
  }

 private:
  std::optional<topo::Topology> load_or_probe(Session& session) {
    if (!from_.empty()) return topo::load_topology_file(from_);
    if (!nvidia_smi_.empty())
      return topo::merge_nodes({topo::node_from_nvidia_smi_and_nccl(nvidia_smi_, nccl_topo_, "from-nvidia-smi")});
    if (!hwloc_xml_.empty()) return topo::merge_nodes({topo::load_node_fixture(hwloc_xml_, facts_)});
    // Under a launcher every rank takes part (one probe per host); alone, no MPI at all.
    if (launched_by_mpi()) {
      return topo::gather_cluster_topology(session.comm(), session.layout().hosts, topo::probe_local_node);
    }
    return topo::merge_nodes({topo::probe_local_node()});
  }

  bool json_ = false;
  std::string output_, from_, nvidia_smi_, nccl_topo_, hwloc_xml_, facts_;
};

}  // namespace

std::unique_ptr<Command> make_topo_command() { return std::make_unique<TopoCommand>(); }

}  // namespace cctune::app
