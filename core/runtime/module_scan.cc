#include "core/runtime/module_scan.h"

#include <memory>
#include <string>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/frontend/parser.h>
#include <torch/csrc/jit/frontend/tree_views.h>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/binary/pickle_scan.h"
#include "tsbridge/errors.hpp"

namespace tsb::runtime {
namespace {

namespace jit = torch::jit;

absl::Status NotSaved(absl::string_view record, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("not a module torch.jit.save wrote: ", record, ": ", why));
}

// Class-body names the importer reads itself rather than as constants.
bool IsImporterName(const std::string& name) {
  static const auto* names = new absl::flat_hash_set<std::string>{
      "__parameters__", "__buffers__", "__annotations__", "__forward_hooks__",
      "__forward_pre_hooks__"};
  return names->contains(name);
}

// A class the importer builds member by member: a module (base Module) or
// a script class (no base). Enums and NamedTuples have their own readers.
bool HasMembersRead(const jit::ClassDef& cls) {
  if (!cls.superclass().present()) return true;
  jit::Expr base = cls.superclass().get();
  return base.kind() == jit::TK_VAR && jit::Var(base).name().name() == "Module";
}

// LibTorch 1.13's importer takes `name = value` in a class body for a
// constant and reads its type annotation without checking that one is
// there (parseClassConstant): freed memory, then a SIGSEGV or a stray
// RuntimeError. torch.jit.save writes every constant as
// `name : Final[T] = value`. Found by tests/fuzz/module_load_fuzzer.cc.
absl::Status CheckClass(const jit::ClassDef& cls, absl::string_view record) {
  if (!HasMembersRead(cls)) return absl::OkStatus();
  for (const jit::Stmt& stmt : cls.body()) {
    if (stmt.kind() != jit::TK_ASSIGN) continue;
    jit::Assign assign(stmt);
    if (assign.lhs().kind() != jit::TK_VAR) continue;
    const std::string& name = jit::Var(assign.lhs()).name().name();
    if (IsImporterName(name) || !assign.rhs().present() || assign.type().present()) continue;
    const jit::SourceRange& range = stmt.range();
    const size_t line =
        range.source()->lineno_to_source_lineno(range.source()->lineno_for_offset(range.start()));
    return NotSaved(absl::StrCat(record, " line ", line),
                    absl::StrCat("class attribute '", name, "' of ", cls.name().name(),
                                 " has a value but no type annotation (torch.jit.save "
                                 "writes 'name : Final[T] = value')"));
  }
  return absl::OkStatus();
}

// Walks one code/ source as the importer does (SourceImporterImpl::
// parseSourceIfNeeded): an optional version line, imports, then classes
// and functions.
absl::Status CheckSource(const std::string& text, const std::string& record) {
  try {
    jit::Parser parser(std::make_shared<jit::Source>(text, record, /*starting_line_no=*/1));
    jit::Lexer& lexer = parser.lexer();
    if (lexer.cur().kind == jit::TK_IDENT && lexer.cur().text() == "op_version_set") {
      lexer.next();
      lexer.expect('=');
      lexer.expect(jit::TK_NUMBER);
      lexer.expect(jit::TK_NEWLINE);
    }
    while (lexer.cur().kind != jit::TK_EOF) {
      while (lexer.nextIf(jit::TK_IMPORT)) {
        while (lexer.cur().kind != jit::TK_NEWLINE) lexer.next();
        lexer.expect(jit::TK_NEWLINE);
      }
      if (lexer.cur().kind == jit::TK_CLASS_DEF) {
        TSB_RETURN_IF_ERROR(CheckClass(jit::ClassDef(parser.parseClass()), record));
      } else if (lexer.cur().kind == jit::TK_DEF) {
        parser.parseFunction(/*is_method=*/false);
      } else {
        break;  // the importer's own error, or the end after imports
      }
    }
  } catch (const std::exception&) {
    // A syntax error: the importer reports it (a torch::jit::ErrorReport).
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ScanModuleArchive(const char* path) {
  caffe2::serialize::PyTorchStreamReader reader(path);
  for (const std::string& name : reader.getAllRecords()) {
    const bool pickle = absl::EndsWith(name, "pkl");
    const bool code = absl::StartsWith(name, "code/") && absl::EndsWith(name, ".py");
    if (!pickle && !code) continue;
    auto [data, size] = reader.getRecord(name);
    const char* bytes = static_cast<const char*>(data.get());
    if (pickle) {
      // The few bytes that make the unpickler allocate gigabytes or pop an
      // empty stack in a torch.save archive do the same in a module file.
      absl::Status scan = ScanPickle(bytes, size);
      if (!scan.ok()) return NotSaved(name, scan.message());
    } else {
      TSB_RETURN_IF_ERROR(CheckSource(std::string(bytes, size), name));
    }
  }
  return absl::OkStatus();
}

}  // namespace tsb::runtime
