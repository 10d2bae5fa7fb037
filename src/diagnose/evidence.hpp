#pragma once
// Sentences of evidence shared by the diagnose stages, and the pieces they build suspects from.
#include <optional>
#include <string>
#include <vector>

#include "diagnose/attribution.hpp"

namespace cctune::diagnose::detail {

std::string percent(double fraction);
// A figure with the digits that matter: 180, 22.5, 1.25, 0.0124.
std::string number(double v);

// Where `figure` is under the rules' share of the physical `limit` (0: unknown).
std::optional<std::string> limit_evidence(double figure, double limit, const Rules& rules);

// Where `figure` is worse than the component's own `baseline` (0: none) by more than the rules allow.
std::optional<std::string> baseline_evidence(double figure, double baseline, Better better, const Rules& rules,
                                             const char* unit);

// "the cluster's median busbw is 35 % of its median limit": a configuration, not one component.
std::optional<std::string> cluster_limit_note(const char* what, const std::vector<double>& figures,
                                              const std::vector<double>& limits, const Rules& rules);

Suspect make_suspect(SuspectKind kind, std::string host, double figure, const Typical& group, const char* unit);

// Stage 2, the network: NICs and node pairs (network_attribution.cpp).
void judge_network(const Observations& obs, const Rules& rules, Diagnosis& d);

}  // namespace cctune::diagnose::detail
