#include "engine/tools/lua/lua_patterns.h"

#include <lua.hpp>

#include <cctype>
#include <algorithm>
#include <cstring>
#include <string>

#include "engine/core/limits.h"
#include "engine/tools/lua/lua_sandbox.h"

namespace engine::tools::lua {
namespace {

constexpr ptrdiff_t kCapUnfinished = -1;
constexpr ptrdiff_t kCapPosition = -2;
constexpr uint64_t kChargeEvery = 1024;
const char kSpecials[] = "^$*+?.([%-";

struct Matcher {
  lua_State* L;
  LuaSandbox* sandbox;
  const char* src_init;
  const char* src_end;
  const char* p_end;
  int level = 0;
  int depth = limits::kLuaPatternRecursion;
  uint64_t steps = 0;
  struct {
    const char* init;
    ptrdiff_t len;
  } capture[limits::kLuaPatternCaptures];

  void reset() {
    level = 0;
    depth = limits::kLuaPatternRecursion;
  }
  void step(uint64_t n = 1) {
    steps += n;
    if (steps >= kChargeEvery) {
      uint64_t s = steps;
      steps = 0;
      sandbox->charge(L, s);
    }
  }

  static bool class_matches(unsigned char c, unsigned char cl) {
    bool res;
    switch (std::tolower(cl)) {
      case 'a': res = std::isalpha(c); break;
      case 'c': res = std::iscntrl(c); break;
      case 'd': res = std::isdigit(c); break;
      case 'g': res = std::isgraph(c); break;
      case 'l': res = std::islower(c); break;
      case 'p': res = std::ispunct(c); break;
      case 's': res = std::isspace(c); break;
      case 'u': res = std::isupper(c); break;
      case 'w': res = std::isalnum(c); break;
      case 'x': res = std::isxdigit(c); break;
      case 'z': res = c == 0; break;  // deprecated in Lua 5.2, still in 5.4's library
      default: return cl == c;
    }
    return std::isupper(cl) ? !res : res;
  }

  // p points at '[', ec at the closing ']'.
  static bool bracket_matches(unsigned char c, const char* p, const char* ec) {
    bool sig = true;
    if (p[1] == '^') {
      sig = false;
      ++p;
    }
    while (++p < ec) {
      if (*p == '%') {
        ++p;
        if (class_matches(c, static_cast<unsigned char>(*p))) return sig;
      } else if (p[1] == '-' && p + 2 < ec) {
        p += 2;
        if (static_cast<unsigned char>(p[-2]) <= c && c <= static_cast<unsigned char>(*p)) return sig;
      } else if (static_cast<unsigned char>(*p) == c) {
        return sig;
      }
    }
    return !sig;
  }

  const char* class_end(const char* p) {
    char c = *p++;
    if (c == '%') {
      if (p >= p_end) luaL_error(L, "malformed pattern (ends with '%%')");
      return p + 1;
    }
    if (c == '[') {
      if (*p == '^') ++p;
      do {  // the first ']' right after '[' or '[^' is a member, not the end
        if (p >= p_end) luaL_error(L, "malformed pattern (missing ']')");
        if (*(p++) == '%' && p < p_end) ++p;
      } while (*p != ']');
      return p + 1;
    }
    return p;
  }

  bool single_match(const char* s, const char* p, const char* ep) const {
    if (s >= src_end) return false;
    unsigned char c = static_cast<unsigned char>(*s);
    switch (*p) {
      case '.': return true;
      case '%': return class_matches(c, static_cast<unsigned char>(p[1]));
      case '[': return bracket_matches(c, p, ep - 1);
      default: return static_cast<unsigned char>(*p) == c;
    }
  }

  const char* match_balance(const char* s, const char* p) {
    if (p + 1 >= p_end) luaL_error(L, "malformed pattern (missing arguments to '%%b')");
    if (s >= src_end || *s != *p) return nullptr;
    char b = *p, e = p[1];
    int open = 1;
    while (++s < src_end) {
      step();
      if (*s == e) {
        if (--open == 0) return s + 1;
      } else if (*s == b) {
        ++open;
      }
    }
    return nullptr;
  }

  const char* max_expand(const char* s, const char* p, const char* ep) {
    ptrdiff_t i = 0;
    while (single_match(s + i, p, ep)) ++i;
    step(static_cast<uint64_t>(i) / 8 + 1);
    while (i >= 0) {  // try the longest repetition first, then back off one at a time
      if (const char* r = match(s + i, ep + 1)) return r;
      --i;
    }
    return nullptr;
  }

  const char* min_expand(const char* s, const char* p, const char* ep) {
    for (;;) {
      if (const char* r = match(s, ep + 1)) return r;
      if (!single_match(s, p, ep)) return nullptr;
      ++s;
    }
  }

  const char* start_capture(const char* s, const char* p, ptrdiff_t what) {
    if (level >= limits::kLuaPatternCaptures) luaL_error(L, "too many captures");
    capture[level].init = s;
    capture[level].len = what;
    ++level;
    const char* r = match(s, p);
    if (!r) --level;
    return r;
  }

  const char* end_capture(const char* s, const char* p) {
    int l = -1;
    for (int i = level - 1; i >= 0; --i)
      if (capture[i].len == kCapUnfinished) {
        l = i;
        break;
      }
    if (l < 0) luaL_error(L, "invalid pattern capture");
    capture[l].len = s - capture[l].init;
    const char* r = match(s, p);
    if (!r) capture[l].len = kCapUnfinished;
    return r;
  }

  int check_capture(char c) {
    int l = c - '1';
    if (l < 0 || l >= level || capture[l].len == kCapUnfinished) luaL_error(L, "invalid capture index %%%d", l + 1);
    return l;
  }

  const char* match_capture(const char* s, char c) {
    int l = check_capture(c);
    size_t len = static_cast<size_t>(capture[l].len);
    if (static_cast<size_t>(src_end - s) >= len && std::memcmp(capture[l].init, s, len) == 0) return s + len;
    return nullptr;
  }

  const char* match(const char* s, const char* p) {
    if (depth-- == 0) luaL_error(L, "pattern too complex");
    step();
    const char* r = match_body(s, p);
    ++depth;
    return r;
  }

  const char* match_body(const char* s, const char* p) {
    for (;;) {
      if (p == p_end) return s;
      switch (*p) {
        case '(':
          if (p + 1 < p_end && p[1] == ')') return start_capture(s, p + 2, kCapPosition);
          return start_capture(s, p + 1, kCapUnfinished);
        case ')': return end_capture(s, p + 1);
        case '$':
          if (p + 1 == p_end) return s == src_end ? s : nullptr;
          break;
        case '%':
          if (p + 1 < p_end && p[1] == 'b') {
            s = match_balance(s, p + 2);
            if (!s) return nullptr;
            p += 4;
            continue;
          }
          if (p + 1 < p_end && p[1] == 'f') {
            p += 2;
            if (p >= p_end || *p != '[') luaL_error(L, "missing '[' after '%%f' in pattern");
            const char* ep = class_end(p);
            unsigned char prev = s == src_init ? '\0' : static_cast<unsigned char>(s[-1]);
            unsigned char cur = s < src_end ? static_cast<unsigned char>(*s) : '\0';
            if (!bracket_matches(prev, p, ep - 1) && bracket_matches(cur, p, ep - 1)) {
              p = ep;
              continue;
            }
            return nullptr;
          }
          if (p + 1 < p_end && std::isdigit(static_cast<unsigned char>(p[1]))) {
            s = match_capture(s, p[1]);
            if (!s) return nullptr;
            p += 2;
            continue;
          }
          break;
        default: break;
      }
      const char* ep = class_end(p);
      char q = ep < p_end ? *ep : '\0';
      if (!single_match(s, p, ep)) {
        if (q == '*' || q == '?' || q == '-') {  // the item may match zero times
          p = ep + 1;
          continue;
        }
        return nullptr;
      }
      switch (q) {
        case '?':
          if (const char* r = match(s + 1, ep + 1)) return r;
          p = ep + 1;
          continue;
        case '+': return max_expand(s + 1, p, ep);
        case '*': return max_expand(s, p, ep);
        case '-': return min_expand(s, p, ep);
        default:
          ++s;
          p = ep;
          continue;
      }
    }
  }

  // Pushes capture i (or the whole match when there are no captures).
  void push_capture(int i, const char* s, const char* e) {
    if (i >= level) {
      if (i != 0) luaL_error(L, "invalid capture index %%%d", i + 1);
      lua_pushlstring(L, s, static_cast<size_t>(e - s));
      return;
    }
    ptrdiff_t len = capture[i].len;
    if (len == kCapUnfinished) luaL_error(L, "unfinished capture");
    if (len == kCapPosition) lua_pushinteger(L, capture[i].init - src_init + 1);
    else lua_pushlstring(L, capture[i].init, static_cast<size_t>(len));
  }
  int push_captures(const char* s, const char* e, bool whole_if_none) {
    int n = (level == 0 && whole_if_none) ? 1 : level;
    luaL_checkstack(L, n, "too many captures");
    for (int i = 0; i < n; ++i) push_capture(i, s, e);
    return n;
  }
};

Matcher make_matcher(lua_State* L, const char* s, size_t ls, const char* p, size_t lp) {
  Matcher m{};
  m.L = L;
  m.sandbox = &sandbox_of(L);
  m.src_init = s;
  m.src_end = s + ls;
  m.p_end = p + lp;
  m.reset();
  return m;
}

size_t start_position(lua_Integer pos, size_t len) {
  if (pos > 0) return static_cast<size_t>(pos);
  if (pos == 0) return 1;
  if (pos < -static_cast<lua_Integer>(len)) return 1;
  return len + static_cast<size_t>(pos) + 1;
}

// A plain substring search that charges its comparisons, so even a quadratic worst case stays in budget.
const char* plain_find(Matcher& m, const char* s, size_t ls, const char* p, size_t lp) {
  if (lp == 0) return s;
  if (lp > ls) return nullptr;
  const char* end = s + ls - lp + 1;
  for (const char* at = s; at < end; ++at) {
    at = static_cast<const char*>(std::memchr(at, *p, static_cast<size_t>(end - at)));
    if (!at) return nullptr;
    m.step(lp / 64 + 1);
    if (std::memcmp(at, p, lp) == 0) return at;
  }
  return nullptr;
}

int find_aux(lua_State* L, bool find) {
  size_t ls = 0, lp = 0;
  const char* s = luaL_checklstring(L, 1, &ls);
  const char* p = luaL_checklstring(L, 2, &lp);
  size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) {
    luaL_pushfail(L);
    return 1;
  }
  Matcher m = make_matcher(L, s, ls, p, lp);
  // A pattern may hold NUL bytes, so its specials are looked for over its whole length, not up to the first NUL.
  bool plain = std::find_first_of(p, p + lp, kSpecials, kSpecials + sizeof kSpecials - 1) == p + lp;
  if (find && (lua_toboolean(L, 4) || plain)) {
    if (const char* at = plain_find(m, s + init, ls - init, p, lp)) {
      lua_pushinteger(L, at - s + 1);
      lua_pushinteger(L, static_cast<lua_Integer>(at - s + lp));
      return 2;
    }
    luaL_pushfail(L);
    return 1;
  }
  const char* s1 = s + init;
  bool anchor = lp > 0 && *p == '^';
  if (anchor) ++p, --lp;
  m.p_end = p + lp;
  do {
    m.reset();
    if (const char* e = m.match(s1, p)) {
      if (find) {
        lua_pushinteger(L, s1 - s + 1);
        lua_pushinteger(L, e - s);
        return m.push_captures(nullptr, nullptr, false) + 2;
      }
      return m.push_captures(s1, e, true);
    }
  } while (s1++ < m.src_end && !anchor);
  luaL_pushfail(L);
  return 1;
}

int str_find(lua_State* L) { return find_aux(L, true); }
int str_match(lua_State* L) { return find_aux(L, false); }

struct GmatchState {
  size_t pos;        // next start offset
  ptrdiff_t last;    // end offset of the last match, or -1
};

int gmatch_next(lua_State* L) {
  size_t ls = 0, lp = 0;
  const char* s = lua_tolstring(L, lua_upvalueindex(1), &ls);
  const char* p = lua_tolstring(L, lua_upvalueindex(2), &lp);
  auto* st = static_cast<GmatchState*>(lua_touserdata(L, lua_upvalueindex(3)));
  Matcher m = make_matcher(L, s, ls, p, lp);
  for (const char* src = s + st->pos; src <= m.src_end; ++src) {
    m.reset();
    const char* e = m.match(src, p);
    if (e && e - s != st->last) {
      st->pos = static_cast<size_t>(e - s);
      st->last = e - s;
      return m.push_captures(src, e, true);
    }
    m.step();
  }
  st->pos = ls + 1;
  return 0;
}

int str_gmatch(lua_State* L) {
  size_t ls = 0;
  luaL_checklstring(L, 1, &ls);
  luaL_checkstring(L, 2);
  size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
  lua_settop(L, 2);
  auto* st = static_cast<GmatchState*>(lua_newuserdatauv(L, sizeof(GmatchState), 0));
  st->pos = init > ls ? ls + 1 : init;
  st->last = -1;
  lua_pushcclosure(L, gmatch_next, 3);
  return 1;
}

// gsub's result lives outside Lua's allocator until it is pushed, so every append is held to the memory limit
// before it happens: a replacement of many "%0" would otherwise grow by gigabytes between two checks.
void append(Matcher& m, std::string& out, const char* data, size_t n) {
  if (n > m.sandbox->limits().memory_bytes - std::min(out.size(), m.sandbox->limits().memory_bytes))
    m.sandbox->fail_memory(m.L);
  m.step(n / 64);
  out.append(data, n);
}

void add_replacement(Matcher& m, std::string& out, const char* s, const char* e, int repl_type) {
  lua_State* L = m.L;
  if (repl_type == LUA_TSTRING || repl_type == LUA_TNUMBER) {
    size_t l = 0;
    const char* r = lua_tolstring(L, 3, &l);
    for (size_t i = 0; i < l; ++i) {
      if (r[i] != '%') {  // the literal text up to the next '%' in one append
        const void* pct = std::memchr(r + i, '%', l - i);
        size_t run = pct ? static_cast<size_t>(static_cast<const char*>(pct) - (r + i)) : l - i;
        append(m, out, r + i, run);
        i += run - 1;
        continue;
      }
      ++i;
      if (i < l && r[i] == '%') append(m, out, "%", 1);
      else if (i < l && std::isdigit(static_cast<unsigned char>(r[i]))) {
        if (r[i] == '0') append(m, out, s, static_cast<size_t>(e - s));
        else {
          m.push_capture(r[i] - '1', s, e);
          size_t cl = 0;
          const char* c = luaL_tolstring(L, -1, &cl);
          append(m, out, c, cl);
          lua_pop(L, 2);
        }
      } else {
        luaL_error(L, "invalid use of '%%' in replacement string");
      }
    }
    return;
  }
  if (repl_type == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    int n = m.push_captures(s, e, true);
    lua_call(L, n, 1);
  } else {
    m.push_capture(0, s, e);
    lua_gettable(L, 3);
  }
  if (!lua_toboolean(L, -1)) {  // nil or false keeps the original text
    lua_pop(L, 1);
    append(m, out, s, static_cast<size_t>(e - s));
    return;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  size_t l = 0;
  const char* v = lua_tolstring(L, -1, &l);
  append(m, out, v, l);
  lua_pop(L, 1);
}

int str_gsub(lua_State* L) {
  size_t ls = 0, lp = 0;
  const char* src = luaL_checklstring(L, 1, &ls);
  const char* p = luaL_checklstring(L, 2, &lp);
  int tr = lua_type(L, 3);
  lua_Integer max_s = luaL_optinteger(L, 4, static_cast<lua_Integer>(ls) + 1);
  luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                   "string/function/table");
  bool anchor = lp > 0 && *p == '^';
  if (anchor) ++p, --lp;
  Matcher m = make_matcher(L, src, ls, p, lp);
  std::string out;
  const char* s = src;
  const char* last = nullptr;
  lua_Integer n = 0;
  while (n < max_s) {
    m.reset();
    const char* e = m.match(s, p);
    if (e && e != last) {
      ++n;
      add_replacement(m, out, s, e, tr);
      s = last = e;
    } else if (s < m.src_end) {
      if (out.size() >= m.sandbox->limits().memory_bytes) m.sandbox->fail_memory(L);
      out += *s++;
    } else {
      break;
    }
    if (anchor) break;
  }
  append(m, out, s, static_cast<size_t>(m.src_end - s));
  lua_pushlstring(L, out.data(), out.size());
  lua_pushinteger(L, n);
  return 2;
}

}  // namespace

void install_budgeted_patterns(lua_State* L, int t) {
  static const luaL_Reg fns[] = {{"find", str_find}, {"match", str_match}, {"gmatch", str_gmatch}, {"gsub", str_gsub}};
  for (const auto& f : fns) {
    lua_pushcfunction(L, f.func);
    lua_setfield(L, t, f.name);
  }
}

}  // namespace engine::tools::lua
