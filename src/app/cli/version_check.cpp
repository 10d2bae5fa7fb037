#include "app/cli/version_check.hpp"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "app/cli/build_info.hpp"
#include "comm/mpi_rank_comm.hpp"
#include "core/error.hpp"
#include "comm/rank_comm_typed.hpp"
#include "core/text.hpp"

namespace cctune::app {

Versions local_versions() {
  return {{"cctune", std::string(CCTUNE_VERSION) + " (" + build_git_sha() + ")"}, {"mpi", MpiRuntime::library_version()}};
}

namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : 0;
}

// "0,2-3": ranks as ranges.
std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string host_list(const std::vector<int>& ranks, const std::vector<std::string>& hosts) {
  std::set<std::string> names;
  for (int r : ranks)
    if (r < static_cast<int>(hosts.size())) names.insert(hosts[r]);
  std::string out;
  int shown = 0;
  for (const auto& h : names) {
    if (shown++ == 4) return out + ", ... " + std::to_string(names.size()) + " hosts";
    out += (out.empty() ? "" : ", ") + h;
  }
  return out;
}

}  // namespace

int launcher_task_count() {
  // mpirun's own count first: under mpirun inside an allocation, the Slurm step variables
  // describe the daemons mpirun started with srun, not the ranks.
  if (int n = env_int("OMPI_COMM_WORLD_SIZE")) return n;
  if (std::getenv("SLURM_STEP_ID"))
    if (int n = env_int("SLURM_STEP_NUM_TASKS")) return n;
  if (int n = env_int("PMI_SIZE")) return n;
  return 0;
}

void check_launch(RankComm& comm, const std::string& host) {
  const int expected = launcher_task_count();
  if (expected <= 1 || comm.size() == expected) return;
  const bool srun = std::getenv("SLURM_STEP_ID") && !std::getenv("OMPI_COMM_WORLD_SIZE");
  const std::string fix =
      srun ? "srun must wire MPI: use 'srun --mpi=pmix' (see 'srun --mpi=list'; pmi2 where PMIx is missing), or run "
             "'mpirun cctune ...' inside the allocation (docs/LAUNCHING.md)"
           : "launch cctune with the mpirun of the MPI it was built with (" + MpiRuntime::library_version() +
                 "), and check that every node has the same MPI installed (docs/LAUNCHING.md)";
  throw EnvironmentError("the launcher started " + std::to_string(expected) + " tasks but MPI sees " +
                             std::to_string(comm.size()) + " rank(s) on " + host +
                             ": the tasks are not one MPI job, each would sweep alone",
                         fix);
}

std::string describe_version_mismatch(const std::vector<Versions>& per_rank, const std::vector<std::string>& hosts) {
  std::set<std::string> keys;
  for (const auto& v : per_rank)
    for (const auto& [k, _] : v) keys.insert(k);
  std::string out;
  for (const auto& key : keys) {
    // Each distinct value (or absence) with the ranks that have it, in rank order of first sight.
    std::vector<std::pair<std::string, std::vector<int>>> groups;
    for (int r = 0; r < static_cast<int>(per_rank.size()); ++r) {
      const auto it = per_rank[r].find(key);
      const std::string value = it == per_rank[r].end() ? "" : "'" + it->second + "'";
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == value; });
      if (g == groups.end()) groups.push_back({value, {r}});
      else g->second.push_back(r);
    }
    if (groups.size() < 2) continue;
    out += out.empty() ? "library versions differ across ranks: " : "; ";
    out += key + " is ";
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const auto& [value, ranks] = groups[i];
      out += i == 0 ? "" : (i + 1 == groups.size() ? " and " : ", ");
      out += (value.empty() ? std::string("missing") : value) + " on rank" + (ranks.size() > 1 ? "s " : " ") +
             rank_list(ranks) + " (" + host_list(ranks, hosts) + ")";
    }
  }
  return out;
}

void check_versions_match(RankComm& comm, const std::vector<std::string>& hosts, Versions mine, const AdjustVersions& adjust) {
  if (adjust) adjust(comm.rank(), mine);
  std::vector<Versions> per_rank;
  for (const nlohmann::json& x : allgather_json(comm, mine)) per_rank.push_back(x.get<Versions>());
  const std::string msg = describe_version_mismatch(per_rank, hosts);
  if (!msg.empty())
    throw EnvironmentError(msg + "; nothing was measured",
                           "install the same cctune build and libraries on every node (one shared install or "
                           "container image), or exclude the odd nodes from the allocation");
}

void check_job_consistency(Session& session, const Versions& more) {
  RankComm& comm = session.comm();
  check_launch(comm, session.hostname());
  Versions mine = local_versions();
  mine.insert(more.begin(), more.end());
  check_versions_match(comm, session.layout().hosts, mine, session.seams().adjust_versions);
}

}  // namespace cctune::app
