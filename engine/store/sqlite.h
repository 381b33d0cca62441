#pragma once
// SQLite, owned (RAII): a database connection and its prepared statements. The one place SQLite is used is store/
// (the design brief's table): document indexes now, the local run store next.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace engine::store {

class Statement;

class Database {
 public:
  // ":memory:" or a file, made when missing. Throws Error "store.open_failed" with SQLite's reason. A busy database
  // (another process writing) is waited for up to five seconds.
  explicit Database(const std::string& file);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs statements without results (schema, pragmas, BEGIN/COMMIT). Throws Error "store.failed".
  void exec(const std::string& sql);
  Statement prepare(std::string_view sql);
  int64_t last_insert_rowid() const;
  sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);  // throws Error "store.failed"
  ~Statement();
  Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t v);
  Statement& bind(int index, std::string_view text);
  Statement& bind_real(int index, double v);
  Statement& bind_null(int index);
  // True while there is a row to read; throws Error "store.failed" (an FTS5 query's syntax error among them).
  bool step();
  void reset();  // ready to bind and step again
  int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// A transaction that rolls back unless committed (RAII).
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace engine::store
