#pragma once
// Readers of our output files written the way their real consumers read them, so tests
// check the files against those rules rather than against our own writer:
// - NCCL's setEnvFile (src/misc/param.cc, NCCL 2.28): getline; a line whose first char is
//   '#' is skipped; the trailing '\n' is cut; the key is everything before the first '='
//   (no trimming, at most 1023 chars); the value is everything after it, verbatim (at most
//   1023 chars); a line without '=' is skipped.
// - NCCL's example tuner plugin (plugins/tuner/example/plugin.c): fgets into 256 bytes;
//   lines starting with '#' or '\n' skipped; strtok on ','; spaces/tabs trimmed; 8 to 10
//   fields; unknown names silently fall back (allreduce, ring, simple), so names are
//   checked against the known lists here.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace cctune::tuner::test {

inline std::vector<std::pair<std::string, std::string>> read_like_nccl_conf(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end + 1 - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line[0] == '#') continue;
    if (line.back() == '\n') line.pop_back();
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    out.emplace_back(line.substr(0, std::min<std::size_t>(eq, 1023)), line.substr(eq + 1, 1023));
  }
  return out;
}

struct ExampleTunerLine {
  std::string collective, algorithm, protocol;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  int channels = 0, nnodes = 0, nranks = 0, pipe_ops = -1, reg_buff = -1;
};

// nullopt with `error` set when a line would be misread by the example plugin.
inline std::optional<std::vector<ExampleTunerLine>> read_like_example_tuner(const std::string& text, std::string& error) {
  static const std::vector<std::string> colls = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
  static const std::vector<std::string> algos = {"tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
  static const std::vector<std::string> protos = {"ll", "ll128", "simple"};
  auto known = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  std::vector<ExampleTunerLine> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() + 1 > 255) {
      error = "line longer than the example plugin's 256-byte buffer: " + line.substr(0, 40) + "...";
      return std::nullopt;
    }
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> tok;
    std::stringstream ss(line);
    std::string t;
    while (std::getline(ss, t, ',')) {
      const auto b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
      if (b != std::string::npos) tok.push_back(t.substr(b, e - b + 1));  // strtok drops empty fields
    }
    if (tok.size() < 8 || tok.size() > 10) {
      error = "line with " + std::to_string(tok.size()) + " fields is ignored by the example plugin: " + line;
      return std::nullopt;
    }
    if (!known(colls, tok[0]) || !known(algos, tok[3]) || !known(protos, tok[4])) {
      error = "name the example plugin does not know (it would silently substitute a default): " + line;
      return std::nullopt;
    }
    ExampleTunerLine l{tok[0], tok[3], tok[4], std::strtoull(tok[1].c_str(), nullptr, 10), std::strtoull(tok[2].c_str(), nullptr, 10),
                       std::atoi(tok[5].c_str()), std::atoi(tok[6].c_str()), std::atoi(tok[7].c_str())};
    if (tok.size() >= 9) l.pipe_ops = std::atoi(tok[8].c_str());
    if (tok.size() >= 10) l.reg_buff = std::atoi(tok[9].c_str());
    out.push_back(l);
  }
  return out;
}

}  // namespace cctune::tuner::test
