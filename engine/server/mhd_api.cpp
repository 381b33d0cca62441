#include "engine/server/mhd_api.h"

#include <dlfcn.h>

#include <string>

#include "engine/core/error.h"

namespace engine::server {
namespace {

class LoadedMhd {
 public:
  LoadedMhd() {
    lib_ = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      error_ = std::string("cannot load libmicrohttpd (install libmicrohttpd12): ") + dlerror();
      return;
    }
    loaded_ = find(api_.start_daemon, "MHD_start_daemon") && find(api_.stop_daemon, "MHD_stop_daemon") &&
              find(api_.quiesce_daemon, "MHD_quiesce_daemon") && find(api_.run, "MHD_run") &&
              find(api_.get_timeout, "MHD_get_timeout") && find(api_.get_daemon_info, "MHD_get_daemon_info") &&
              find(api_.get_connection_info, "MHD_get_connection_info") &&
              find(api_.get_connection_values, "MHD_get_connection_values") &&
              find(api_.lookup_connection_value, "MHD_lookup_connection_value") &&
              find(api_.queue_response, "MHD_queue_response") &&
              find(api_.suspend_connection, "MHD_suspend_connection") &&
              find(api_.resume_connection, "MHD_resume_connection") &&
              find(api_.create_response_from_buffer, "MHD_create_response_from_buffer") &&
              find(api_.create_response_from_callback, "MHD_create_response_from_callback") &&
              find(api_.add_response_header, "MHD_add_response_header") &&
              find(api_.destroy_response, "MHD_destroy_response");
  }
  // Never unloaded: a daemon stopped at exit may still be inside the library.
  ~LoadedMhd() = default;
  LoadedMhd(const LoadedMhd&) = delete;
  LoadedMhd& operator=(const LoadedMhd&) = delete;

  const MhdApi& api() const {
    if (!loaded_) throw Error(ErrorKind::ServeLibrary, error_);
    return api_;
  }

 private:
  template <class F>
  bool find(F& fn, const char* name) {
    void* symbol = dlsym(lib_, name);
    if (!symbol) error_ = std::string("libmicrohttpd lacks ") + name;
    fn = reinterpret_cast<F>(symbol);
    return symbol != nullptr;
  }

  void* lib_ = nullptr;
  MhdApi api_{};
  bool loaded_ = false;
  std::string error_;
};

}  // namespace

const MhdApi& mhd_api() {
  static const LoadedMhd loaded;
  return loaded.api();
}

}  // namespace engine::server
