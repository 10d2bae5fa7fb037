#pragma once
// What a call throws, as the one line cctune prints ("what. Fix: ..."); fails the test where it
// throws nothing, so a check on the text cannot pass by accident.
#include <gtest/gtest.h>

#include <string>

namespace cctune::testing {

template <class Error, class F>
std::string thrown_description(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.describe();
  }
  ADD_FAILURE() << "nothing was thrown";
  return "<nothing thrown>";
}

}  // namespace cctune::testing
