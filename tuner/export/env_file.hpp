#pragma once
// nccl.env: KEY=VALUE lines that three readers take the same way: NCCL_CONF_FILE (NCCL's
// setEnvFile: lines starting with '#' skipped, key up to the first '=', the rest verbatim),
// `docker --env-file` (no quote processing) and `set -a; . nccl.env` (bash). So: no quotes,
// no spaces, no `export`, values from a conservative character set.
#include <string>
#include <string_view>

#include "core/nccl_settings.hpp"  // valid_env_name, portable_env_value
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

struct EnvFileOptions {
  std::string plugin_path;   // absolute path of libnccl-tuner-cctune.so -> NCCL_TUNER_PLUGIN
  std::string profile_path;  // absolute path of profile.json -> CCTUNE_PROFILE
};

// The profile's env (its process-level group), then NCCL_TUNER_PLUGIN and CCTUNE_PROFILE.
// Throws UsageError naming the key when a name or value cannot be written portably
// (a path with spaces, for example), and when the paths are not absolute.
std::string format_env_file(const Profile& profile, const EnvFileOptions& options);

}  // namespace cctune::tuner
