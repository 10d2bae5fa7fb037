#pragma once
// Who may start a TCP probe pair: anyone can reach a rank's listening port, so a pair
// begins with a hello carrying a per-job random token (made by rank 0, sent to every rank
// over MPI) and the initiator's rank. The responder waits for its round's peer under one
// deadline, reading hellos of many connections at once: a connection that closes, stays
// silent, sends junk or the wrong token is dropped and never ends the wait early.
#include <chrono>
#include <cstdint>
#include <string>

#include "comm/rank_comm.hpp"
#include "net/socket.hpp"

namespace cctune::net {

// Collective: rank 0's fresh random token (32 hex digits), the same on every rank.
std::string job_token(RankComm& comm);

// The initiator's side: sends the hello on a connected stream.
void send_hello(const Fd& conn, const std::string& token, std::int32_t rank);

// The responder's side: the connection of `peer` with `token`, accepted on `listener`
// within `timeout`. Throws RuntimeFailure only when the deadline passes.
Fd accept_peer(const Fd& listener, const std::string& token, std::int32_t peer, std::chrono::milliseconds timeout,
               const StopCheck& stop = {});

}  // namespace cctune::net
