// Issue 24 F1/F2/F10/F11/F16: outside text on its way to JSON, a terminal, CSV, HTML, a shell
// and NCCL's log. Golden inputs per sanitiser: invalid bytes, cut multi-byte characters,
// ESC/OSC/CSI, C1 controls, newlines, bidi overrides and formula payloads after separators.
#include "core/text.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace cctune::text;

namespace {

const std::string e_acute = "\xc3\xa9";       // é, two bytes
const std::string euro = "\xe2\x82\xac";        // €, three bytes
const std::string fffd = "\xef\xbf\xbd";        // U+FFFD
const std::string csi_c1 = "\xc2\x9b";          // U+009B, a one-character CSI
const std::string rlo = "\xe2\x80\xae";         // U+202E RIGHT-TO-LEFT OVERRIDE

TEST(Utf8, ValidityFollowsTheUnicodeTable) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("plain " + e_acute + euro + "\xf0\x9f\x98\x80"));
  EXPECT_FALSE(valid_utf8("\xff"));
  EXPECT_FALSE(valid_utf8("\xc3"));              // cut after the first byte
  EXPECT_FALSE(valid_utf8("\xe2\x82"));          // cut inside a three-byte character
  EXPECT_FALSE(valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
  EXPECT_FALSE(valid_utf8("\x80"));              // a lone continuation byte
}

TEST(Utf8, SanitizeReplacesEachBadByteAndKeepsTheRest) {
  EXPECT_EQ(sanitize_utf8("a\xff" "b"), "a" + fffd + "b");
  EXPECT_EQ(sanitize_utf8("x\xc3"), "x" + fffd);
  EXPECT_EQ(sanitize_utf8(e_acute + "\xfe\xfe"), e_acute + fffd + fffd);
  EXPECT_TRUE(valid_utf8(sanitize_utf8("\xe2\x82" "\xc0\xaf\xed\xa0\x80")));
  EXPECT_EQ(sanitize_utf8("ok"), "ok");
}

TEST(Utf8, TruncateCutsOnACharacterBoundary) {
  // 'x' then 150 x é: byte 200 falls inside an é (the F1 reproduction's log line).
  std::string line = "x";
  for (int i = 0; i < 150; ++i) line += e_acute;
  const std::string cut = truncate_utf8(line, 200);
  EXPECT_TRUE(valid_utf8(cut));
  EXPECT_EQ(cut.size(), 199u + 3u);  // 'x' + 99 x é, then "..."
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  EXPECT_EQ(truncate_utf8("short", 200), "short");
  EXPECT_EQ(truncate_utf8(euro + euro, 5, "…"), euro + "…");
  EXPECT_EQ(truncate_utf8("ab\xff", 10), "ab" + fffd);  // sanitised even when short
}

TEST(JsonDump, InvalidBytesAreReplacedNotThrown) {
  const nlohmann::json j = {{"reason", "tail \xff\xfe junk"}, {"cut", "x\xc3"}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what crashed the supervisor (F1)
  const std::string s = dump_json(j);
  EXPECT_TRUE(valid_utf8(s));
  EXPECT_EQ(nlohmann::json::parse(s).at("cut").get<std::string>(), "x" + fffd);
  EXPECT_EQ(json_excerpt(nlohmann::json(std::string(30, 'a') + e_acute + e_acute + e_acute), 33), "\"" + std::string(30, 'a') + e_acute + "...");
}

TEST(TerminalText, EverythingThatMovesTheCursorIsShown) {
  EXPECT_EQ(terminal_text("nv\x1b]0;PWNED\x07\x1b[2J"), "nv\\x1b]0;PWNED\\x07\\x1b[2J");
  EXPECT_EQ(terminal_text("a\nFAKE LINE\r\tb"), "a\\nFAKE LINE\\r\\tb");
  EXPECT_EQ(terminal_text("del\x7f"), "del\\x7f");
  EXPECT_EQ(terminal_text("c1" + csi_c1 + "31m"), "c1\\x9b31m");
  EXPECT_EQ(terminal_text("abc" + rlo + "cba"), "abc\\u202ecba");
  EXPECT_EQ(terminal_text("bad\xff"), "bad" + fffd);
  EXPECT_EQ(terminal_text("caf" + e_acute + " " + euro + " back\\slash"), "caf" + e_acute + " " + euro + " back\\slash");
  EXPECT_EQ(std::string(terminal_text(std::string("nul\0x", 5))), "nul\\x00x");
}

TEST(LogText, OneBoundedLine) {
  EXPECT_EQ(log_text("2.28.9\n[0] NCCL INFO forged", 100), "2.28.9\\n[0] NCCL INFO forged");
  const std::string big(100000, 'x');
  EXPECT_EQ(log_text(big, 512).size(), 512u + 3u);
}

TEST(ShellWord, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_word("/x/y/nccl.env"), "/x/y/nccl.env");
  EXPECT_EQ(shell_word("/x/a b/nccl.env"), "'/x/a b/nccl.env'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("a\x1b[2J\n"), "$'a\\x1b[2J\\x0a'");
  EXPECT_EQ(shell_word("o\xff"), "$'o\\xff'");
}

TEST(CsvField, FormulaStartsAreDefusedAtTheStartAndAfterSeparators) {
  // Issue 15 item 13 (moved here with the function): =HYPERLINK(...) labels ran as formulas.
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("nvlink"), "nvlink");
  EXPECT_EQ(csv_field("=1+1"), "'=1+1");
  EXPECT_EQ(csv_field("-1"), "'-1");
  EXPECT_EQ(csv_field("\tx"), "\"'\tx\"");
  // F11: where ';' is the list separator the second cell started with '='.
  EXPECT_EQ(csv_field("x;=cmd|' /C calc'!A0"), "\"x;'=cmd|' /C calc'!A0\"");
  EXPECT_EQ(csv_field("a,@SUM(A1)"), "\"a,'@SUM(A1)\"");
  EXPECT_EQ(csv_field("a\t+1"), "\"a\t'+1\"");
  EXPECT_EQ(csv_field("a\n-2"), "\"a\n'-2\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a;b"), "\"a;b\"");  // quoted: one cell for ';' readers too
  EXPECT_EQ(csv_field("1e-3"), "1e-3");      // '-' inside a word starts nothing
  EXPECT_EQ(csv_field("bad\xff"), "bad" + fffd);
}

TEST(HtmlText, MarkupEscapedAndControlsShown) {
  EXPECT_EQ(html_text("<script>\"'&"), "&lt;script&gt;&quot;&#39;&amp;");
  EXPECT_EQ(html_text("t\x1b]0;x\x07"), "t\\x1b]0;x\\x07");
  EXPECT_EQ(html_text("c1" + csi_c1), "c1\\x9b");
  EXPECT_EQ(html_text("two\nlines\ttab"), "two\nlines\ttab");
  EXPECT_EQ(html_text("cut\xc3"), "cut" + fffd);
}

TEST(MapStrings, KeysAndValuesAtEveryDepth) {
  const nlohmann::json j = {{"a\x1b", {"x\n", 1, {{"k", "v\x07"}}}}};
  const nlohmann::json m = map_strings(j, terminal_text);
  EXPECT_EQ(m.dump(), R"({"a\\x1b":["x\\n",1,{"k":"v\\x07"}]})");
}

}  // namespace
