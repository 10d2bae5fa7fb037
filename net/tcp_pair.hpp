#pragma once
// One TCP pair: the initiator streams messages to the responder (bandwidth) and then
// ping-pongs small messages (latency). Both sides run the same sequence of steps.
#include "net/pair_measurement.hpp"
#include "net/probe_options.hpp"
#include "net/socket.hpp"

namespace cctune::net {

// Bandwidth: warm up, wait for the responder's "ready", then time from the first send
// to the arrival of the responder's acknowledgement of the last byte (perftest's
// first post to last completion). The peak is the best of ten consecutive slices of
// the run, timed where the bytes arrive (the responder), since a send() "completes" when
// the kernel copies it, not when it is delivered.
PairMeasurement tcp_initiate(const Fd& conn, const ProbeOptions& o);
void tcp_respond(const Fd& conn, const ProbeOptions& o);

}  // namespace cctune::net
