// The tbf rate reader on hand-built RTM_GETQDISC dumps (the kernel's message layout), and the
// live call where the machine has no shaper it can see (never an error).
#include "topology/shaped_rate.hpp"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <string>
#include <vector>

using namespace cctune::topo;

namespace {

// Appends an rtattr (type, payload) to buf, padded as the kernel pads it.
void put_attr(std::vector<std::uint8_t>& buf, unsigned short type, const void* data, std::size_t n) {
  rtattr a{};
  a.rta_type = type;
  a.rta_len = static_cast<unsigned short>(RTA_LENGTH(n));
  const auto at = buf.size();
  buf.resize(at + RTA_SPACE(n));
  std::memcpy(buf.data() + at, &a, sizeof a);
  std::memcpy(buf.data() + at + RTA_LENGTH(0), data, n);
}

// One RTM_NEWQDISC message of `kind` on interface `ifindex`; for tbf, rate in bytes/s (above
// 32 bits it goes in TCA_TBF_RATE64 and the 32-bit field saturates, as the kernel writes it).
std::vector<std::uint8_t> qdisc_message(int ifindex, const std::string& kind, std::uint64_t rate_Bps, unsigned short type = RTM_NEWQDISC) {
  std::vector<std::uint8_t> attrs;
  put_attr(attrs, TCA_KIND, kind.c_str(), kind.size() + 1);
  if (kind == "tbf") {
    std::vector<std::uint8_t> nested;
    tc_tbf_qopt q{};
    q.rate.rate = rate_Bps >= (1ULL << 32) ? ~0U : static_cast<unsigned>(rate_Bps);
    put_attr(nested, TCA_TBF_PARMS, &q, sizeof q);
    if (rate_Bps >= (1ULL << 32)) put_attr(nested, TCA_TBF_RATE64, &rate_Bps, sizeof rate_Bps);
    put_attr(attrs, TCA_OPTIONS, nested.data(), nested.size());
  }
  nlmsghdr nh{};
  nh.nlmsg_type = type;
  nh.nlmsg_len = static_cast<unsigned>(NLMSG_LENGTH(NLMSG_ALIGN(sizeof(tcmsg)) + attrs.size()));
  tcmsg tc{};
  tc.tcm_ifindex = ifindex;
  std::vector<std::uint8_t> msg(NLMSG_ALIGN(nh.nlmsg_len));
  std::memcpy(msg.data(), &nh, sizeof nh);
  std::memcpy(msg.data() + NLMSG_LENGTH(0), &tc, sizeof tc);
  std::memcpy(msg.data() + NLMSG_LENGTH(NLMSG_ALIGN(sizeof(tcmsg))), attrs.data(), attrs.size());
  return msg;
}

void append(std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) { a.insert(a.end(), b.begin(), b.end()); }

}  // namespace

TEST(ShapedRate, ReadsTbfRatesAndSkipsOtherQdiscs) {
  std::vector<std::uint8_t> dump;
  append(dump, qdisc_message(2, "noqueue", 0));
  append(dump, qdisc_message(3, "netem", 0));
  append(dump, qdisc_message(3, "tbf", 50'000'000));          // 400 Mb/s, under a netem
  append(dump, qdisc_message(4, "tbf", 3'125'000'000ULL));    // 25 Gb/s: fits 32 bits
  append(dump, qdisc_message(5, "tbf", 50'000'000'000ULL));   // 400 Gb/s: TCA_TBF_RATE64
  const auto rates = tbf_rates_from_dump(dump);
  ASSERT_EQ(rates.size(), 3U);
  EXPECT_DOUBLE_EQ(rates.at(3), 0.4);
  EXPECT_DOUBLE_EQ(rates.at(4), 25.0);
  EXPECT_DOUBLE_EQ(rates.at(5), 400.0);
}

TEST(ShapedRate, TheLowestOfSeveralTbfsHolds) {
  std::vector<std::uint8_t> dump;
  append(dump, qdisc_message(7, "tbf", 125'000'000));  // 1 Gb/s
  append(dump, qdisc_message(7, "tbf", 12'500'000));   // 100 Mb/s below it
  EXPECT_DOUBLE_EQ(tbf_rates_from_dump(dump).at(7), 0.1);
}

TEST(ShapedRate, StopsAtDoneAndAtATruncatedMessage) {
  std::vector<std::uint8_t> dump = qdisc_message(2, "tbf", 125'000'000);
  nlmsghdr done{};
  done.nlmsg_type = NLMSG_DONE;
  done.nlmsg_len = NLMSG_LENGTH(0);
  std::vector<std::uint8_t> d(NLMSG_ALIGN(done.nlmsg_len));
  std::memcpy(d.data(), &done, sizeof done);
  append(dump, d);
  append(dump, qdisc_message(3, "tbf", 125'000'000));  // after DONE: not read
  EXPECT_EQ(tbf_rates_from_dump(dump).size(), 1U);
  auto cut = qdisc_message(4, "tbf", 125'000'000);
  cut.resize(cut.size() - 8);
  EXPECT_TRUE(tbf_rates_from_dump(cut).empty());
  EXPECT_TRUE(tbf_rates_from_dump({}).empty());
}

TEST(ShapedRate, EffectiveRateIsTheLowerKnownOne) {
  EXPECT_DOUBLE_EQ(effective_Gbps(10, 0.4), 0.4);   // a veth shaped below its nominal 10 Gb/s
  EXPECT_DOUBLE_EQ(effective_Gbps(10, 25), 10);     // a shaper above the port changes nothing
  EXPECT_DOUBLE_EQ(effective_Gbps(10, 25, true), 25);  // ...unless the port is a veth, whose 10 Gb/s limits nothing
  EXPECT_DOUBLE_EQ(effective_Gbps(10, 0, true), 10);
  EXPECT_DOUBLE_EQ(effective_Gbps(0, 25), 25);
  EXPECT_DOUBLE_EQ(effective_Gbps(100, 0), 100);
  EXPECT_DOUBLE_EQ(effective_Gbps(0, 0), 0);
}

TEST(ShapedRate, TheLiveCallNeverFails) {
  // Whatever this machine has (usually no tbf at all), the call answers and names only
  // interfaces with a positive rate.
  for (const auto& [name, gbps] : shaped_rates_Gbps()) {
    EXPECT_FALSE(name.empty());
    EXPECT_GT(gbps, 0);
  }
}
