// Issue 15 item 13: `compare --csv` wrote =HYPERLINK(...) labels as live spreadsheet
// formulas, and text output passed terminal escape sequences through.
#include "app/report/escaping.hpp"

#include <gtest/gtest.h>

namespace cctune::app::report {
namespace {

TEST(CsvField, FormulasAreDefusedAndQuotingHolds) {
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(csv_field("+1"), "'+1");
  EXPECT_EQ(csv_field("-1"), "'-1");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field("nvlink"), "nvlink");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(TerminalText, ControlCharactersAreShownNotSent) {
  EXPECT_EQ(terminal_text("ok\x1b]0;owned\x07 label"), "ok\\x1b]0;owned\\x07 label");
  EXPECT_EQ(terminal_text("line\n\tnext"), "line\n\tnext");
  EXPECT_EQ(terminal_text("del\x7f"), "del\\x7f");
  EXPECT_EQ(terminal_text("h\xc3\xa9"), "h\xc3\xa9");  // UTF-8 passes
}

}  // namespace
}  // namespace cctune::app::report
