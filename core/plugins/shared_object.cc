#include "core/plugins/shared_object.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tsb::plugins {
namespace {

#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr int kMachine = EM_PPC64;
#else
constexpr int kMachine = -1;  // not checked
#endif

absl::Status Invalid(absl::string_view why) { return absl::InvalidArgumentError(why); }

// The hex of the NT_GNU_BUILD_ID note in a PT_NOTE segment's bytes, if any.
std::string BuildId(const std::string& notes) {
  size_t at = 0;
  while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
    Elf64_Nhdr note;
    std::memcpy(&note, notes.data() + at, sizeof note);
    const size_t name_at = at + sizeof note;
    const size_t desc_at = name_at + ((note.n_namesz + 3) & ~size_t{3});
    const size_t end = desc_at + ((note.n_descsz + 3) & ~size_t{3});
    if (note.n_namesz > notes.size() || note.n_descsz > notes.size() || end > notes.size()) {
      break;
    }
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
        std::memcmp(notes.data() + name_at, "GNU", 4) == 0) {
      std::string hex;
      for (size_t i = 0; i < note.n_descsz; ++i) {
        absl::StrAppend(&hex, absl::Hex(static_cast<unsigned char>(notes[desc_at + i]),
                                        absl::kZeroPad2));
      }
      return hex;
    }
    at = end;
  }
  return "";
}

}  // namespace

absl::StatusOr<SharedObjectInfo> CheckSharedObject(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return SharedObjectInfo{};  // dlopen says why it cannot open it
  const auto size = static_cast<uint64_t>(in.tellg());
  auto read = [&](uint64_t offset, uint64_t n) {
    std::string bytes(n, '\0');
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(bytes.data(), static_cast<std::streamsize>(n));
    return bytes;
  };
  if (size < EI_NIDENT) return Invalid(absl::StrCat("file too short (", size, " bytes)"));
  const std::string ident = read(0, EI_NIDENT);
  if (std::memcmp(ident.data(), ELFMAG, SELFMAG) != 0) return SharedObjectInfo{};
  if (ident[EI_CLASS] != ELFCLASS64) {
    return Invalid(ident[EI_CLASS] == ELFCLASS32
                       ? "wrong ELF class: ELFCLASS32 (this process is 64-bit)"
                       : "invalid ELF header (unknown class)");
  }
  if (ident[EI_DATA] != ELFDATA2LSB) {
    return Invalid("wrong byte order: not a little-endian ELF file, as this machine is");
  }
  if (size < sizeof(Elf64_Ehdr)) {
    return Invalid(absl::StrCat("file too short (", size, " bytes, the ELF header alone is ",
                                sizeof(Elf64_Ehdr), ")"));
  }
  Elf64_Ehdr header;
  std::memcpy(&header, read(0, sizeof header).data(), sizeof header);
  if (kMachine >= 0 && header.e_machine != kMachine) {
    return Invalid(absl::StrCat("built for another machine (ELF machine ", header.e_machine,
                                ", this process is ", kMachine, ")"));
  }
  if (header.e_type != ET_DYN) {
    return Invalid(absl::StrCat("not a shared object (ELF type ", header.e_type, ")"));
  }
  if (header.e_phentsize != sizeof(Elf64_Phdr)) {
    return Invalid(absl::StrCat("invalid ELF header (program header size ",
                                header.e_phentsize, ")"));
  }
  const uint64_t table_end = header.e_phoff + uint64_t{header.e_phnum} * sizeof(Elf64_Phdr);
  if (header.e_phoff > size || table_end > size) {
    return Invalid(absl::StrCat("truncated: the program headers end at byte ", table_end,
                                ", the file has ", size));
  }
  const std::string table = read(header.e_phoff, table_end - header.e_phoff);
  SharedObjectInfo info;
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, table.data() + i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD && ph.p_type != PT_NOTE && ph.p_type != PT_DYNAMIC) continue;
    if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
      return Invalid(absl::StrCat("truncated: segment ", i, " needs bytes up to ",
                                  ph.p_offset + ph.p_filesz, ", the file has ", size));
    }
    if (ph.p_type == PT_NOTE && info.build_id.empty() && ph.p_filesz <= (1u << 16)) {
      info.build_id = BuildId(read(ph.p_offset, ph.p_filesz));
    }
  }
  return info;
}

}  // namespace tsb::plugins

namespace tsb::plugins {
namespace {

// A T at `offset` of `image`, if it lies inside.
template <typename T>
bool ReadAt(absl::string_view image, uint64_t offset, T* out) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return false;
  std::memcpy(out, image.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::vector<std::string> NeededLibraries(absl::string_view image) {
  Elf64_Ehdr header;
  if (!ReadAt(image, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_phentsize != sizeof(Elf64_Phdr)) {
    return {};
  }
  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> dynamic;
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!ReadAt(image, header.e_phoff + uint64_t{i} * sizeof ph, &ph)) return {};
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) dynamic = ph;
  }
  if (!dynamic) return {};
  // DT_STRTAB is an address: the file offset is found through its segment.
  std::vector<uint64_t> needed;
  std::optional<uint64_t> strtab;
  for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dynamic->p_filesz; at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn entry;
    if (!ReadAt(image, dynamic->p_offset + at, &entry) || entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_NEEDED) needed.push_back(entry.d_un.d_val);
    if (entry.d_tag == DT_STRTAB) strtab = entry.d_un.d_ptr;
  }
  if (!strtab) return {};
  std::optional<uint64_t> strings;
  for (const Elf64_Phdr& load : loads) {
    if (*strtab >= load.p_vaddr && *strtab - load.p_vaddr < load.p_filesz) {
      strings = load.p_offset + (*strtab - load.p_vaddr);
    }
  }
  std::vector<std::string> names;
  for (uint64_t name : needed) {
    if (!strings || *strings > image.size() || name >= image.size() - *strings) return {};
    absl::string_view rest = image.substr(*strings + name);
    size_t end = rest.find('\0');
    if (end == absl::string_view::npos) return {};
    names.emplace_back(rest.substr(0, end));
  }
  return names;
}

}  // namespace tsb::plugins
