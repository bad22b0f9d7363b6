// A graph read as a folder of parts (irgl/multi.cuh: load_input, read_part), the files that
// `irglc graph gen rmat --parts N` writes: the whole graph's offsets and each part, against the
// parts cut from the whole graph at load (part_graph); bad folders fail with the file named.
// irgl-test: host-only
// irgl-test: nccl
// irgl-test: edge64 (also built with 64-bit edge indices)
#include <irgl/runtime.cuh>
#include <irgl/multi.cuh>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "test_graphs.cuh"
#include "test_util.cuh"

namespace {

using irgl_test::ring_with_chords;

std::string folder(const std::string& name) {
  return "/tmp/irgl-test-" + std::to_string(getpid()) + "-" + name;
}

void write_file(const std::string& path, const void* data, size_t bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT(f != nullptr);
  if (f == nullptr) return;
  EXPECT_EQ(std::fwrite(data, 1, bytes, f), bytes);
  std::fclose(f);
}

/// Writes `g` cut at balanced ranges into `dir` as the generator does, with `manifest` as
/// parts.json (its `nodes` and `edges` filled in unless `sizes` is false).
void write_parts(const std::string& dir, const irgl::HostGraph& g, uint32_t parts, const std::string& flags,
                 bool sizes = true) {
  mkdir(dir.c_str(), 0755);
  const std::vector<uint32_t> starts = irgl::balanced_ranges(g, parts);
  for (uint32_t p = 0; p < parts; ++p) {
    const irgl::PartGraph pg = irgl::part_graph(g, starts, static_cast<int>(p));
    std::string error;
    EXPECT(irgl::write_gr(dir + "/part-" + std::to_string(p) + ".gr", pg.local, error));
    write_file(dir + "/part-" + std::to_string(p) + ".mirrors", pg.mirrors.data(), pg.mirrors.size() * 4);
  }
  std::string manifest = "{\n  \"format\": \"irglc-parts\",\n";
  if (sizes)
    manifest += "  \"edges\": " + std::to_string(g.nedges) + ",\n  \"nodes\": " + std::to_string(g.nnodes) + ",\n";
  manifest += "  \"generated\": {" + flags + "}\n}\n";
  write_file(dir + "/parts.json", manifest.data(), manifest.size());
}

void remove_parts(const std::string& dir) {
  for (int p = 0; p < 16; ++p) {
    std::remove((dir + "/part-" + std::to_string(p) + ".gr").c_str());
    std::remove((dir + "/part-" + std::to_string(p) + ".mirrors").c_str());
  }
  std::remove((dir + "/parts.json").c_str());
  rmdir(dir.c_str());
}

TEST(a_folder_gives_the_whole_graphs_offsets_and_each_part) {
  for (bool weighted : {false, true}) {
    for (uint32_t parts : {1u, 2u, 3u, 5u}) {
      const irgl::HostGraph g = ring_with_chords(3000, weighted);
      const std::string dir = folder("parts");
      write_parts(dir, g, parts, "\"symmetrize\": true, \"drop_self_loops\": true");
      EXPECT(irgl::is_parts_folder(dir));
      irgl::PartFiles files;
      const irgl::HostGraph skeleton = irgl::load_input(dir, files);
      EXPECT_EQ(files.parts(), static_cast<int>(parts));
      EXPECT(files.symmetric && files.simple);
      EXPECT(files.starts == irgl::balanced_ranges(g, parts));
      EXPECT_EQ(skeleton.nnodes, g.nnodes);
      EXPECT_EQ(static_cast<uint64_t>(skeleton.nedges), static_cast<uint64_t>(g.nedges));
      EXPECT_EQ(skeleton.has_edge_data, weighted);
      EXPECT(skeleton.row_start == g.row_start);
      EXPECT(skeleton.edge_dst.empty());
      uint64_t bad = 0;
      for (uint32_t p = 0; p < parts; ++p) {
        // Cut at load, a part keeps the whole graph's order of each list; read from its file,
        // each list is sorted by local id (as read_gr sorts every list).
        irgl::PartGraph want = irgl::part_graph(g, files.starts, static_cast<int>(p));
        irgl::detail::sort_lists(want.local);
        const irgl::PartGraph got = irgl::read_part(files, static_cast<int>(p));
        bad += got.first != want.first || got.masters != want.masters || got.mirrors != want.mirrors;
        bad += got.local.row_start != want.local.row_start || got.local.edge_dst != want.local.edge_dst;
        bad += got.local.edge_data != want.local.edge_data;
      }
      EXPECT_EQ(bad, 0ull);
      remove_parts(dir);
    }
  }
}

TEST(the_generators_record_says_what_the_parts_are) {
  using irgl::detail::json_true;
  EXPECT(json_true("{\"symmetrize\": true}", "symmetrize"));
  EXPECT(json_true("{\"symmetrize\"\n  :true}", "symmetrize"));
  EXPECT(!json_true("{\"symmetrize\": false}", "symmetrize"));
  EXPECT(!json_true("{\"no_symmetrize\": true, \"symmetrize\": null}", "symmetrize"));
  const irgl::HostGraph g = ring_with_chords(100, false);
  for (const char* flags : {"\"symmetrize\": false, \"drop_self_loops\": true", "\"dedup\": true"}) {
    const std::string dir = folder("flags");
    write_parts(dir, g, 2, flags);
    irgl::PartFiles files;
    (void)irgl::load_input(dir, files);
    std::string why;
    EXPECT(!irgl::input_is_symmetric(g, files, why));
    EXPECT(irgl_test::contains(why, "symmetric"));
    EXPECT(!irgl::input_is_simple(g, files, why));
    remove_parts(dir);
  }
  {
    // `graph partition -o` records what it found of the graph, not how it was generated.
    const std::string dir = folder("facts");
    write_parts(dir, g, 2, "");
    const std::string text = "{\"nodes\": " + std::to_string(g.nnodes) + ", \"edges\": " + std::to_string(g.nedges) +
                             ", \"symmetric\": true, \"simple\": true, \"generated\": {\"partitioned\": \"g.gr\"}}";
    write_file(dir + "/parts.json", text.data(), text.size());
    irgl::PartFiles files;
    (void)irgl::load_input(dir, files);
    std::string why;
    EXPECT(irgl::input_is_symmetric(g, files, why) && irgl::input_is_simple(g, files, why));
    remove_parts(dir);
  }
  // A .gr file is read whole, its checks on its edges.
  irgl::PartFiles files;
  std::string error, why;
  const std::string gr = folder("whole") + ".gr";
  EXPECT(irgl::write_gr(gr, g, error));
  const irgl::HostGraph whole = irgl::load_input(gr, files);
  EXPECT_EQ(files.parts(), 0);
  EXPECT(whole.edge_dst == g.edge_dst);
  EXPECT(irgl::input_is_symmetric(whole, files, why));
  std::remove(gr.c_str());
}

TEST(bad_folders_are_errors_that_name_the_file) {
  const irgl::HostGraph g = ring_with_chords(500, true);
  struct Case {
    const char* name;
    const char* says;
  };
  for (const Case c : {Case{"short-mirrors", "part-1.mirrors"}, Case{"no-sizes", "expected the graph's `nodes`"},
                       Case{"wrong-nodes", "but its parts hold"}, Case{"no-part-0", "part-0.gr: cannot open"},
                       Case{"one-gpu", "is a folder of parts"}}) {
    const std::string dir = folder(c.name);
    const std::string name = c.name;
    write_parts(dir, g, 3, "", name != "no-sizes");
    if (name == "short-mirrors") truncate((dir + "/part-1.mirrors").c_str(), 6);
    if (name == "wrong-nodes") {
      const std::string text = "{\"nodes\": 7, \"edges\": " + std::to_string(g.nedges) + "}";
      write_file(dir + "/parts.json", text.data(), text.size());
    }
    if (name == "no-part-0") std::remove((dir + "/part-0.gr").c_str());
    const irgl_test::ChildResult r = irgl_test::run_child((name == "one-gpu" ? "load_gr '" : "load '") + dir + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT(irgl_test::contains(r.output, c.says));
    if (!irgl_test::contains(r.output, c.says)) std::fprintf(stderr, "%s: %s\n", c.name, r.output.c_str());
    remove_parts(dir);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The child of bad_folders_are_errors_that_name_the_file: one load, which exits 1 on an error.
  if (argc == 3) {
    const std::string what = argv[1];
    irgl::PartFiles files;
    const irgl::HostGraph g = what == "load" ? irgl::load_input(argv[2], files) : irgl::load_gr(argv[2]);
    std::printf("loaded %u nodes\n", g.nnodes);
    return 0;
  }
  RUN(a_folder_gives_the_whole_graphs_offsets_and_each_part);
  RUN(the_generators_record_says_what_the_parts_are);
  RUN(bad_folders_are_errors_that_name_the_file);
  return irgl_test::finish();
}
