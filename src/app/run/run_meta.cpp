#include "app/run/run_meta.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iterator>

#include "app/cli/build_info.hpp"
#include "comm/mpi_rank_comm.hpp"
#include "core/nccl_settings.hpp"
#include "core/text.hpp"

extern char** environ;

namespace cctune::app {

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::map<std::string, std::string> relevant_env() {
  static const char* const prefixes[] = {"CCTUNE_",      "CUDA_VISIBLE_DEVICES", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
                                         "SLURM_JOB_ID", "SLURM_NNODES",         "SLURM_NTASKS",         "SLURM_JOB_NODELIST",
                                         "UCX_TLS"};
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = kv.substr(0, eq);
    const bool wanted = is_nccl_setting_name(key) ||
                        std::any_of(std::begin(prefixes), std::end(prefixes), [&](const char* p) { return key.rfind(p, 0) == 0; });
    // Recorded, not used: bytes that are not UTF-8 are replaced so results.json stays valid
    // JSON (workers still get the variables exactly as they are).
    if (wanted) out[text::sanitize_utf8(key)] = text::sanitize_utf8(kv.substr(eq + 1));
  }
  return out;
}

Meta collect_meta(Session& session) {
  Meta m;
  for (const auto& arg : session.argv()) m.argv.push_back(text::sanitize_utf8(arg));  // as recorded in meta.env
  m.cctune_version = CCTUNE_VERSION;
  m.git_sha = build_git_sha();
  m.versions["cctune"] = CCTUNE_VERSION;
  m.versions["mpi"] = MpiRuntime::library_version();
  for (const auto& h : session.layout().sorted_nodes()) m.hostnames.push_back(text::sanitize_utf8(h));
  m.start_time = utc_now_iso8601();
  m.env = relevant_env();
  return m;
}

}  // namespace cctune::app
