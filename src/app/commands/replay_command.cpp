// `cctune replay W [--profile P]`: one captured training step's collectives, in capture order,
// on this allocation (docs/WORKLOAD.md "Replay"). This build plans the step and prints it
// (--dry-run); issuing it back to back through the NCCL workers is not implemented yet.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "app/command.hpp"
#include "app/commands/commands_list.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/json_depth.hpp"
#include "core/text.hpp"
#include "workload/replay_plan.hpp"
#include "workload/workload_json.hpp"

namespace cctune::app {
namespace {

namespace wl = cctune::workload;

constexpr std::size_t kMaxWorkloadBytes = std::size_t{256} << 20;

wl::Workload load_workload(const std::string& path) {
  const std::string text = read_file(path, kMaxWorkloadBytes);
  if (json_nests_deeper_than(text)) throw UsageError(path + " nests deeper than " + std::to_string(max_json_depth) + " levels", "pass a workload.json");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw UsageError(path + " is not valid JSON", "pass a workload.json written by cctune workload import or merge");
  return wl::workload_from_json(j);
}

class ReplayCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    cmd_ = parent.add_subcommand("replay", "one captured step's collectives in capture order (this build: --dry-run plans and prints it)");
    cmd_->add_option("workload", workload_, "workload.json (cctune workload import --steps N)")->required();
    cmd_->add_option("--profile", profile_, "profile.json to compare against NCCL's defaults");
    cmd_->add_option("--ranks", ranks_, "the job's rank count to plan for (communicators of this many ranks are replayed)")
        ->check(CLI::PositiveNumber);
    cmd_->add_flag("--dry-run", dry_run_, "print the step that would be issued; measure nothing");
  }
  bool selected() const override { return cmd_->parsed(); }
  bool needs_mpi() const override { return false; }

  int run(Session&) override {
    if (!dry_run_)
      throw UsageError("replay issues nothing in this build: timing the step back to back on the NCCL workers is not implemented yet",
                       "add --dry-run --ranks N to see the step; measure its sizes with cctune verify --profile P");
    const wl::Workload w = load_workload(workload_);
    const int nranks = ranks_ > 0 ? ranks_ : largest_communicator(w);
    const wl::ReplayStep step = wl::plan_replay(w, nranks);
    // Communicator ids come from the capture: each printed line is escaped for the terminal.
    std::istringstream lines(wl::format_replay(step));
    for (std::string line; std::getline(lines, line);) std::printf("%s\n", text::terminal_text(line).c_str());
    if (!profile_.empty())
      std::printf("# profile %s: the A/B of the step against NCCL's defaults runs only when replay issues it\n",
                  text::terminal_text(profile_).c_str());
    return exit_code::ok;
  }

 private:
  static int largest_communicator(const wl::Workload& w) {
    int n = 0;
    for (const auto& c : w.communicators) n = std::max(n, c.nranks);
    if (n == 0) throw UsageError("the workload holds no communicator", "pass a workload.json written by cctune workload import or merge");
    return n;
  }

  CLI::App* cmd_ = nullptr;
  std::string workload_, profile_;
  int ranks_ = 0;
  bool dry_run_ = false;
};

}  // namespace

std::unique_ptr<Command> make_replay_command() { return std::make_unique<ReplayCommand>(); }

}  // namespace cctune::app
