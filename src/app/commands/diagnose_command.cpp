// `cctune diagnose`: finds the slow component of a cluster in stages (docs/DIAGNOSE.md): every
// node alone, node pairs in rounds (probe and collective), all nodes; then every GPU, node, NIC
// and pair against its group's median, its path's limit and its own baseline. Exit code 5 when
// it names suspects, so acceptance scripts can gate on it.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/cli/command.hpp"
#include "app/cli/session.hpp"
#include "app/commands/commands_list.hpp"
#include "app/diagnose/diagnose_job.hpp"
#include "app/diagnose/diagnose_options.hpp"
#include "app/metrics/metrics.hpp"
#include "app/report/report.hpp"
#include "app/run/job_run.hpp"
#include "app/sweep/sweep_outputs.hpp"
#include "comm/rank_agreement.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/prometheus_text.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "diagnose/plan.hpp"
#include "runtime/signals.hpp"

namespace cctune::app {
namespace {

namespace dg = cctune::diagnose;
using namespace app::diagnose;

class DiagnoseCommand : public Command {
 public:
  void setup(CLI::App& parent) override {
    add_to(parent, "diagnose", "find the slow GPU, node, NIC/link or path in stages; exit 5 when it names suspects");
    add_diagnose_options(*cmd_, args_);
  }

  int run(Session& session) override {
    runtime::install_stop_handlers();
    const dg::PairSelection pairs = dg::parse_pair_selection(args_.pairs);
    if (args_.dry_run && args_.nodes > 0) {
      if (!args_.prometheus.empty()) prometheus::check_prom_file_name(args_.prometheus);
      return dry_run(args_.nodes, std::max(1, args_.gpus), pairs);  // no MPI
    }
    // One line for the job (agreed), before anything runs.
    if (!args_.prometheus.empty()) agree_on_errors(session.world(), [&] { prometheus::check_prom_file_name(args_.prometheus); });
    if (!args_.dry_run && (args_.nodes > 0))
      throw UsageError("--nodes plans a cluster for --dry-run and does not shape a measuring job",
                       "add --dry-run, or launch diagnose on the nodes with mpirun/srun");
    std::optional<runtime::GpuQuery> gpus;
    if (args_.backend == "nccl" || args_.backend == "auto") gpus = runtime::query_nccl_backend(session.comm(), session.executable(), args_.backend == "nccl");
    const SweepPlan plan = resolve_diagnose_plan(args_, gpus.has_value(), gpus && gpus->device_count > 0);
    if (plan.backend != BackendChoice::Nccl) gpus.reset();
    std::optional<net::ProbeOptions> probe = resolve_probe(args_);
    if (probe) probe->stop_requested = [] { return runtime::stop_signal() != 0; };  // a stalled pair ends on SIGTERM too (F14)
    const NodeMap map = map_nodes(session, plan.nccl.test_shared_gpu > 0);
    const StageContext ctx{session, map, plan, gpus};
    const std::vector<int> per_node = gpus_per_node(ctx);
    dg::PlanInputs in;
    in.nodes = map.nodes();
    in.gpus_per_node = *std::max_element(per_node.begin(), per_node.end());
    in.pairs = pairs;
    in.backend = gpus ? "NCCL" : "MPI";
    in.point_s = args_.max_time_s;
    const dg::DiagnosePlan dplan = dg::plan_diagnosis(in);
    if (args_.dry_run) return print_plan(session, dplan);

    DiagnosisDoc shape = shape_of(map, per_node, plan, pairs);
    std::optional<DiagnosisDoc> baseline;
    if (!args_.baseline.empty())
      agree_on_errors(session.world(), [&] {
        baseline = load_diagnosis(args_.baseline);
        check_same_cluster(*baseline, shape);
      });
    open_job_files(session, plan.output_dir, args_.force ? ExistingResults::Replace : ExistingResults::Refuse);
    const Meta meta = sweep_meta(session, plan, gpus);
    Results topology;
    attach_topology(session, topology);  // rank 0: the cluster's, for the physical limits
    if (session.world().rank() == 0) std::printf("%s", dg::format_plan(dplan).c_str());
    JobOutcome out = run_stages(ctx, dplan, probe, meta, topology, shape);
    int suspects = 0;
    if (session.world().rank() == 0) {
      write_on_rank0([&] { suspects = conclude(out, baseline ? &*baseline : nullptr, plan.output_dir, args_.prometheus); });
    }
    // Every rank exits alike, so that the launcher's exit status is the verdict's. A stopped
    // job judged what it had measured (written above) but is not a verdict: 130/143.
    if (out.stop_signal != 0) return runtime::exit_code_for_stop(out.stop_signal);
    return session.world().max(suspects) > 0 ? exit_code::suspects : exit_code::ok;
  }

 private:
  int dry_run(int nodes, int gpus, const dg::PairSelection& pairs) const {
    dg::PlanInputs in;
    in.nodes = nodes;
    in.gpus_per_node = gpus;
    in.pairs = pairs;
    in.backend = args_.backend == "mpi" ? "MPI" : "NCCL";
    in.point_s = args_.max_time_s;
    std::printf("%s", dg::format_plan(dg::plan_diagnosis(in)).c_str());
    return exit_code::ok;
  }

  static int print_plan(Session& session, const dg::DiagnosePlan& plan) {
    if (session.world().rank() == 0) std::printf("%s", dg::format_plan(plan).c_str());
    return exit_code::ok;
  }

  DiagnosisDoc shape_of(const NodeMap& map, const std::vector<int>& per_node, const SweepPlan& plan,
                        const dg::PairSelection& pairs) const {
    DiagnosisDoc d;
    d.backend = plan.backend == BackendChoice::Nccl ? "nccl" : "mpi";
    if (plan.nccl.test_shared_gpu > 0) d.test_mode = test_mode_shared_gpu;
    d.hosts = map.names;
    d.gpus_per_node = *std::max_element(per_node.begin(), per_node.end());
    d.latency_bytes = sizes_of(plan.space).at(0);
    d.bandwidth_bytes = sizes_of(plan.space).at(1);
    d.pairs = dg::to_string(pairs);
    d.baseline_path = args_.baseline;
    for (std::size_t i = 0; i < map.names.size(); ++i) d.nodes.push_back({map.names[i], per_node[i], 0, 0, 0});
    return d;
  }

  // Rank 0: judge, print, write diagnosis.json, the stage files and report.html. Returns the
  // number of suspects.
  static int conclude(JobOutcome& out, const DiagnosisDoc* baseline, const std::string& dir, const std::string& prom_path) {
    DiagnosisDoc& doc = out.doc;
    doc.interrupted = out.stop_signal != 0;
    doc.diagnosis = judge(doc, baseline);
    if (doc.interrupted)
      doc.diagnosis.notes.push_back("interrupted by a signal: the stages marked skipped did not run, and what they would test is not judged");
    const std::filesystem::path out_dir(dir);
    std::vector<Results> stage_results;
    for (const StageFile& f : out.files) {
      save_results(f.results, (out_dir / (f.name + ".json")).string());
      stage_results.push_back(f.results);
    }
    if (!out.probes.empty()) write_file_atomically((out_dir / "pair_probes.json").string(), text::dump_json(out.probes, 1) + "\n");
    write_file_atomically((out_dir / "diagnosis.json").string(), text::dump_json(to_json(doc), 1) + "\n");
    report::write_report((out_dir / "report.html").string(), stage_results, {}, diagnosis_html(doc));
    if (!prom_path.empty()) metrics::write_metrics(prom_path, metrics::diagnose_metrics(doc));
    std::printf("%s", format_diagnosis(doc).c_str());
    std::printf("# diagnosis: %s\n# report: %s\n", std::filesystem::absolute(out_dir / "diagnosis.json").c_str(),
                std::filesystem::absolute(out_dir / "report.html").c_str());
    if (!prom_path.empty()) std::printf("# metrics: %s\n", text::terminal_text(std::filesystem::absolute(prom_path).string()).c_str());
    std::fflush(stdout);
    return static_cast<int>(doc.diagnosis.suspects.size());
  }

  DiagnoseArgs args_;
};

}  // namespace

std::unique_ptr<Command> make_diagnose_command() { return std::make_unique<DiagnoseCommand>(); }

}  // namespace cctune::app
