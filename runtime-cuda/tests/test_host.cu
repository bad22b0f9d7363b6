// Host-only tests: the argument parser, the output writer (exact text of
// docs/output-format.md), JSON escaping and the run record. No GPU needed.
// irgl-test: host-only
#include <irgl/runtime.cuh>

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.cuh"

using irgl::ArgParser;
using irgl_test::contains;

namespace {

ArgParser make_parser() {
  ArgParser p("bfs", "Breadth-first search.");
  p.add_positional("graph", "input graph (.gr)");
  p.add<uint32_t>("src", 0, "source node");
  p.add<int32_t>("delta", -3, "a signed value");
  p.add<uint64_t>("wl-capacity", 0, "worklist capacity");
  p.add<int64_t>("big", 0, "i64");
  p.add<float>("alpha", 0.85f, "damping");
  p.add<double>("tol", 1e-6, "tolerance");
  p.add<bool>("verbose", false, "chatty");
  p.add<std::string>("output", "bfs.out", "output file");
  return p;
}

ArgParser::Status parse(ArgParser& p, std::vector<const char*> args, std::string* err) {
  args.insert(args.begin(), "bfs");
  return p.try_parse(static_cast<int>(args.size()), args.data(), err);
}

TEST(defaults) {
  ArgParser p = make_parser();
  std::string err;
  EXPECT(parse(p, {"g.gr"}, &err) == ArgParser::Status::Ok);
  EXPECT_EQ(p.get<uint32_t>("src"), 0u);
  EXPECT_EQ(p.get<int32_t>("delta"), -3);
  EXPECT_EQ(p.get<float>("alpha"), 0.85f);
  EXPECT_EQ(p.get<double>("tol"), 1e-6);
  EXPECT_EQ(p.get<bool>("verbose"), false);
  EXPECT_EQ(p.get<std::string>("output"), std::string("bfs.out"));
  EXPECT_EQ(p.positional("graph"), std::string("g.gr"));
}

TEST(forms) {
  ArgParser p = make_parser();
  std::string err;
  EXPECT(parse(p, {"--src", "42", "--delta=-7", "g.gr", "--wl-capacity=18446744073709551615", "--big", "-5",
                   "--alpha=0.5", "--tol", "1e-9", "--verbose", "--output=x y.out"},
               &err) == ArgParser::Status::Ok);
  EXPECT_EQ(err, std::string());
  EXPECT_EQ(p.get<uint32_t>("src"), 42u);
  EXPECT_EQ(p.get<int32_t>("delta"), -7);
  EXPECT_EQ(p.get<uint64_t>("wl-capacity"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(p.get<int64_t>("big"), -5);
  EXPECT_EQ(p.get<float>("alpha"), 0.5f);
  EXPECT_EQ(p.get<double>("tol"), 1e-9);
  EXPECT_EQ(p.get<bool>("verbose"), true);
  EXPECT_EQ(p.get<std::string>("output"), std::string("x y.out"));
  EXPECT_EQ(p.positional("graph"), std::string("g.gr"));
  ArgParser q = make_parser();
  EXPECT(parse(q, {"--verbose", "false", "g.gr", "--src", "1", "--src", "2"}, &err) == ArgParser::Status::Ok);
  EXPECT_EQ(q.get<bool>("verbose"), false);
  EXPECT_EQ(q.get<uint32_t>("src"), 2u);  // last wins
  ArgParser r = make_parser();
  EXPECT(parse(r, {"--verbose=no", "--", "--weird-name.gr"}, &err) == ArgParser::Status::Ok);
  EXPECT_EQ(r.positional("graph"), std::string("--weird-name.gr"));
}

TEST(errors) {
  struct Case {
    std::vector<const char*> args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{"g.gr", "--bogus", "1"}, "unknown flag --bogus (see --help)"},
      {{"g.gr", "-x"}, "unknown flag -x (see --help)"},
      {{"g.gr", "--src", "abc"}, "bad value 'abc' for flag --src: expected an unsigned 32-bit integer (u32)"},
      {{"g.gr", "--src=-1"}, "bad value '-1' for flag --src: expected an unsigned 32-bit integer (u32)"},
      {{"g.gr", "--src=4294967296"}, "bad value '4294967296' for flag --src: expected an unsigned 32-bit integer (u32)"},
      {{"g.gr", "--src=12x"}, "bad value '12x' for flag --src: expected an unsigned 32-bit integer (u32)"},
      {{"g.gr", "--delta=2147483648"}, "bad value '2147483648' for flag --delta: expected a signed 32-bit integer (i32)"},
      {{"g.gr", "--wl-capacity=18446744073709551616"},
       "bad value '18446744073709551616' for flag --wl-capacity: expected an unsigned 64-bit integer (u64)"},
      {{"g.gr", "--alpha=fast"}, "bad value 'fast' for flag --alpha: expected a number (f32)"},
      {{"g.gr", "--alpha=1e99"}, "bad value '1e99' for flag --alpha: expected a number (f32)"},
      {{"g.gr", "--verbose=maybe"}, "bad value 'maybe' for flag --verbose: expected true or false"},
      {{"g.gr", "--src"}, "flag --src needs a value (u32)"},
      {{}, "missing argument <graph> (see --help)"},
      {{"a.gr", "b.gr"}, "unexpected argument 'b.gr' (see --help)"},
  };
  for (const Case& c : cases) {
    ArgParser p = make_parser();
    std::string err;
    EXPECT(parse(p, c.args, &err) == ArgParser::Status::Error);
    EXPECT_EQ(err, std::string(c.message));
  }
}

TEST(help) {
  ArgParser p = make_parser();
  std::string err;
  EXPECT(parse(p, {"--src", "3", "--help"}, &err) == ArgParser::Status::Help);
  const std::string h = make_parser().help();
  EXPECT(irgl_test::starts_with(h, "usage: bfs [flags] <graph>\n"));
  EXPECT(contains(h, "  --src <u32>  source node (default: 0)\n"));
  EXPECT(contains(h, "  --alpha <f32>  damping (default: 0.85)\n"));
  EXPECT(contains(h, "  --tol <f64>  tolerance (default: 1e-06)\n"));
  EXPECT(contains(h, "  --delta <i32>  a signed value (default: -3)\n"));
  EXPECT(contains(h, "  --verbose <bool>  chatty (default: false)\n"));
  EXPECT(contains(h, "  --output <string>  output file (default: \"bfs.out\")\n"));
  EXPECT(contains(h, "  <graph>  input graph (.gr)\n"));
}

TEST(parse_exits) {
  irgl_test::ChildResult r = irgl_test::run_child("parse-child g.gr --bogus");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, std::string("error: unknown flag --bogus (see --help)\n"));
  r = irgl_test::run_child("parse-child --help");
  EXPECT_EQ(r.status, 0);
  EXPECT(irgl_test::starts_with(r.output, "usage: bfs [flags] <graph>"));
  r = irgl_test::run_child("parse-child g.gr --src=7");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output, std::string("src=7\n"));
}

TEST(options_json) {
  ArgParser p = make_parser();
  std::string err;
  EXPECT(parse(p, {"g.gr", "--src=5", "--output=a\"b"}, &err) == ArgParser::Status::Ok);
  EXPECT_EQ(p.options_json(), std::string("{\"src\":5,\"delta\":-3,\"wl-capacity\":0,\"big\":0,\"alpha\":0.85,"
                                          "\"tol\":1e-06,\"verbose\":false,\"output\":\"a\\\"b\"}"));
}

TEST(json_escaping) {
  EXPECT_EQ(irgl::json_string("plain"), std::string("\"plain\""));
  EXPECT_EQ(irgl::json_string("q\"b\\s/"), std::string("\"q\\\"b\\\\s/\""));
  EXPECT_EQ(irgl::json_string("a\nb\tc\r\b\f"), std::string("\"a\\nb\\tc\\r\\b\\f\""));
  EXPECT_EQ(irgl::json_string(std::string("\x01\x1f\x7f", 3)), std::string("\"\\u0001\\u001f\\u007f\""));
  EXPECT_EQ(irgl::json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            std::string("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""));  // valid UTF-8 kept
  EXPECT_EQ(irgl::json_string("x\xffy\xc3"), std::string("\"x\\ufffdy\\ufffd\""));       // invalid bytes
  EXPECT_EQ(irgl::json_string("\xc0\xaf"), std::string("\"\\ufffd\\ufffd\""));           // overlong
  EXPECT_EQ(irgl::json_string("\xed\xa0\x80"), std::string("\"\\ufffd\\ufffd\\ufffd\""));  // surrogate
  EXPECT_EQ(irgl::json_string(std::string("a\0b", 3)), std::string("\"a\\u0000b\""));
}

TEST(run_record) {
  irgl::RunRecord r;
  r.program = "bfs";
  r.graph = "graphs/road \"NY\".gr";
  r.nodes = 264346;
  r.edges = 730100;
  r.time_ms = 12.5;
  r.iterations = 37;
  r.options_json = "{\"src\":0}";
  r.device = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(irgl::to_json(r),
            std::string("{\"program\":\"bfs\",\"graph\":\"graphs/road \\\"NY\\\".gr\",\"nodes\":264346,"
                        "\"edges\":730100,\"time_ms\":12.5,\"iterations\":37,\"options\":{\"src\":0},"
                        "\"device\":\"NVIDIA H100 80GB HBM3\"}"));
  r.time_ms = std::nan("");
  r.options_json = "";
  EXPECT(contains(irgl::to_json(r), "\"time_ms\":null,"));
  EXPECT(contains(irgl::to_json(r), "\"options\":{},"));
  r.time_ms = 0.1;
  EXPECT(contains(irgl::to_json(r), "\"time_ms\":0.1,"));
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(output_writer_exact) {
  const std::string path = "/tmp/irgl-test-" + std::to_string(getpid()) + ".out";
  {
    irgl::OutputWriter w(path, "pr", 3, 4);
    w.param("alpha", 0.85f);
    w.param("max_iter", uint32_t(100));
    w.param("name", "x");
    w.scalar("triangles", uint64_t(18446744073709551615ull));
    w.scalar("delta", int32_t(-5));
    w.scalar("big", int64_t(-9000000000ll));
    w.scalar("ok", true);
    w.scalar("root", uint32_t(2), "node");
    w.scalar("third", 1.0 / 3.0);
    w.comment("ranks follow");
    const float rank[3] = {0.1f, std::numeric_limits<float>::infinity(), std::nanf("")};
    w.node_array("rank", rank, 3);
    const double d[3] = {0.1, -std::numeric_limits<double>::infinity(), 1e300};
    w.node_array("rank64", d, 3);
    const uint32_t level[3] = {0, 1, 4294967295u};
    w.node_array("level", level, 3);
    const uint8_t in_mis[3] = {1, 0, 7};
    w.node_array("in_mis", in_mis, 3, "bool");
    const bool flags[4] = {true, false, false, true};
    w.edge_array("in_mst", flags, 4);
    const int64_t e64[4] = {-1, 0, 1, 9223372036854775807ll};
    w.edge_array("w", e64, 4);
    const uint32_t parent[4] = {3, 2, 1, 0};
    w.edge_array("parent", parent, 4, "edge");
    w.close();
  }
  const std::string want =
      "irgl-output 1\n"
      "program pr\n"
      "nodes 3\n"
      "edges 4\n"
      "param alpha 0.850000024\n"
      "param max_iter 100\n"
      "param name x\n"
      "scalar triangles u64 18446744073709551615\n"
      "scalar delta i32 -5\n"
      "scalar big i64 -9000000000\n"
      "scalar ok bool 1\n"
      "scalar root node 2\n"
      "scalar third f64 0.33333333333333331\n"
      "# ranks follow\n"
      "node rank f32\n0.100000001\ninf\nnan\n"
      "node rank64 f64\n0.10000000000000001\n-inf\n1.0000000000000001e+300\n"
      "node level u32\n0\n1\n4294967295\n"
      "node in_mis bool\n1\n0\n1\n"
      "edge in_mst bool\n1\n0\n0\n1\n"
      "edge w i64\n-1\n0\n1\n9223372036854775807\n"
      "edge parent edge\n3\n2\n1\n0\n";
  const std::string got = slurp(path);
  EXPECT_EQ(got, want);
  if (got != want) std::fprintf(stderr, "--- got:\n%s--- want:\n%s", got.c_str(), want.c_str());
  std::remove(path.c_str());
}

TEST(whole_files) {
  const std::string path = "/tmp/irgl-test-whole-" + std::to_string(getpid()) + ".out";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("old\n", f);
    std::fclose(f);
  }
  std::string temp;
  {
    irgl::WholeFile f(path);
    EXPECT(f.ok());
    temp = f.temp_path();
    std::fputs("half of the new", f.get());
    EXPECT_EQ(slurp(path), std::string("old\n"));  // nothing at the path until the commit
  }  // destroyed without a commit: the old file stays, the temporary goes
  EXPECT_EQ(slurp(path), std::string("old\n"));
  EXPECT(std::fopen(temp.c_str(), "r") == nullptr);
  {
    irgl::WholeFile f(path);
    std::fputs("new\n", f.get());
    EXPECT(f.commit());
    EXPECT(std::fopen(f.temp_path().c_str(), "r") == nullptr);
  }
  EXPECT_EQ(slurp(path), std::string("new\n"));
  {
    irgl::OutputWriter w(path, "p", 1, 0);
    EXPECT_EQ(slurp(path), std::string("new\n"));  // the older output until close()
    w.close();
  }
  EXPECT(irgl_test::starts_with(slurp(path), "irgl-output 1\nprogram p\n"));
  irgl::WholeFile bad("/nonexistent/dir/x.out");
  EXPECT(!bad.ok());
  EXPECT(!bad.commit());
  std::remove(path.c_str());
}

TEST(output_writer_errors) {
  irgl_test::ChildResult r = irgl_test::run_child("writer-child-order");
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: OutputWriter: param line after a later section"));
  r = irgl_test::run_child("writer-child-size");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, std::string("error: OutputWriter: node array level has 2 values, expected 3\n"));
  r = irgl_test::run_child("writer-child-open");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, std::string("error: cannot create output file /nonexistent/dir/x.out: No such file or directory\n"));
}

TEST(float_formats) {
  EXPECT_EQ(irgl::format_float(0.1f, true), std::string("0.100000001"));
  EXPECT_EQ(irgl::format_float(-std::nan(""), false), std::string("nan"));
  EXPECT_EQ(irgl::format_float_short(0.85f, true), std::string("0.85"));
  EXPECT_EQ(irgl::format_float_short(0.1, false), std::string("0.1"));
  // %.9g round-trips every f32 tried.
  bool ok = true;
  for (uint32_t i = 0; i < 100000; ++i) {
    const uint32_t bits = irgl_test::hash32(i) & 0x7f7fffffu;
    float f;
    std::memcpy(&f, &bits, 4);
    ok &= std::strtof(irgl::format_float(f, true).c_str(), nullptr) == f;
  }
  EXPECT(ok);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "parse-child") {
    ArgParser p = make_parser();
    std::vector<const char*> args(argv, argv + argc);
    args.erase(args.begin() + 1);
    p.parse(static_cast<int>(args.size()), args.data());
    std::printf("src=%u\n", p.get<uint32_t>("src"));
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "writer-child-order") {
    irgl::OutputWriter w("/tmp/irgl-test-child-" + std::to_string(getpid()) + ".out", "p", 1, 0);
    const uint32_t v[1] = {0};
    w.node_array("level", v, 1);
    std::remove(("/tmp/irgl-test-child-" + std::to_string(getpid()) + ".out").c_str());
    w.param("src", 0u);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "writer-child-size") {
    const std::string path = "/tmp/irgl-test-child-" + std::to_string(getpid()) + ".out";
    irgl::OutputWriter w(path, "p", 3, 0);
    std::remove(path.c_str());
    const uint32_t v[2] = {0, 1};
    w.node_array("level", v, 2);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "writer-child-open") {
    irgl::OutputWriter w("/nonexistent/dir/x.out", "p", 3, 0);
    return 0;
  }
  RUN(defaults);
  RUN(forms);
  RUN(errors);
  RUN(help);
  RUN(parse_exits);
  RUN(options_json);
  RUN(json_escaping);
  RUN(run_record);
  RUN(output_writer_exact);
  RUN(whole_files);
  RUN(output_writer_errors);
  RUN(float_formats);
  return irgl_test::finish();
}
