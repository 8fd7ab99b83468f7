#include "core/types/type_parser.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

#include <torch/csrc/jit/frontend/parser.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/schema_type_parser.h>
#include <torch/csrc/jit/frontend/script_type_parser.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/compat/torch_compat.h"
#include "core/types/lock_free_map.h"
#include "core/types/type_registry.h"
#include "tsbridge/plugin/errors.hpp"

namespace tsb {
namespace {

// `ops.NS.NAME(...)`: operators of any namespace, as saved TorchScript code
// spells them (torchvision::nms is `ops.torchvision.nms`), as LibTorch's own
// importer resolves them.
struct OpsNamespaces : torch::jit::SugaredValue {
  std::string kind() const override { return "ops"; }
  std::shared_ptr<torch::jit::SugaredValue> attr(const torch::jit::SourceRange& loc,
                                                 torch::jit::GraphFunction& m,
                                                 const std::string& ns) override {
    return std::make_shared<torch::jit::BuiltinModule>(ns);
  }
};

// The type names LibTorch's schemas use but the script frontend does not
// know by itself, and the named types plugins registered; everything else is
// left to LibTorch's native resolver (torch, math, builtins), but `ops`.
struct TsbridgeResolver : torch::jit::Resolver {
  explicit TsbridgeResolver(const TypeNameLookup* extra) : extra(extra) {}
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(
      const std::string& name, torch::jit::GraphFunction& m,
      const torch::jit::SourceRange& loc) override {
    if (name == "ops") return std::make_shared<OpsNamespaces>();
    return torch::jit::nativeResolver()->resolveValue(name, m, loc);
  }
  c10::TypePtr resolveType(const std::string& name,
                           const torch::jit::SourceRange& loc) override {
    if (c10::TypePtr found = Find(name)) return found;
    return torch::jit::nativeResolver()->resolveType(name, loc);
  }
  c10::TypePtr Find(const std::string& name) {
    if (name == "ScalarType") return c10::ScalarTypeType::get();
    if (name == "Layout") return c10::LayoutType::get();
    if (name == "MemoryFormat") return c10::MemoryFormatType::get();
    if (name == "Scalar") return c10::NumberType::get();
    if (extra != nullptr) {
      if (c10::TypePtr found = (*extra)(name)) return found;
    }
    return TypeRegistry::Global().FindNamedType(name);
  }
  const TypeNameLookup* extra;
};

// LibTorch messages carry the source excerpt on the following lines; the
// first non-empty line is the reason.
std::string FirstLine(const char* what) {
  for (absl::string_view line : absl::StrSplit(what, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    // LibTorch reports some invalid types (Union[int]) as its own assertion
    // failures; the reason follows that preamble.
    constexpr absl::string_view kAssert = "please report a bug to PyTorch.";
    if (size_t at = line.find(kAssert); at != absl::string_view::npos) {
      line = absl::StripAsciiWhitespace(line.substr(at + kAssert.size()));
    }
    if (!line.empty()) return std::string(absl::StripSuffix(line, ":"));
  }
  return "unparseable";
}

c10::TypePtr ParseScriptSyntax(const std::string& text, const TypeNameLookup* extra) {
  auto resolver = std::make_shared<TsbridgeResolver>(extra);
  torch::jit::Parser parser(std::make_shared<torch::jit::Source>(text));
  torch::jit::Expr expr = parser.parseExp();
  if (parser.lexer().cur().kind != torch::jit::TK_EOF) {
    TORCH_CHECK(false, "unexpected '", parser.lexer().cur().text(),
                "' after the type");
  }
  return torch::jit::ScriptTypeParser(resolver).parseTypeFromExpr(expr);
}

c10::TypePtr ParseSchemaSyntax(const std::string& text) {
  torch::jit::Lexer lexer(std::make_shared<torch::jit::Source>(text));
  torch::jit::SchemaTypeParser parser = compat::SchemaTypeParserFor(lexer);
  // The "real" type keeps ScalarType, Layout and MemoryFormat distinct from int.
  c10::TypePtr real = std::get<1>(parser.parseFakeAndRealType());
  if (lexer.cur().kind != torch::jit::TK_EOF) {
    TORCH_CHECK(false, "unexpected '", lexer.cur().text(), "' after the type");
  }
  return real;
}

}  // namespace

std::shared_ptr<torch::jit::Resolver> MakeTypeResolver() {
  return std::make_shared<TsbridgeResolver>(nullptr);
}

absl::StatusOr<c10::TypePtr> ParseType(absl::string_view text,
                                       const TypeNameLookup* extra) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError("invalid TorchScript type \"\": the string is empty");
  }
  // LibTorch's parsers recurse once per bracket: "List[" 100k times would
  // overflow the stack (found by tests/reliability/hostile). No real type
  // nests this deep.
  constexpr int kMaxNesting = 256;
  int nesting = 0;
  for (char c : text) {
    nesting += (c == '[' || c == '(') - (c == ']' || c == ')');
    if (nesting > kMaxNesting) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid TorchScript type: nested deeper than ", kMaxNesting, " levels"));
    }
  }
  // Before the parse lock: a plugin offered for a name the text mentions
  // parses its own types while it loads.
  if (MissHandler* handler = TypeRegistry::Global().miss_handler()) {
    TSB_RETURN_IF_ERROR(handler->ProvideNamesIn(text).status());
  }
  std::string source(text);
  std::string script_error;
  // LibTorch 1.13's frontend parsers share unsynchronised global tables
  // (ThreadSanitizer shows concurrent parses racing inside libtorch_cpu), so
  // parses are serialised. tsb_type_parse caches its results: a host parses a
  // type string once, and later parses of it take no lock.
  static std::mutex parse_mutex;
  std::lock_guard<std::mutex> lock(parse_mutex);
  try {
    return ParseScriptSyntax(source, extra);
  } catch (const std::exception& e) {
    script_error = FirstLine(e.what());
  }
  try {
    return ParseSchemaSyntax(source);
  } catch (const std::exception&) {
    // The annotation syntax is the documented one: report its reason.
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid TorchScript type \"", text, "\": ", script_error,
      extra == nullptr && absl::StrContains(text, "__torch__.")
          ? " (a type a module declares is parsed with tsb_module_parse_type)"
          : ""));
}

namespace {
// ParseAndIntern's results by text.
struct ParseCache {
  std::mutex mutex;
  LockFreeMap<std::string, const TypeInfo*> types;
};
ParseCache& TheParseCache() {
  static ParseCache* const cache = new ParseCache();  // never destroyed
  return *cache;
}
}  // namespace

absl::StatusOr<const TypeInfo*> ParseAndIntern(absl::string_view text) {
  ParseCache& cache = TheParseCache();
  if (const TypeInfo* const* known = cache.types.Find(text)) return *known;
  TSB_ASSIGN_OR_RETURN(c10::TypePtr type, ParseType(text));
  TSB_ASSIGN_OR_RETURN(const TypeInfo* info, TypeRegistry::Global().Intern(type));
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.types.Insert(std::string(text), info);
  return info;
}

bool IsIdentifier(absl::string_view name) {
  return !name.empty() && !absl::ascii_isdigit(name[0]) &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return absl::ascii_isalnum(c) || c == '_'; });
}

std::string QualifiedName(const c10::ClassType& type) {
  return type.name().has_value() ? type.name()->qualifiedName() : type.str();
}

}  // namespace tsb
