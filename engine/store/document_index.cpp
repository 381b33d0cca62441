#include "engine/store/document_index.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "engine/core/error.h"

namespace engine::store {
namespace {

// Bumped when the tables or the chunking change: an older index is made again.
constexpr const char* kIndexVersion = "3";
constexpr size_t kChunkLines = 30;
constexpr size_t kChunkBytes = 2000;
// A paragraph this long ends its chunk; shorter ones join the next, so a page of short paragraphs is a few chunks,
// not dozens (a query ranks every chunk it matches: fewer chunks, faster queries).
constexpr size_t kParagraphBytes = 600;
// How many chunk matches a query ranks, its terms' matches added up, before its commonest terms are left out.
constexpr int64_t kRankBudget = 2000;

struct Chunk {
  int64_t line;
  std::string text;
};

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

bool fence(std::string_view line) {
  size_t start = line.find_first_not_of(' ');
  if (start == std::string_view::npos || start > 3) return false;
  line.remove_prefix(start);
  return line.starts_with("```") || line.starts_with("~~~");
}

// Sections and long paragraphs: a chunk ends before a heading, at a blank line once it holds kParagraphBytes, or at
// its bounds. A '#' in a fenced block is a comment of the code shown (a shell's, YAML's), not a heading.
std::vector<Chunk> chunks_of(const std::string& text) {
  std::vector<Chunk> out;
  Chunk current{0, ""};
  size_t lines = 0;
  size_t pending_blanks = 0;
  auto close = [&] {
    if (!current.text.empty()) out.push_back(std::move(current));
    current = Chunk{0, ""};
    lines = 0;
    pending_blanks = 0;
  };
  int64_t number = 0;
  bool in_code = false;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    ++number;
    start = end + 1;
    if (blank(line)) {
      if (current.text.size() >= kParagraphBytes) close();
      else if (!current.text.empty()) ++pending_blanks;
      continue;
    }
    if (fence(line)) in_code = !in_code;
    else if (!in_code && line[0] == '#' && lines > 0) close();
    if (current.text.empty()) {
      current.line = number;
    } else {
      current.text.append(pending_blanks + 1, '\n');  // kept, so a hit's line can be counted within its chunk
      lines += pending_blanks;
    }
    pending_blanks = 0;
    current.text += line;
    if (++lines >= kChunkLines || current.text.size() >= kChunkBytes) close();
  }
  close();
  return out;
}

// A hit cites the line its snippet quotes: the snippet is the chunk's best window (the most of the query's terms),
// which may begin on a line holding one term (a table's header) before the passage holding them all. The line
// cited is the window's line with the most distinct terms (the first of equals), and the snippet starts there.
// `marked` is the window with its terms between \x01 and \x02 and \x03 for a cut: the chunk's own text between
// the cuts, so it is found in `text`.
DocumentHit hit_of(std::string path, int64_t chunk_line, const std::string& marked, const std::string& text,
                   double score) {
  std::string quoted;                    // the window, unmarked
  std::vector<size_t> line_starts{0};    // in `marked`, where each of the window's lines begins
  std::vector<std::set<std::string>> terms_on_line(1);
  size_t term_start = 0;
  for (size_t i = 0; i < marked.size(); ++i) {
    char c = marked[i];
    if (c == '\x01') {
      term_start = quoted.size();
    } else if (c == '\x02') {
      std::string term = quoted.substr(term_start);
      for (auto& t : term) t = static_cast<char>(std::tolower(static_cast<unsigned char>(t)));
      terms_on_line.back().insert(std::move(term));
    } else if (c != '\x03') {
      quoted += c;
      if (c == '\n') {
        line_starts.push_back(i + 1);
        terms_on_line.emplace_back();
      }
    }
  }
  size_t best = 0;
  for (size_t l = 1; l < terms_on_line.size(); ++l)
    if (terms_on_line[l].size() > terms_on_line[best].size()) best = l;
  size_t at = text.find(quoted);
  if (at == std::string::npos) at = 0, best = 0;  // not expected: the chunk's first line, the whole window
  DocumentHit hit{std::move(path), chunk_line, best > 0 ? "..." : "", score};
  hit.line += std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') +
              static_cast<int64_t>(best);
  for (size_t i = line_starts[best]; i < marked.size(); ++i) {  // one line, spaces collapsed, terms in [brackets]
    char c = marked[i];
    bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (c == '\x01') hit.snippet += '[';
    else if (c == '\x02') hit.snippet += ']';
    else if (c == '\x03') hit.snippet += "...";
    else if (!space) hit.snippet += c;
    else if (!hit.snippet.empty() && hit.snippet.back() != ' ') hit.snippet += ' ';
  }
  return hit;
}

}  // namespace

DocumentIndex::DocumentIndex(const std::string& file, const std::string& source) : db_(file) {
  db_.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  db_.exec(
      "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
      "CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, modified INTEGER, size INTEGER);"
      "CREATE TABLE IF NOT EXISTS chunk_place(id INTEGER PRIMARY KEY, path TEXT, line INTEGER);"
      "CREATE INDEX IF NOT EXISTS chunk_place_path ON chunk_place(path);"
      "CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(text, tokenize='porter unicode61 remove_diacritics 2');");
  auto read = db_.prepare("SELECT value FROM meta WHERE key = ?");
  auto value_of = [&](const char* key) {
    read.reset();
    read.bind(1, std::string_view(key));
    return read.step() ? read.text(0) : std::string();
  };
  if (value_of("version") != kIndexVersion || value_of("source") != source) {
    Transaction t(db_);
    clear();
    auto write = db_.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
    write.bind(1, std::string_view("version")).bind(2, std::string_view(kIndexVersion));
    write.step();
    write.reset();
    write.bind(1, std::string_view("source")).bind(2, std::string_view(source));
    write.step();
    t.commit();
  }
}

void DocumentIndex::clear() { db_.exec("DELETE FROM files; DELETE FROM chunk_place; DELETE FROM chunks;"); }

DocumentIndex::Changes DocumentIndex::refresh(
    const std::vector<IndexedDocument>& present,
    const std::function<std::optional<std::string>(const IndexedDocument&)>& text_of) {
  std::lock_guard lock(mutex_);
  Changes changes;
  std::unordered_map<std::string, std::pair<int64_t, uint64_t>> known;
  {
    auto all = db_.prepare("SELECT path, modified, size FROM files");
    while (all.step()) known[all.text(0)] = {all.integer(1), static_cast<uint64_t>(all.integer(2))};
  }
  Transaction t(db_);
  auto drop_chunks = db_.prepare("DELETE FROM chunks WHERE rowid IN (SELECT id FROM chunk_place WHERE path = ?)");
  auto drop_places = db_.prepare("DELETE FROM chunk_place WHERE path = ?");
  auto drop_file = db_.prepare("DELETE FROM files WHERE path = ?");
  auto add_place = db_.prepare("INSERT INTO chunk_place(path, line) VALUES(?, ?)");
  auto add_chunk = db_.prepare("INSERT INTO chunks(rowid, text) VALUES(?, ?)");
  auto add_file = db_.prepare("INSERT OR REPLACE INTO files(path, modified, size) VALUES(?, ?, ?)");
  auto forget = [&](const std::string& path) {
    for (Statement* s : {&drop_chunks, &drop_places, &drop_file}) {
      s->reset();
      s->bind(1, path);
      s->step();
    }
  };
  for (const auto& doc : present) {
    auto it = known.find(doc.path);
    bool seen = it != known.end();
    if (seen) {
      bool same = it->second.first == doc.modified && it->second.second == doc.size;
      known.erase(it);
      if (same) {
        ++changes.unchanged;
        continue;
      }
      forget(doc.path);
    }
    std::optional<std::string> text = text_of(doc);
    if (!text) continue;
    for (auto& chunk : chunks_of(*text)) {
      add_place.reset();
      add_place.bind(1, doc.path).bind(2, chunk.line);
      add_place.step();
      add_chunk.reset();
      add_chunk.bind(1, db_.last_insert_rowid()).bind(2, chunk.text);
      add_chunk.step();
    }
    add_file.reset();
    add_file.bind(1, doc.path).bind(2, doc.modified).bind(3, static_cast<int64_t>(doc.size));
    add_file.step();
    ++(seen ? changes.updated : changes.added);
  }
  for (const auto& [path, unused] : known) {
    forget(path);
    ++changes.removed;
  }
  t.commit();
  return changes;
}

std::vector<DocumentHit> DocumentIndex::search(const std::string& fts_query, size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<DocumentHit> hits;
  if (fts_query.empty()) return hits;
  try {
    auto q = db_.prepare(
        "SELECT p.path, p.line, snippet(chunks, 0, char(1), char(2), char(3), 16), chunks.text, rank "
        "FROM chunks JOIN chunk_place p ON p.id = chunks.rowid WHERE chunks MATCH ?1 ORDER BY rank LIMIT ?2");
    q.bind(1, fts_query).bind(2, static_cast<int64_t>(limit));
    while (q.step()) hits.push_back(hit_of(q.text(0), q.integer(1), q.text(2), q.text(3), q.real(4)));
  } catch (const Error& e) {
    throw Error(ErrorKind::StoreBadQuery, "the search " + fts_query.substr(0, 200) + " cannot be read: " + e.message());
  }
  return hits;
}

std::vector<DocumentHit> DocumentIndex::search_any(const std::vector<std::string>& terms, size_t limit) const {
  std::vector<std::pair<int64_t, std::string>> counted;  // chunks holding each term, and the term
  {
    std::lock_guard lock(mutex_);
    try {
      auto count = db_.prepare("SELECT count(*) FROM chunks WHERE chunks MATCH ?");
      for (const auto& t : terms) {
        count.reset();
        count.bind(1, t);
        int64_t n = count.step() ? count.integer(0) : 0;
        if (n > 0) counted.emplace_back(n, t);
      }
    } catch (const Error& e) {
      throw Error(ErrorKind::StoreBadQuery, "a search term cannot be read: " + e.message());
    }
  }
  if (counted.empty()) return {};
  std::sort(counted.begin(), counted.end());
  std::string query;
  int64_t matched = 0;
  for (const auto& [n, t] : counted) {
    if (!query.empty() && matched >= static_cast<int64_t>(limit) && matched + n > kRankBudget) break;
    query += (query.empty() ? "" : " OR ") + t;
    matched += n;
  }
  return search(query, limit);
}

size_t DocumentIndex::documents() const {
  std::lock_guard lock(mutex_);
  auto q = db_.prepare("SELECT count(*) FROM files");
  return q.step() ? static_cast<size_t>(q.integer(0)) : 0;
}

// Words a question is made of that say nothing of what it asks about: ranking on them puts any page full of "how"
// and "the" first. Only left out of a query that has other words.
bool stop_word(const std::string& word) {
  static const char* const kStop[] = {
      "a",    "an",   "and",  "are",  "as",   "at",    "be",   "by",    "can",  "could", "did",  "do",   "does",
      "for",  "from", "get",  "has",  "have", "how",   "i",    "if",    "in",   "is",    "it",   "its",  "me",
      "my",   "of",   "on",   "or",   "our",  "should", "so",  "that",  "the",  "their", "them", "then", "there",
      "these", "they", "this", "to",  "us",   "was",   "we",   "what",  "when", "where", "which", "who", "why",
      "will", "with", "would", "you", "your"};
  std::string lower = word;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* w : kStop)
    if (lower == w) return true;
  return false;
}

std::vector<std::string> query_terms(std::string_view text, size_t max_terms) {
  std::vector<std::string> terms;
  std::string word;
  bool in_phrase = false;
  auto finish = [&] {
    if (!word.empty() && terms.size() < max_terms) terms.push_back("\"" + word + "\"");
    word.clear();
  };
  for (size_t i = 0; i < text.size() && terms.size() < max_terms; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"') {
      // A phrase: its words together, in order; an unclosed quote is only a separator.
      if (!in_phrase && text.find('"', i + 1) == std::string_view::npos) {
        finish();
        continue;
      }
      finish();
      in_phrase = !in_phrase;
      continue;
    }
    bool word_byte = c >= 0x80 || std::isalnum(c) || c == '_';
    if (word_byte) {
      word += static_cast<char>(c);
    } else if (in_phrase && !word.empty() && word.back() != ' ') {
      word += ' ';
    } else if (!in_phrase) {
      finish();
    }
  }
  while (!word.empty() && word.back() == ' ') word.pop_back();
  finish();
  bool has_content = std::any_of(terms.begin(), terms.end(),
                                 [](const std::string& t) { return !stop_word(t.substr(1, t.size() - 2)); });
  if (has_content)
    terms.erase(std::remove_if(terms.begin(), terms.end(),
                               [](const std::string& t) { return stop_word(t.substr(1, t.size() - 2)); }),
                terms.end());
  return terms;
}

std::string fts_query_of(std::string_view text, size_t max_terms) {
  std::string out;
  for (const auto& t : query_terms(text, max_terms)) out += (out.empty() ? "" : " OR ") + t;
  return out;
}

}  // namespace engine::store
