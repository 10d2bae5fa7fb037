#include "app/cli/cli_main.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "app/cli/command.hpp"
#include "app/cli/session.hpp"
#include "app/cli/version_info.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "runtime/job_shim.hpp"

namespace {

// Seconds a rank waits in MPI_Finalize for the others after an error they should all have
// seen before it ends the job itself.
constexpr int shutdown_bound_s = 20;
// How long MPI_Finalize may take after a non-zero exit every rank agreed on (Session::
// bound_finalize): it takes about 50 ms; a rank it holds longer waits for an aborting mpirun.
constexpr std::chrono::milliseconds finalize_bound{500};

// Usage and environment errors, and any error agree_on_errors() relayed, are raised on
// every rank alike, so only rank 0 speaks and every rank exits normally. Anything else
// (and any error marked rank-local) may have struck one rank alone, so the others are
// stopped rather than left waiting in a collective. Should a "symmetric" error have been
// raised on some ranks only after all, bound_shutdown() still ends the job.
int report(const cctune::Error& e, cctune::app::Session& session, int code, bool symmetric) {
  symmetric = symmetric && !e.rank_local();
  const bool multi_rank = session.mpi_started() && session.comm().size() > 1;
  if (!symmetric || !session.mpi_started() || session.rank() == 0)
    // terminal_text: messages quote file content, paths and worker output (one line, no escapes)
    std::fprintf(stderr, "cctune: error: %s\n", cctune::text::terminal_text(e.describe(session.site())).c_str());
  if (multi_rank && !symmetric) session.abort_job(code);
  if (multi_rank) session.bound_shutdown(code, shutdown_bound_s);
  return code;
}

// The parser's refusal as the project's one line: what was wrong, then the fix. A command
// registers only the flags it takes (sweep_options.hpp), so "not expected" is how a flag of
// another command or mode is refused; `needs` and `excludes` tie a mode's flags to it.
std::string parse_error_line(const CLI::ParseError& e, const std::string& command) {
  const std::string what = cctune::text::terminal_text(e.what());
  const std::string help = "'cctune " + (command.empty() ? std::string() : command + " ") + "--help'";
  std::string fix = "see " + help;
  if (dynamic_cast<const CLI::ExtrasError*>(&e))
    fix = "drop it: " + help + " lists what " + (command.empty() ? std::string("cctune") : command) + " takes";
  else if (dynamic_cast<const CLI::RequiresError*>(&e))
    fix = "add the option it requires, or drop the first (" + help + ")";
  else if (dynamic_cast<const CLI::ExcludesError*>(&e))
    fix = "drop one of the two (" + help + ")";
  return "cctune: error: " + what + ". Fix: " + fix;
}

}  // namespace

int cctune::app::run_cctune(int argc, char** argv, Seams seams) {
  // The job shim (runtime/job_shim.hpp) stands between cctune and a user's job: it takes the
  // job's argv as it is, none of cctune's options, and must watch its parent from the start.
  if (argc > 1 && std::string_view(argv[1]) == cctune::runtime::job_shim_command) return cctune::runtime::job_shim_main(argc - 1, argv + 1);
  cctune::app::Session session(argc, argv, std::move(seams));
  CLI::App app{"cctune: measure and tune collective communication (NCCL, MPI) on GPU clusters"};
  app.require_subcommand(1);
  // As in nccl-tests and most CLIs, a repeated flag means its last value.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", [&session] { return cctune::app::version_text(session.executable()); },
                       "print cctune's version and the NCCL, CUDA and MPI it finds, then exit");
  auto commands = cctune::app::make_commands();
  for (auto& c : commands) c->setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) {
      const std::string command = app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name();
      std::fprintf(stderr, "%s\n", parse_error_line(e, command).c_str());
      return cctune::exit_code::usage;
    }
    return app.exit(e);
  }
  try {
    for (auto& c : commands)
      if (c->selected()) {
        const int code = c->run(session);
        session.bound_finalize(code, finalize_bound);  // before ~Session's MPI_Finalize (review F14)
        return code;
      }
  } catch (const cctune::UsageError& e) {
    return report(e, session, cctune::exit_code::usage, true);
  } catch (const cctune::EnvironmentError& e) {
    return report(e, session, cctune::exit_code::environment, true);
  } catch (const cctune::Error& e) {
    return report(e, session, cctune::exit_code::failure, e.agreed());
  } catch (const nlohmann::json::exception& e) {
    // Every document cctune reads is outside input (results, spaces, topologies, profiles,
    // baselines); a JSON type or range error that escaped its reader's checks is a bad file,
    // not a failed measurement. Rank-local: the file may have differed between ranks.
    return report(cctune::UsageError(std::string("an input file holds a value of the wrong type or shape: ") + e.what(),
                                     "check the file named on the command line against its schema (configs/schema/)"),
                  session, cctune::exit_code::usage, false);
  } catch (const std::exception& e) {
    return report(cctune::Error(e.what()), session, cctune::exit_code::failure, false);
  }
  return cctune::exit_code::usage;
}
