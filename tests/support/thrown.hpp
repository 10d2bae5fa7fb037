#pragma once
// What a call throws, as the one line cctune prints ("what. Fix: ...") or its message alone;
// fails the test where it throws nothing, so a check on the text cannot pass by accident.
#include <gtest/gtest.h>

#include <string>

namespace cctune::testing {

// What `show` makes of the Error `f` throws.
template <class Error, class F, class Show>
std::string thrown_as(F f, Show show) {
  try {
    f();
  } catch (const Error& e) {
    return show(e);
  }
  ADD_FAILURE() << "nothing was thrown";
  return "<nothing thrown>";
}

template <class Error, class F>
std::string thrown_description(F f) {
  return thrown_as<Error>(f, [](const Error& e) { return e.describe(); });
}

// The message alone ("where.field is missing"), without the fix.
template <class Error, class F>
std::string thrown_message(F f) {
  return thrown_as<Error>(f, [](const Error& e) { return e.what_only(); });
}

}  // namespace cctune::testing
