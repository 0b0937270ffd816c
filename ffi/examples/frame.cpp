// The C example's frame sequence from C++: the same output, with the character's memory and the blob owned by
// RAII wrappers and errors turned into exceptions at the boundary.
//
//   c++ -std=c++17 frame.cpp -I ffi/include target/release/libsinew_ffi.a -o frame_cpp && ./frame_cpp docs/example.snw
#include "sinew.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kFrames = 24;
constexpr int kTransitionFrame = 12;
constexpr int kMoveFrame = 18;

void check(sinew_status status, const char *what) {
  if (status != SINEW_OK) throw std::runtime_error(std::string(what) + ": " + sinew_status_message(status));
}

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};
using Aligned = std::unique_ptr<void, FreeDeleter>;

Aligned aligned_bytes(size_t align, size_t len) {
  Aligned memory(std::aligned_alloc(align, (len + align - 1) / align * align));
  if (!memory) throw std::bad_alloc();
  return memory;
}

void print_floats(char tag, int frame, const float *values, size_t count) {
  std::printf("%c %d:", tag, frame);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    std::printf(" %08x", static_cast<unsigned>(bits));
  }
  std::printf("\n");
}

// A character and the memory it lives in.
class Character {
 public:
  Character(const sinew_asset &asset, const sinew_character_desc &desc) {
    check(sinew_character_required_bytes(&asset, &desc, &bytes_), "sinew_character_required_bytes");
    memory_ = aligned_bytes(SINEW_CHARACTER_ALIGN, bytes_);
    check(sinew_character_init(memory_.get(), bytes_, &asset, &desc, &handle_), "sinew_character_init");
  }

  // Copies the character to new memory and frees the old: the copy carries on where the original stopped.
  void move_memory() {
    Aligned moved = aligned_bytes(SINEW_CHARACTER_ALIGN, bytes_);
    std::memcpy(moved.get(), memory_.get(), bytes_);
    std::memset(memory_.get(), 0, bytes_);
    memory_ = std::move(moved);
    handle_ = static_cast<sinew_character *>(memory_.get());
  }

  sinew_character *get() const { return handle_; }

 private:
  size_t bytes_ = 0;
  Aligned memory_;
  sinew_character *handle_ = nullptr;
};

int run(const char *path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file && !file.eof()) throw std::runtime_error(std::string("cannot read ") + path);
  Aligned blob = aligned_bytes(SINEW_BLOB_ALIGN, bytes.size() + 1);
  std::memcpy(blob.get(), bytes.data(), bytes.size());

  sinew_asset asset;
  check(sinew_asset_load(static_cast<const uint8_t *>(blob.get()), bytes.size(), &asset), "sinew_asset_load");
  uint32_t joints = 0, clips = 0, skin_joints = 0;
  check(sinew_asset_num_joints(&asset, &joints), "sinew_asset_num_joints");
  check(sinew_asset_num_clips(&asset, &clips), "sinew_asset_num_clips");
  check(sinew_asset_num_skin_joints(&asset, &skin_joints), "sinew_asset_num_skin_joints");
  std::printf("abi %u joints %u clips %u skin %u\n", static_cast<unsigned>(sinew_abi_version()),
              static_cast<unsigned>(joints), static_cast<unsigned>(clips), static_cast<unsigned>(skin_joints));
  for (uint32_t j = 0; j < joints; ++j) {
    const char *name = nullptr;
    size_t len = 0;
    check(sinew_asset_joint_name(&asset, j, &name, &len), "sinew_asset_joint_name");
    std::printf("joint %u %.*s\n", static_cast<unsigned>(j), static_cast<int>(len), name);
  }
  for (uint32_t c = 0; c < clips; ++c) {
    float duration = 0.0f;
    check(sinew_asset_clip_duration(&asset, c, &duration), "sinew_asset_clip_duration");
    print_floats('d', static_cast<int>(c), &duration, 1);
  }

  const sinew_layer_desc layers[1] = {{SINEW_LAYER_BASE, 1}};
  sinew_character_desc desc{};
  desc.layers = layers;
  desc.num_layers = 1;
  desc.inertialization = SINEW_INERTIALIZATION_DEFAULT;
  desc.skinned = skin_joints > 0;
  Character character(asset, desc);
  check(sinew_character_play(character.get(), &asset, 0, 0, 0.0f, 1.0f, 1.0f), "sinew_character_play");
  for (int frame = 0; frame < kFrames; ++frame) {
    if (frame == kTransitionFrame) {
      check(sinew_character_transition(character.get(), &asset, clips - 1, 0.0f, 1.0f, 0.25f),
            "sinew_character_transition");
    }
    if (frame == kMoveFrame) character.move_memory();
    check(sinew_character_update(character.get(), &asset, 1.0f / 30.0f), "sinew_character_update");
    const float *values = nullptr;
    size_t count = 0;
    check(sinew_character_model_matrices(character.get(), &values, &count), "sinew_character_model_matrices");
    print_floats('m', frame, values, count * 16);
    check(sinew_character_palette_3x4(character.get(), &values, &count), "sinew_character_palette_3x4");
    print_floats('p', frame, values, count * 12);
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s BLOB\n", argv[0]);
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
