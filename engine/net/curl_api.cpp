#include "engine/net/curl_api.h"

#include <dlfcn.h>

#include <string>

#include "engine/core/error.h"

namespace engine::net {
namespace {

// The loaded library and its initialisation, for the whole life of the process.
class LoadedCurl {
 public:
  LoadedCurl() {
    lib_ = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      error_ = std::string("cannot load libcurl (install libcurl4): ") + dlerror();
      return;
    }
    bool ok = find(api_.global_init, "curl_global_init") &&
              find(api_.easy_init, "curl_easy_init") && find(api_.easy_cleanup, "curl_easy_cleanup") &&
              find(api_.easy_reset, "curl_easy_reset") && find(api_.easy_setopt, "curl_easy_setopt") &&
              find(api_.easy_perform, "curl_easy_perform") && find(api_.easy_getinfo, "curl_easy_getinfo") &&
              find(api_.easy_strerror, "curl_easy_strerror") && find(api_.slist_append, "curl_slist_append") &&
              find(api_.slist_free_all, "curl_slist_free_all") && find(api_.multi_init, "curl_multi_init") &&
              find(api_.multi_cleanup, "curl_multi_cleanup") &&
              find(api_.multi_add_handle, "curl_multi_add_handle") &&
              find(api_.multi_remove_handle, "curl_multi_remove_handle") &&
              find(api_.multi_perform, "curl_multi_perform") && find(api_.multi_poll, "curl_multi_poll") &&
              find(api_.multi_wakeup, "curl_multi_wakeup") && find(api_.multi_info_read, "curl_multi_info_read") &&
              find(api_.multi_strerror, "curl_multi_strerror") && find(api_.multi_timeout, "curl_multi_timeout") &&
              find(api_.multi_setopt, "curl_multi_setopt") && find(api_.multi_socket_action, "curl_multi_socket_action");
    // curl_global_init is not thread-safe; doing it once, before any handle, is what libcurl asks.
    if (ok) initialised_ = api_.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (ok && !initialised_) error_ = "libcurl failed to initialise";
  }
  // Left loaded until the process ends: an executor that outlives this object (a static one, say) still holds curl
  // handles, and curl_global_cleanup or dlclose under them would pull the library from beneath their destructors.
  ~LoadedCurl() = default;
  LoadedCurl(const LoadedCurl&) = delete;
  LoadedCurl& operator=(const LoadedCurl&) = delete;

  const CurlApi& api() const {
    if (!initialised_) throw Error(ErrorKind::HttpTransport, error_);
    return api_;
  }

 private:
  template <class F>
  bool find(F& fn, const char* name) {
    void* symbol = dlsym(lib_, name);
    if (!symbol) error_ = std::string("libcurl lacks ") + name;
    fn = reinterpret_cast<F>(symbol);
    return symbol != nullptr;
  }

  void* lib_ = nullptr;
  CurlApi api_{};
  bool initialised_ = false;
  std::string error_;
};

}  // namespace

const CurlApi& curl_api() {
  static const LoadedCurl curl;  // thread-safe initialisation, once
  return curl.api();
}

}  // namespace engine::net
