#include "core/runtime/module_scan.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caffe2/serialize/file_adapter.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/frontend/parser.h>
#include <torch/csrc/jit/frontend/tree_views.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/source_range_serialization.h>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "core/binary/pickle.h"
#include "core/binary/pickle_scan.h"
#include "core/binary/zip_sizes.h"
#include "tsbridge/plugin/errors.hpp"

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

// Those of them the importer reads as a list of names: `name = [...]`.
bool IsImporterList(const std::string& name) {
  return IsImporterName(name) && name != "__annotations__";
}

// The name of a class's base ("Module", "NamedTuple", "Enum"), "" for none.
std::string BaseOf(const jit::ClassDef& cls) {
  if (!cls.superclass().present()) return "";
  jit::Expr base = cls.superclass().get();
  return base.kind() == jit::TK_VAR ? jit::Var(base).name().name() : "?";
}

// "<record> line <n>": where `range` starts, counted from 1. A token the
// lexer made up (an indent, the end) may have no source: the record alone.
std::string Where(absl::string_view record, const jit::SourceRange& range) {
  const std::shared_ptr<jit::Source>& source = range.source();
  if (source == nullptr) return std::string(record);
  return absl::StrCat(record, " line ",
                      source->lineno_to_source_lineno(source->lineno_for_offset(range.start())));
}

// LibTorch 1.13's importer reads the type annotations and values of class
// bodies without checking that they are there, and crashes (SIGSEGV, or
// freed memory and a stray RuntimeError) on:
//  - `name = value` in a module or script class (no base), which it takes
//    for a constant (parseClassConstant); torch.jit.save writes every
//    constant as `name : Final[T] = value`;
//  - `name = value` in a NamedTuple (importNamedTuple); torch.jit.save
//    writes every field as `name : T`;
//  - `name : T` in an Enum (importEnum); torch.jit.save writes every
//    member as `name = value`;
//  - `__buffers__ : T` (or another list the importer reads, or
//    `__annotations__["name"] : T`) in a module, read as if it had a value:
//    stray memory, a different error each run or a SIGSEGV; torch.jit.save
//    writes `__buffers__ = [...]` and `__annotations__["name"] = T`.
// All but the Enum found by tests/fuzz/module_load_fuzzer.cc.
absl::Status CheckClass(const jit::ClassDef& cls, absl::string_view record) {
  const std::string base = BaseOf(cls);
  if (base == "Enum") {
    for (const jit::Stmt& stmt : cls.body()) {
      if (stmt.kind() != jit::TK_ASSIGN) continue;
      jit::Assign assign(stmt);
      // Another left side is LibTorch's own error, before it reads the value.
      if (assign.lhs().kind() != jit::TK_VAR || assign.rhs().present()) continue;
      return NotSaved(Where(record, stmt.range()),
                      absl::StrCat("member '", jit::Var(assign.lhs()).name().name(),
                                   "' of Enum ", cls.name().name(),
                                   " has no value (torch.jit.save writes 'name = value')"));
    }
    return absl::OkStatus();
  }
  const bool named_tuple = base == "NamedTuple";
  if (!named_tuple && !base.empty() && base != "Module") return absl::OkStatus();
  for (const jit::Stmt& stmt : cls.body()) {
    if (stmt.kind() != jit::TK_ASSIGN) continue;
    jit::Assign assign(stmt);
    const bool subscript = assign.lhs().kind() == jit::TK_SUBSCRIPT;
    if (assign.lhs().kind() != jit::TK_VAR && !subscript) continue;
    const std::string name = subscript ? assign.lhs().range().text().str()
                                       : jit::Var(assign.lhs()).name().name();
    if ((subscript || IsImporterList(name)) && !assign.rhs().present()) {
      return NotSaved(Where(record, stmt.range()),
                      absl::StrCat("class attribute '", name, "' of ", cls.name().name(),
                                   " has no value (torch.jit.save writes one)"));
    }
    if (subscript || assign.type().present()) continue;
    if (named_tuple) {
      return NotSaved(Where(record, stmt.range()),
                      absl::StrCat("field '", name, "' of NamedTuple ", cls.name().name(),
                                   " has no type annotation (torch.jit.save writes "
                                   "'name : T')"));
    }
    if (IsImporterName(name) || !assign.rhs().present()) continue;
    return NotSaved(Where(record, stmt.range()),
                    absl::StrCat("class attribute '", name, "' of ", cls.name().name(),
                                 " has a value but no type annotation (torch.jit.save "
                                 "writes 'name : Final[T] = value')"));
  }
  return absl::OkStatus();
}

// Walks one code/ source as the importer does (SourceImporterImpl::
// parseSourceIfNeeded): an optional version line, imports, then classes
// and functions. What does not parse is refused here too: the importer's
// own report of it highlights the source through the archive's debug
// ranges (.debug_pkl), and LibTorch 1.13 dereferences null there on a
// mutated archive (found by tests/fuzz/module_load_fuzzer.cc).
absl::Status CheckSource(absl::string_view text, const std::string& record) {
  // Source keeps its own copy of the text: the record's bytes go in as a view.
  auto source = std::make_shared<jit::Source>(c10::string_view(text.data(), text.size()), record,
                                              /*starting_line_no=*/1);
  std::optional<jit::Parser> parsing;  // its constructor reads the first token
  try {
    jit::Parser& parser = parsing.emplace(source);
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
      } else if (lexer.cur().kind != jit::TK_EOF) {
        return NotSaved(Where(record, lexer.cur().range),
                        absl::StrCat("expected a class or a def, got '",
                                     lexer.cur().range.text().str(), "'"));
      }
    }
  } catch (const std::exception& e) {  // a torch::jit::ErrorReport
    // Its first line is the message; the rest highlights the source.
    absl::string_view what = e.what();
    what = absl::StripSuffix(what.substr(0, what.find('\n')), ":");
    return NotSaved(parsing ? Where(record, parsing->lexer().cur().range) : record,
                    absl::StrCat("does not parse: ", what));
  }
  return absl::OkStatus();
}

// The debug ranges of a code/ source (<source>.debug_pkl) are read the
// first time an error is reported against that source, inside
// torch::jit::ErrorReport::what(), which is noexcept: a malformed record
// ends the process there (std::terminate; found by
// tests/fuzz/module_load_fuzzer.cc). So each is read here in full, with
// every shape LibTorch 1.13's ConcreteSourceRangeUnpickler takes without
// checking it: ("FORMAT_WITH_STRING_TABLE", (str, ...), records) or the
// records alone; a record (offset: int, range, ...); a range (source,
// start: int, end: int); a source (text: List[int] of table indices,
// filename: int index, first line: int) with a table, (text: str,
// filename: Optional[str], first line: int) without. A text made of table
// strings is a StringCordView, whose walk (Source's constructor looks for
// every newline) asserts on stepping into an empty piece: LibTorch writes
// each line with its newline and one empty string last, so empty strings
// may only end a text, and only after a newline.
class DebugRangesCheck {
 public:
  absl::Status Check(const c10::IValue& root) {
    const c10::IValue* records = &root;
    TSB_ASSIGN_OR_RETURN(auto top, Tuple(root, 1, "the value"));
    if (top[0].isString() && top[0].toStringRef() == jit::kFormatWithStringTable) {
      TSB_ASSIGN_OR_RETURN(top, Tuple(root, 3, "the value with a string table"));
      TSB_ASSIGN_OR_RETURN(auto table, Tuple(top[1], 0, "the string table"));
      for (size_t i = 0; i < table.size(); ++i) {
        if (!table[i].isString()) return Expected(absl::StrCat("string ", i), "a str", table[i]);
        const std::string& text = table[i].toStringRef();
        table_.push_back({text.size(), absl::EndsWith(text, "\n")});
      }
      records = &top[2];
    }
    TSB_ASSIGN_OR_RETURN(auto all, Tuple(*records, 0, "the range records"));
    for (size_t i = 0; i < all.size(); ++i) {
      const std::string where = absl::StrCat("record ", i);
      TSB_ASSIGN_OR_RETURN(auto record, Tuple(all[i], 2, where + " (offset, range, ...)"));
      if (!record[0].isInt()) return Expected(where + " offset", "an int", record[0]);
      TSB_ASSIGN_OR_RETURN(auto range, Tuple(record[1], 3, where + " range (source, start, end)"));
      if (range.size() != 3) return Expected(where + " range", "3 items", record[1]);
      TSB_RETURN_IF_ERROR(Source(range[0], where + " source"));
      if (!range[1].isInt() || !range[2].isInt()) {
        return Expected(where + " range", "int start and end", record[1]);
      }
      if (range[1].toInt() < 0 || range[2].toInt() < range[1].toInt()) {
        return Invalid(where + " range", "0 <= start <= end",
                       absl::StrCat("start ", range[1].toInt(), ", end ", range[2].toInt()));
      }
    }
    return absl::OkStatus();
  }

 private:
  using Items = c10::ArrayRef<c10::IValue>;

  static absl::Status Invalid(absl::string_view where, absl::string_view expected,
                              absl::string_view found) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected ", expected, ", found ", found));
  }
  static absl::Status Expected(absl::string_view where, absl::string_view expected,
                               const c10::IValue& found) {
    return Invalid(where, expected, found.type()->annotation_str());
  }

  // The items of a tuple of at least `n` of them.
  static absl::StatusOr<Items> Tuple(const c10::IValue& v, size_t n, absl::string_view what) {
    if (!v.isTuple() || v.toTupleRef().elements().size() < n) {
      return Expected(what, absl::StrCat("a tuple of ", n, n == 0 ? "" : " or more", " items"),
                      v);
    }
    return Items(v.toTupleRef().elements());
  }

  absl::Status Source(const c10::IValue& v, const std::string& where) {
    TSB_ASSIGN_OR_RETURN(auto source, Tuple(v, 3, where + " (text, filename, first line)"));
    if (source.size() != 3) return Expected(where, "3 items", v);
    if (!source[2].isInt()) return Expected(where + " first line", "an int", source[2]);
    if (table_.empty()) {
      if (!source[0].isString()) return Expected(where + " text", "a str", source[0]);
      if (!source[1].isNone() && !source[1].isString()) {
        return Expected(where + " filename", "None or a str", source[1]);
      }
      return absl::OkStatus();
    }
    if (!source[0].isIntList()) return Expected(where + " text", "a List[int]", source[0]);
    if (!source[1].isInt()) return Expected(where + " filename", "an int", source[1]);
    const std::string in_table = absl::StrCat("an index into the string table of ",
                                              table_.size());
    const auto out_of_table = [&](int64_t i) {
      return i < 0 || static_cast<uint64_t>(i) >= table_.size();
    };
    if (out_of_table(source[1].toInt())) {
      return Invalid(where + " filename", in_table, absl::StrCat(source[1].toInt()));
    }
    const c10::List<int64_t> text = source[0].toIntList();
    std::optional<size_t> first_empty;  // the piece where the empty strings start
    for (size_t at = 0; at < text.size(); ++at) {
      const int64_t i = text[at];
      if (out_of_table(i)) return Invalid(where + " text", in_table, absl::StrCat(i));
      if (table_[i].size == 0) {
        if (!first_empty) first_empty = at;
      } else if (first_empty) {
        return Invalid(where + " text", "empty strings only at its end",
                       absl::StrCat("an empty string (piece ", *first_empty, ") before piece ",
                                    at));
      }
    }
    if (first_empty && *first_empty > 0 && !table_[text[*first_empty - 1]].ends_in_newline) {
      return Invalid(where + " text", "a newline before the empty strings that end it",
                     absl::StrCat("piece ", *first_empty - 1, " without one"));
    }
    return absl::OkStatus();
  }

  struct TableString {
    size_t size;
    bool ends_in_newline;
  };
  std::vector<TableString> table_;  // empty: the records carry their text
};

absl::Status CheckDebugRanges(const char* bytes, size_t size, const std::string& record) {
  c10::IValue root;
  try {
    root = jit::unpickle(bytes, size);
  } catch (const c10::Error& e) {  // what() carries LibTorch's C++ backtrace
    return NotSaved(record,
                    absl::StrCat("debug ranges do not unpickle: ", e.what_without_backtrace()));
  } catch (const std::exception& e) {
    return NotSaved(record, absl::StrCat("debug ranges do not unpickle: ", e.what()));
  }
  absl::Status checked = DebugRangesCheck().Check(root);
  if (!checked.ok()) return NotSaved(record, checked.message());
  return absl::OkStatus();
}

absl::Status ScanReader(caffe2::serialize::PyTorchStreamReader& reader,
                        const std::function<absl::Status(absl::string_view code)>& on_code) {
  for (const std::string& name : reader.getAllRecords()) {
    const bool pickle = absl::EndsWith(name, "pkl");
    const bool code = absl::StartsWith(name, "code/") && absl::EndsWith(name, ".py");
    if (!pickle && !code) continue;
    auto [data, size] = reader.getRecord(name);
    const char* bytes = static_cast<const char*>(data.get());
    if (pickle) {
      // The few bytes that make the unpickler allocate gigabytes or pop an
      // empty stack in a torch.save archive do the same in a module file.
      absl::Status scan = binary::ScanPickle(bytes, size);
      if (!scan.ok()) return NotSaved(name, scan.message());
      if (absl::EndsWith(name, ".debug_pkl")) {
        TSB_RETURN_IF_ERROR(CheckDebugRanges(bytes, size, name));
      }
    } else {
      TSB_RETURN_IF_ERROR(CheckSource(absl::string_view(bytes, size), name));
      if (on_code) TSB_RETURN_IF_ERROR(on_code(absl::string_view(bytes, size)));
    }
  }
  return absl::OkStatus();
}

// The archive's records, their claimed sizes checked first (zip_sizes.h):
// LibTorch's reader allocates what a record claims before reading it.
absl::Status ScanArchive(std::shared_ptr<caffe2::serialize::ReadAdapterInterface> in,
                         const std::function<absl::Status(absl::string_view code)>& on_code) {
  caffe2::serialize::PyTorchStreamReader reader(in);
  absl::Status sizes = binary::CheckZipRecordSizes(*in);
  if (!sizes.ok()) return NotSaved("the zip directory", sizes.message());
  return ScanReader(reader, on_code);
}

}  // namespace

absl::Status ScanModuleArchive(
    const char* path, const std::function<absl::Status(absl::string_view code)>& on_code) {
  return ScanArchive(std::make_shared<caffe2::serialize::FileAdapter>(path), on_code);
}

absl::Status ScanModuleArchive(
    const char* data, size_t size,
    const std::function<absl::Status(absl::string_view code)>& on_code) {
  return ScanArchive(binary::MemoryReader(data, size), on_code);
}

}  // namespace tsb::runtime
