#pragma once
// libmicrohttpd, loaded when `engine serve` starts rather than when any engine process does: it pulls in GnuTLS and
// a dozen more shared libraries that `engine run` never needs (the same reason net/ loads libcurl late). Internal
// to server/: the one place the HTTP server library is named.
#include <microhttpd.h>

namespace engine::server {

struct MhdApi {
  MHD_Daemon* (*start_daemon)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void* apc_cls,
                              MHD_AccessHandlerCallback dh, void* dh_cls, ...);
  void (*stop_daemon)(MHD_Daemon*);
  MHD_socket (*quiesce_daemon)(MHD_Daemon*);
  MHD_Result (*run)(MHD_Daemon*);
  MHD_Result (*get_timeout)(MHD_Daemon*, MHD_UNSIGNED_LONG_LONG* timeout);
  const MHD_DaemonInfo* (*get_daemon_info)(MHD_Daemon*, MHD_DaemonInfoType, ...);
  const MHD_ConnectionInfo* (*get_connection_info)(MHD_Connection*, MHD_ConnectionInfoType, ...);
  int (*get_connection_values)(MHD_Connection*, MHD_ValueKind, MHD_KeyValueIterator iterator, void* cls);
  const char* (*lookup_connection_value)(MHD_Connection*, MHD_ValueKind, const char* key);
  MHD_Result (*queue_response)(MHD_Connection*, unsigned int status, MHD_Response*);
  void (*suspend_connection)(MHD_Connection*);
  void (*resume_connection)(MHD_Connection*);
  MHD_Response* (*create_response_from_buffer)(size_t size, void* buffer, MHD_ResponseMemoryMode mode);
  MHD_Response* (*create_response_from_callback)(uint64_t size, size_t block_size, MHD_ContentReaderCallback crc,
                                                 void* crc_cls, MHD_ContentReaderFreeCallback crfc);
  MHD_Result (*add_response_header)(MHD_Response*, const char* header, const char* content);
  void (*destroy_response)(MHD_Response*);
};

// Loads libmicrohttpd once (thread-safe); throws Error "serve.library" when it cannot be loaded.
const MhdApi& mhd_api();

}  // namespace engine::server
