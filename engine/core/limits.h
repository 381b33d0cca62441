#pragma once
// Every bound the engine puts on what it is given (sizes, depths, counts and times of files, answers, scripts,
// requests and data), named, in one place, as SQLite keeps sqliteLimit.h. A module uses these names and defines no
// bound of its own. Each is told to users in docs/; kDocumented below names the page and the words there, and
// tests/core/limits_test.cpp checks that the page says that value.
#include <cstddef>
#include <cstdint>

namespace engine::limits {

inline constexpr size_t kKiB = size_t{1} << 10;
inline constexpr size_t kMiB = size_t{1} << 20;

// Files and JSON read from outside.
// Workflows, templates, scripts, --inputs and --vars are kilobytes: this keeps /dev/zero or a mistaken gigabyte file
// from exhausting memory. It bounds a data record and a results line too.
inline constexpr size_t kFileBytes = 16 * kMiB;
// Recordings hold whole prompts, and a chat session a turn's inputs: a long one may pass kFileBytes.
inline constexpr size_t kRecordingBytes = 256 * kMiB;
inline constexpr size_t kSessionBytes = 256 * kMiB;
// Deep enough for any real document (OpenAPI schemas rarely pass 20), shallow enough that every recursive walk of a
// Value stays far from the stack's end, even in a sanitizer build.
inline constexpr int kJsonDepth = 128;
inline constexpr size_t kResultLineBytes = kFileBytes;  // read by resume, eval and merge

// A workflow file and the files beside it: far more than a file written by hand has, so that what a load and a
// build cost on a hostile file is bounded. Times are a day at most.
inline constexpr int kYamlValueDepth = 64;              // a value the loader reads (a default, a tool's parameters)
inline constexpr long kYamlValueNodes = 100'000;        // such a value's nodes, aliases expanded
inline constexpr size_t kSteps = 1000;
inline constexpr size_t kWorkflowNesting = 8;           // workflows as steps or tools, within each other
inline constexpr size_t kWorkflowFiles = 256;           // distinct workflow files one load reads
inline constexpr double kSeconds = 86400;               // any time a file gives
inline constexpr size_t kEvaluators = 100;              // in an evaluation file
inline constexpr size_t kTests = 1000;                  // in a test file

// HTTP, as a client. An answer is a few KB and a long stream a few MB: past these a server is broken or hostile, and
// the transfer ends rather than holding its body in memory.
inline constexpr size_t kResponseBytes = 64 * kMiB;     // an answer, whole or streamed
inline constexpr size_t kStreamLineBytes = 16 * kMiB;   // a line of a server-sent event stream
inline constexpr size_t kStreamEventBytes = 16 * kMiB;  // an event's data lines together
inline constexpr size_t kStreamIdBytes = 1024;          // an event id (sent back in a header): longer ones are ignored
inline constexpr size_t kUrlBytes = 8 * kKiB;
inline constexpr int kRedirects = 5;                    // followed by a granted request
inline constexpr size_t kGrantBytes = 4 * kMiB;         // a grant's max_bytes unless it says: an answer, a file

// HTTP, as a server (engine serve's defaults; flags change them).
inline constexpr size_t kRequestBodyBytes = 4 * kMiB;   // --max-body
inline constexpr size_t kStreamQueueBytes = 4 * kMiB;   // a stream's bytes waiting for a slow client

// MCP.
inline constexpr size_t kMcpLineBytes = 16 * kMiB;      // a message, over stdio or HTTP, either way
inline constexpr size_t kMcpPages = 100;                // of a tool list
inline constexpr size_t kMcpQueuedAnswers = 16;         // a server's requests to the client, waiting for an answer
inline constexpr int kMcpResumes = 5;                   // a cut stream taken up again with Last-Event-ID

// Files under a grant, and the tools that search them.
inline constexpr size_t kPathBytes = 4096;
inline constexpr size_t kNameBytes = 255;
inline constexpr size_t kListEntries = 1000;
inline constexpr int kSymlinks = 40;                    // followed in one path, as the kernel's own bound
inline constexpr int kWalkDepth = 32;                   // folders deep a search walks
inline constexpr size_t kSearchFiles = 10'000;          // read by one search_files call
inline constexpr size_t kSearchBytes = 256 * kMiB;      // read by one search_files call
inline constexpr size_t kMatchLineBytes = 300;          // of a matching line shown
inline constexpr size_t kIndexedDocuments = 100'000;    // in a search_docs index

// Lua.
inline constexpr size_t kLuaMemoryBytes = 32 * kMiB;    // a tool's state, unless its limits say
inline constexpr int kLuaJsonDepth = 100;               // of a value returned or encoded
inline constexpr size_t kLuaSharedValues = 4096;        // a state with more is never shared between runs
inline constexpr int kLuaSharedDepth = 100;             // nor one whose values nest deeper
inline constexpr size_t kLuaSharedStringBytes = 256 * kKiB;
inline constexpr size_t kLuaSharedUserdataBytes = 4096;
inline constexpr int kLuaPatternRecursion = 200;        // as Lua's MAXCCALLS for patterns
inline constexpr int kLuaPatternCaptures = 32;

// Regexes (parsers, scripted rules, evaluators, search_files, schema patterns): PCRE2's limits per match.
inline constexpr unsigned kRegexMatchSteps = 1'000'000;  // backtracking steps
inline constexpr unsigned kRegexDepth = 10'000;          // nested backtracking frames

// JSON Schema checks.
// $refs that branch without looping (40 definitions, each the allOf of two references to the next) would take 2^40
// steps; an ordinary check takes a few per node.
inline constexpr size_t kValidationSteps = 1'000'000;   // subschema applications, beside kValidationStepsPerNode
inline constexpr size_t kValidationStepsPerNode = 64;   // more per node of the value checked
inline constexpr size_t kUniqueItems = 2000;            // compared pairwise; a longer array is a violation

// Runs, batches and parsers.
inline constexpr size_t kBatchConcurrency = 16'384;     // runs in flight: each a fiber with its own stack
inline constexpr size_t kShards = 1'000'000;            // more is a typo: every shard reads the whole data
inline constexpr size_t kRowIndex = size_t{1} << 62;    // far past any data, far from wrapping when counted
inline constexpr size_t kForEachItems = 10'000;
inline constexpr size_t kFiberStackBytes = 2 * kMiB;
inline constexpr size_t kJsonFences = 64;               // fenced blocks a JSON parser looks at

// Templates. Jinja2 would build center(1e10); the engine refuses a size past any prompt's before allocating it, and
// nesting past any prompt's keeps the recursive parser and renderer off the stack's edge.
inline constexpr size_t kTemplateOutputBytes = 16 * kMiB;
inline constexpr int kTemplateNesting = 200;            // blocks and expressions within each other
inline constexpr uint64_t kTemplateRenderSteps = 1'000'000;
inline constexpr int kTemplateCallDepth = 64;
inline constexpr int kTemplateIncludeDepth = 16;
inline constexpr long long kTemplateRangeItems = 1'000'000;
inline constexpr long long kTemplateWidth = 1'000'000;  // center, indent, batch, tojson(indent)
inline constexpr long long kFormatWidth = 400;          // "%10s" % x: a width or a precision
inline constexpr size_t kStoreQueuedRuns = 1024;        // runs waiting for the store's writer thread
// The journal: a value larger than this is stored once by its digest, not in its entry; a journal of more entries
// than this is not read back (a run that long is resumed by no one: the store refuses it as corrupt).
inline constexpr size_t kJournalInlineBytes = 4096;
inline constexpr size_t kJournalEntries = 1'000'000;

// Where each bound is told, in the words a page uses for its value: checked by tests/core/limits_test.cpp.
struct Documented {
  const char* name;
  double value;
  const char* page;   // under docs/
  const char* words;  // what the page says, holding the value ("16 MiB", "1,000,000", "64 levels")
};

inline constexpr Documented kDocumented[] = {
    {"kFileBytes", double(kFileBytes), "security.md", "| 16 MiB, regular files and pipes only |"},
    {"kRecordingBytes", double(kRecordingBytes), "security.md", "| a replay recording | 256 MiB |"},
    {"kSessionBytes", double(kSessionBytes), "security.md", "a chat session of at most 256 MiB"},
    {"kJsonDepth", double(kJsonDepth), "security.md", "128 levels of nesting (`limits::kJsonDepth`)"},
    {"kResultLineBytes", double(kResultLineBytes), "security.md", "a result line of at most 16 MiB"},
    {"kYamlValueDepth", double(kYamlValueDepth), "workflow-format.md", "an input default may nest 64 levels"},
    {"kYamlValueNodes", double(kYamlValueNodes), "security.md", "100,000 nodes per value after aliases"},
    {"kSteps", double(kSteps), "workflows.md", "at most 1000 steps"},
    {"kWorkflowNesting", double(kWorkflowNesting), "security.md", "| 8 files deep"},
    {"kWorkflowFiles", double(kWorkflowFiles), "security.md", "256 distinct files per load"},
    {"kSeconds", double(kSeconds), "security.md", "at most 86400 s"},
    {"kEvaluators", double(kEvaluators), "security.md", "100 evaluators in an evaluation file"},
    {"kTests", double(kTests), "security.md", "1000 tests in a test file"},
    {"kResponseBytes", double(kResponseBytes), "security.md", "| 64 MiB, counted as it arrives |"},
    {"kStreamLineBytes", double(kStreamLineBytes), "security.md", "(its data lines together) | 16 MiB each;"},
    {"kStreamEventBytes", double(kStreamEventBytes), "security.md", "(its data lines together) | 16 MiB each;"},
    {"kStreamIdBytes", double(kStreamIdBytes), "security.md", "an event id of more than 1024 bytes is ignored"},
    {"kUrlBytes", double(kUrlBytes), "security.md", "a URL of 8 KB"},
    {"kRedirects", double(kRedirects), "security.md", "5 redirects"},
    {"kGrantBytes", double(kGrantBytes), "security.md", "the grant's `max_bytes` (4 MiB)"},
    {"kRequestBodyBytes", double(kRequestBodyBytes), "serve.md", "| `--max-body BYTES` | 4194304 |"},
    {"kStreamQueueBytes", double(kStreamQueueBytes), "serve.md", "a queue of at most 4 MiB"},
    {"kMcpLineBytes", double(kMcpLineBytes), "security.md", "a line (or an HTTP answer) of 16 MiB"},
    {"kMcpPages", double(kMcpPages), "security.md", "100 pages listed"},
    {"kMcpQueuedAnswers", double(kMcpQueuedAnswers), "security.md", "16 requests of a server's waiting for an answer"},
    {"kMcpResumes", double(kMcpResumes), "security.md", "a cut stream resumed 5 times"},
    {"kPathBytes", double(kPathBytes), "security.md", "| 4096 bytes, names of 255"},
    {"kNameBytes", double(kNameBytes), "security.md", "| 4096 bytes, names of 255"},
    {"kListEntries", double(kListEntries), "security.md", "1000 entries listed"},
    {"kSymlinks", double(kSymlinks), "security.md", "40 symlinks"},
    {"kWalkDepth", double(kWalkDepth), "security.md", "folders 32 deep"},
    {"kSearchFiles", double(kSearchFiles), "security.md", "10,000 files and 256 MB read per call"},
    {"kSearchBytes", double(kSearchBytes), "security.md", "10,000 files and 256 MB read per call"},
    {"kMatchLineBytes", double(kMatchLineBytes), "security.md", "lines shown cut at 300 bytes"},
    {"kIndexedDocuments", double(kIndexedDocuments), "security.md", "100,000 documents indexed"},
    {"kLuaMemoryBytes", double(kLuaMemoryBytes), "security.md", "memory 32 MiB unless the tool's `limits` say"},
    {"kLuaJsonDepth", double(kLuaJsonDepth), "security.md", "values returned or encoded: 100 levels"},
    {"kLuaSharedValues", double(kLuaSharedValues), "security.md", "more than 4096 values or 256 KB of strings"},
    {"kLuaSharedDepth", double(kLuaSharedDepth), "security.md", "values nested more than 100 deep"},
    {"kLuaSharedStringBytes", double(kLuaSharedStringBytes), "security.md", "more than 4096 values or 256 KB of strings"},
    {"kLuaSharedUserdataBytes", double(kLuaSharedUserdataBytes), "security.md", "a userdata of more than 4096 bytes"},
    {"kLuaPatternRecursion", double(kLuaPatternRecursion), "security.md", "Lua's 200 C calls"},
    {"kLuaPatternCaptures", double(kLuaPatternCaptures), "lua-tools.md", "32 captures"},
    {"kRegexMatchSteps", double(kRegexMatchSteps), "security.md", "1,000,000 backtracking steps and 10,000 nested frames"},
    {"kRegexDepth", double(kRegexDepth), "security.md", "1,000,000 backtracking steps and 10,000 nested frames"},
    {"kValidationSteps", double(kValidationSteps), "security.md", "1,000,000 subschema applications plus 64 per node"},
    {"kValidationStepsPerNode", double(kValidationStepsPerNode), "security.md", "1,000,000 subschema applications plus 64 per node"},
    {"kUniqueItems", double(kUniqueItems), "schemas.md", "pairwise up to 2000 items"},
    {"kBatchConcurrency", double(kBatchConcurrency), "security.md", "| 1 to 16,384;"},
    {"kShards", double(kShards), "cli.md", "N at most 1,000,000"},
    {"kRowIndex", double(kRowIndex), "security.md", "a row index up to 2^62"},
    {"kForEachItems", double(kForEachItems), "workflows.md", "at most 10000 items"},
    {"kFiberStackBytes", double(kFiberStackBytes), "security.md", "a 2 MB stack"},
    {"kJsonFences", double(kJsonFences), "workflow-format.md", "at most 64 fences"},
    {"kTemplateOutputBytes", double(kTemplateOutputBytes), "security.md", "| 16 MiB (`max_output_bytes`) |"},
    {"kTemplateNesting", double(kTemplateNesting), "security.md", "templates nested 200 deep"},
    {"kTemplateRenderSteps", double(kTemplateRenderSteps), "security.md", "1,000,000 steps (`max_render_steps`)"},
    {"kTemplateCallDepth", double(kTemplateCallDepth), "security.md", "64 nested calls, 16 nested includes"},
    {"kTemplateIncludeDepth", double(kTemplateIncludeDepth), "security.md", "64 nested calls, 16 nested includes"},
    {"kTemplateRangeItems", double(kTemplateRangeItems), "security.md", "| `range()` | 1,000,000 items |"},
    {"kTemplateWidth", double(kTemplateWidth), "security.md", "| 0 to 1,000,000"},
    {"kFormatWidth", double(kFormatWidth), "security.md", "widths and precisions | 400 |"},
    {"kStoreQueuedRuns", double(kStoreQueuedRuns), "observability.md", "at most 1,024 runs wait for it"},
    {"kJournalInlineBytes", double(kJournalInlineBytes), "durability.md", "larger than 4096 bytes"},
    {"kJournalEntries", double(kJournalEntries), "durability.md", "more than 1,000,000 entries"},
};

}  // namespace engine::limits
