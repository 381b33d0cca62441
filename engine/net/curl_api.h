#pragma once
// libcurl, loaded when the first HTTP request is made rather than when the engine starts: linking it pulls in some
// forty shared libraries (TLS, HTTP/2, LDAP, SSH, Kerberos...), which cost every `engine` process about 5 ms of
// start-up, including the many that never leave the scripted provider. Internal to net/.
#define CURL_DISABLE_TYPECHECK  // the typecheck macros would call the linked symbols, which are not linked
#include <curl/curl.h>

namespace engine::net {

struct CurlApi {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  void (*easy_reset)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
  // The multi interface, so a transfer can be woken and abandoned when its run is cancelled: curl_easy_perform
  // would only look up about once a second.
  CURLM* (*multi_init)();
  CURLMcode (*multi_cleanup)(CURLM*);
  CURLMcode (*multi_add_handle)(CURLM*, CURL*);
  CURLMcode (*multi_remove_handle)(CURLM*, CURL*);
  CURLMcode (*multi_perform)(CURLM*, int* running);
  CURLMcode (*multi_poll)(CURLM*, curl_waitfd*, unsigned, int timeout_ms, int* numfds);
  CURLMcode (*multi_wakeup)(CURLM*);
  CURLMsg* (*multi_info_read)(CURLM*, int* left);
  const char* (*multi_strerror)(CURLMcode);
  CURLMcode (*multi_timeout)(CURLM*, long* timeout_ms);
  // The event-driven side of the multi interface, for the transport of runs on fibers (transport.h).
  CURLMcode (*multi_setopt)(CURLM*, CURLMoption, ...);
  CURLMcode (*multi_socket_action)(CURLM*, curl_socket_t, int ev_bitmask, int* running);
};

// Loads libcurl and runs curl_global_init once, the first time it is called (thread-safe); throws Error
// "http.transport" when libcurl cannot be loaded.
const CurlApi& curl_api();

}  // namespace engine::net
