// A granted request's round trip against bare libcurl's on the same loopback server: `engine.http.request` from a
// Lua tool (the grant checked, the URL parsed and rebuilt, the token added, the response masked and made a Lua
// table), HttpAccess alone (the same without Lua), and one bare curl handle on one kept-alive connection (the
// floor). Interleaved rounds; medians per call and their ratios to the floor.
//   build/bench/grant_http_bench [calls=2000] [rounds=5]
#include <curl/curl.h>
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/timing.h"
#include "engine/tools/lua/lua_tool.h"

using namespace engine;
using namespace engine::tools;

namespace {

const char* kBody = R"({"id":42,"title":"Parcel arrived damaged","status":"open"})";
const std::string kToken = "Bearer bench-token-0123456789";

class TicketServer {
 public:
  TicketServer() {
    server_.Get("/v1/tickets/42", [](const httplib::Request& req, httplib::Response& res) {
      if (req.get_header_value("Authorization") != kToken) res.status = 401;
      res.set_content(kBody, "application/json");
    });
    server_.set_keep_alive_max_count(1'000'000);
    server_.set_tcp_nodelay(true);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~TicketServer() {
    server_.stop();
    thread_.join();
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1/"; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

size_t keep(char* p, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(p, size * n);
  return size * n;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = argc > 1 ? std::atoi(argv[1]) : 2000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  TicketServer server;

  HttpGrant grant;
  grant.written = server.base();
  grant.prefix = *net::parse_url(grant.written);
  grant.methods = {"GET"};
  grant.headers = {{"Authorization", kToken}};
  Capabilities caps = Capabilities::granted(Grants{{grant}, {}}, {kToken});

  auto dir = std::filesystem::temp_directory_path() / ("grant-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ticket.lua") << "return function(id)\n  local r = engine.http.request{url = 'tickets/' .. id}\n"
                                       "  return r.json.status\nend\n";
  lua::LuaToolConfig cfg;
  cfg.file = dir / "ticket.lua";
  cfg.display_path = "ticket.lua";
  cfg.limits.timeout = std::chrono::seconds(30);
  cfg.capabilities = caps;
  auto tool = lua::LuaTool::load(cfg);
  auto instance = tool->instantiate({});

  CURL* c = curl_easy_init();
  curl_slist* headers = curl_slist_append(nullptr, ("Authorization: " + kToken).c_str());
  std::string url = server.base() + "tickets/42", body;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);

  auto per_call = [&](auto&& one) {
    return bench::median_us(1, [&] {
             for (int i = 0; i < calls; ++i) one();
           }) / calls;
  };
  auto lua_call = [&] {
    if (instance->invoke("42").text() != "open") std::abort();
  };
  auto access_call = [&] {
    auto r = caps.http->request(HttpCall{"GET", "tickets/42"}, std::chrono::steady_clock::now() + std::chrono::seconds(30), nullptr);
    if (r.status != 200) std::abort();
  };
  auto floor_call = [&] {
    body.clear();
    if (curl_easy_perform(c) != CURLE_OK || body.size() < 10) std::abort();
  };
  lua_call(), access_call(), floor_call();  // connections made, caches warm
  std::vector<double> lua_us, access_us, floor_us;
  for (int r = 0; r < rounds; ++r) {
    floor_us.push_back(per_call(floor_call));
    access_us.push_back(per_call(access_call));
    lua_us.push_back(per_call(lua_call));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  double f = median(floor_us), a = median(access_us), l = median(lua_us);
  std::printf("granted GET round trip, loopback server answering at once, %d calls x %d rounds (median per call):\n",
              calls, rounds);
  std::printf("  bare libcurl, one kept-alive handle (the floor)   %7.1f us\n", f);
  std::printf("  HttpAccess::request (grant checked, token added)  %7.1f us   %.2fx the floor\n", a, a / f);
  std::printf("  engine.http.request from a Lua tool call          %7.1f us   %.2fx the floor\n", l, l / f);
  curl_slist_free_all(headers);
  curl_easy_cleanup(c);
  std::filesystem::remove_all(dir);
}
