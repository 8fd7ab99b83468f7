// libFuzzer: the host kit's build (tsbridge/host/kit/build.hpp) with a host
// of host values the bytes make (None, bool, int, float, str, sequences,
// string-keyed maps, sequences that name their items, as a Python
// namedtuple or an R named list does), built by kit::Build against a parsed
// type twice: in one pass (every builder appending to one buffer, one
// tsb_any_unflatten) and container by container (tsb_list_new, ...; what a
// library older than 1.9 gets). Both must fail or both give the same value
// of the same type; no handle is left alive. The input is "<type string>\n
// <bytes>".
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tsbridge/host/kit.hpp"
#include "fuzz_input.h"
#include "no_backtraces.h"
#include "tests/testing/kit_build_access.h"

namespace {

struct Node;
using NodePtr = std::unique_ptr<Node>;
struct Seq {
  std::vector<NodePtr> items;
  bool named = false;  // items named f0, f1, ...: a record of the host's
};
using Map = std::vector<std::pair<std::string, NodePtr>>;
struct Node {
  std::variant<std::monostate, bool, int64_t, double, std::string, Seq, Map> v;
};

NodePtr MakeNode(tsb::fuzz::Bytes& in, int depth) {
  auto node = std::make_unique<Node>();
  const uint8_t b = in.Next();
  switch (depth >= 6 ? b % 5 : b % 8) {
    case 0: break;
    case 1: node->v = (in.Next() & 1) != 0; break;
    case 2: node->v = static_cast<int64_t>(static_cast<int8_t>(in.Next())); break;
    case 3: node->v = in.Next() / 4.0; break;
    case 4: node->v = std::string(in.Next() % 3, static_cast<char>('a' + in.Next() % 3)); break;
    case 5:
    case 6: {
      Seq seq;
      seq.named = b % 8 == 6;
      for (int i = in.Next() % 5; i > 0; --i) seq.items.push_back(MakeNode(in, depth + 1));
      node->v = std::move(seq);
      break;
    }
    default: {
      Map map;
      for (int i = in.Next() % 4; i > 0; --i) {
        map.emplace_back(std::string(1, static_cast<char>('a' + in.Next() % 4)),
                         MakeNode(in, depth + 1));
      }
      node->v = std::move(map);
    }
  }
  return node;
}

struct Entry : tsb::kit::TypeInfo {
  void Complete() {}
};

// As tests/sdk/host_kit_test.cc's host, plus records that name their items.
class FuzzHost {
 public:
  using In = const Node&;
  using Entry = ::Entry;
  using Guard = tsb::kit::NestingGuard;
  using Context = tsb::kit::BuildContext;

  const Entry& Type(int32_t index) { return types_.Get(index); }
  bool IsNone(In x) { return std::holds_alternative<std::monostate>(x.v); }
  void Leaf(In x, int32_t, Context& context, tsb_any* out) { Untyped(x, context, out); }
  void Untyped(In x, Context& context, tsb_any* out) {
    if (IsNone(x)) {
      *out = tsb_any_none();
    } else if (auto* b = std::get_if<bool>(&x.v)) {
      *out = tsb_any_bool(*b);
    } else if (auto* i = std::get_if<int64_t>(&x.v)) {
      *out = tsb_any_int(*i);
    } else if (auto* d = std::get_if<double>(&x.v)) {
      *out = tsb_any_float(*d);
    } else if (auto* s = std::get_if<std::string>(&x.v)) {
      tsb::kit::CheckStatus(tsb_str_new(s->data(), s->size(), out));
    } else if (auto* seq = std::get_if<Seq>(&x.v)) {
      if (seq->named) return BuildTuple(*seq, nullptr, context, out);
      BuildSeq(*seq, TSB_TYPE_ANY, context, out);
    } else {
      BuildMap(std::get<Map>(x.v), TSB_TYPE_STR, TSB_TYPE_ANY, context, out);
    }
  }
  bool List(In x, const Entry& type, Context& context, tsb_any* out) {
    const Seq* seq = std::get_if<Seq>(&x.v);
    if (seq == nullptr) return false;
    BuildSeq(*seq, type.contained[0], context, out);
    return true;
  }
  bool Tuple(In x, const Entry& type, Context& context, tsb_any* out) {
    const Seq* seq = std::get_if<Seq>(&x.v);
    if (seq == nullptr) return false;
    BuildTuple(*seq, &type, context, out);
    return true;
  }
  bool Dict(In x, const Entry& type, Context& context, tsb_any* out) {
    const Map* map = std::get_if<Map>(&x.v);
    if (map == nullptr) return false;
    BuildMap(*map, type.contained[0], type.contained[1], context, out);
    return true;
  }
  bool Enum(In, const Entry&, tsb_any*) { return false; }
  [[noreturn]] void Mismatch(In, int32_t) { tsb::kit::Fail(TSB_ERR_TYPE, "no member took it"); }

 private:
  void BuildSeq(const Seq& seq, int32_t element, Context& context, tsb_any* out) {
    tsb::kit::ListBuilder b(context, element, seq.items.size());
    for (size_t i = 0; i < seq.items.size(); ++i) {
      b.Item(i, [&](tsb_any* item) { tsb::kit::Build(*this, context, *seq.items[i], element, item); });
    }
    b.Finish(out);
  }
  void BuildTuple(const Seq& seq, const Entry* type, Context& context, tsb_any* out) {
    tsb::kit::TupleBuilder<Entry> b(context, type, seq.items.size());
    for (size_t i = 0; i < b.size(); ++i) {
      b.Item(i, [&](tsb_any* item) { tsb::kit::Build(*this, context, *seq.items[i], b.element(i), item); });
    }
    if (!seq.named || seq.items.empty()) return b.Finish(out);
    std::vector<std::string> held;
    std::vector<const char*> fields;
    for (size_t i = 0; i < b.size(); ++i) held.push_back("f" + std::to_string(i));
    for (const std::string& f : held) fields.push_back(f.c_str());
    b.FinishNamed(nullptr, fields, out);
  }
  void BuildMap(const Map& map, int32_t key_type, int32_t value_type, Context& context,
                tsb_any* out) {
    tsb::kit::DictBuilder b(context, key_type, value_type, map.size());
    for (size_t i = 0; i < map.size(); ++i) {
      b.Entry(
          i, [&] { return tsb::kit::StrKeySegment(map[i].first); },
          [&](tsb_any* k) {
            tsb::kit::Build(*this, context, Node{map[i].first}, key_type, k);
          },
          [&](tsb_any* v) { tsb::kit::Build(*this, context, *map[i].second, value_type, v); });
    }
    b.Finish(out);
  }
  tsb::kit::TypeCache<Entry> types_;
};

// The value's JSON, or "" when kit::Build refused it. Not the error: with
// two faults the one pass names the first in pre-order, container by
// container the first container finished.
std::string BuildJson(const Node& tree, int32_t type, bool per_container, int32_t* built_type) {
  FuzzHost host;
  tsb::Value v;
  try {
    tsb::kit::BuildContext context;
    if (per_container) tsb::kit::internal::BuildContextAccess::MakePerContainer(context);
    tsb::kit::Build(host, context, tree, type, v.out());
  } catch (const tsb::kit::ConvertError&) {
    return "";
  }
  *built_type = v.type_index();
  const std::string json = tsb::fuzz::JsonOf(v.get());
  return json.empty() ? "(no JSON)" : json;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsb::fuzz::DropLibTorchBacktraces();
  tsb::fuzz::LoadBundledPlugins();
  int32_t type = TSB_TYPE_INVALID;
  tsb::fuzz::Bytes in{};
  if (!tsb::fuzz::SplitTyped(data, size, &type, &in)) return 0;
  const NodePtr tree = MakeNode(in, 0);
  const size_t live_before = ::tsb::LiveHandles();
  int32_t one_pass_type = TSB_TYPE_INVALID, per_container_type = TSB_TYPE_INVALID;
  const std::string one_pass = BuildJson(*tree, type, false, &one_pass_type);
  const std::string per_container = BuildJson(*tree, type, true, &per_container_type);
  if (one_pass != per_container || one_pass_type != per_container_type) {
    std::fprintf(stderr, "one pass: %s (type %d)\nper container: %s (type %d)\n",
                 one_pass.c_str(), one_pass_type, per_container.c_str(), per_container_type);
    std::abort();
  }
  if (::tsb::LiveHandles() != live_before) std::abort();  // a leak is a finding
  return 0;
}
