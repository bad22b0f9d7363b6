// irgl/file.cuh -- output files written whole or not at all.
//
//   irgl::WholeFile f(path);          // opens PATH's temporary: DIR/.NAME.PID.tmp
//   if (!f.ok()) ...                  // errno says why
//   std::fwrite(..., f.get());
//   if (!f.commit()) ...              // flushed, synced, renamed over PATH; errno says why
//
// A reader (irglc verify, a second run) sees the old file or the new one, never a part: a
// run that fails, is killed or fills the disk while writing leaves PATH as it was. A
// WholeFile destroyed without a commit removes its temporary; one abandoned by exit() (irgl::fatal)
// leaves it, under a hidden name that no reader takes for an output.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

namespace irgl {

class WholeFile {
 public:
  explicit WholeFile(const std::string& path) : path_(path), tmp_(temp_name(path)) {
    f_ = std::fopen(tmp_.c_str(), "wb");
  }
  ~WholeFile() { discard(); }
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;

  bool ok() const { return f_ != nullptr; }
  std::FILE* get() const { return f_; }
  const std::string& temp_path() const { return tmp_; }

  /// Flushes the temporary to disk and renames it over the path. False (errno set, the
  /// temporary removed) if any write failed or the rename did.
  bool commit() {
    if (f_ == nullptr) return false;
    bool good = std::fflush(f_) == 0 && std::ferror(f_) == 0 && fsync(fileno(f_)) == 0;
    int saved = errno;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (good && !closed) saved = errno;
    good = good && closed && std::rename(tmp_.c_str(), path_.c_str()) == 0;
    if (!good) {
      if (closed) saved = errno != 0 ? errno : saved;
      std::remove(tmp_.c_str());
      errno = saved;
      return false;
    }
    committed_ = true;
    return true;
  }

  /// Closes and removes the temporary (nothing at the path changes).
  void discard() {
    if (f_ != nullptr) {
      std::fclose(f_);
      f_ = nullptr;
    }
    if (!committed_) std::remove(tmp_.c_str());
    committed_ = true;
  }

 private:
  /// DIR/.NAME.PID.tmp beside DIR/NAME.
  static std::string temp_name(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    return dir + "." + name + "." + std::to_string(static_cast<long>(getpid())) + ".tmp";
  }

  std::string path_;
  std::string tmp_;
  std::FILE* f_ = nullptr;
  bool committed_ = false;
};

}  // namespace irgl
