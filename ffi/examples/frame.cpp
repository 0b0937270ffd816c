// The C example's frame sequence from C++ through sinew.hpp: the same output, with the character's memory owned
// by sinew::Character (through an allocator), statuses instead of exceptions, and the character relocated
// half-way through as a pool compaction would.
//
//   c++ -std=c++17 frame.cpp -I ffi/include target/release/libsinew_ffi.a -o frame_cpp && ./frame_cpp docs/example.snw
#include "sinew.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace {

constexpr int kFrames = 24;
constexpr int kTransitionFrame = 12;
constexpr int kMoveFrame = 18;

bool check(sinew::Status status, const char *what) {
  if (!status) std::fprintf(stderr, "%s: %s (status %d)\n", what, status.message(), static_cast<int>(status.code()));
  return status.ok();
}

void print_floats(char tag, int frame, sinew::Span<const float> values) {
  std::printf("%c %d:", tag, frame);
  for (float value : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    std::printf(" %08x", static_cast<unsigned>(bits));
  }
  std::printf("\n");
}

int run(const char *path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.empty()) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  // The blob, SINEW_BLOB_ALIGN-aligned (u128-sized words), alive while the asset is used.
  struct alignas(SINEW_BLOB_ALIGN) Word {
    unsigned char bytes[SINEW_BLOB_ALIGN];
  };
  std::vector<Word> blob((bytes.size() + SINEW_BLOB_ALIGN - 1) / SINEW_BLOB_ALIGN);
  std::memcpy(blob.data(), bytes.data(), bytes.size());

  sinew::Result<sinew::Asset> loaded = sinew::Asset::load(blob.data(), bytes.size());
  if (!check(loaded.status(), "sinew::Asset::load")) return 1;
  const sinew::Asset &asset = *loaded;
  const std::uint32_t joints = asset.num_joints(), clips = asset.num_clips(), skin = asset.num_skin_joints();
  std::printf("abi %u joints %u clips %u skin %u\n", static_cast<unsigned>(sinew_abi_version()),
              static_cast<unsigned>(joints), static_cast<unsigned>(clips), static_cast<unsigned>(skin));
  for (std::uint32_t j = 0; j < joints; ++j) {
    sinew::Result<std::string_view> name = asset.joint_name(j);
    if (!check(name.status(), "joint_name")) return 1;
    std::printf("joint %u %.*s\n", static_cast<unsigned>(j), static_cast<int>(name->size()), name->data());
  }
  for (std::uint32_t c = 0; c < clips; ++c) {
    sinew::Result<float> duration = asset.clip_duration(c);
    if (!check(duration.status(), "clip_duration")) return 1;
    print_floats('d', static_cast<int>(c), sinew::Span<const float>(&*duration, 1));
  }

  const sinew_layer_desc layers[1] = {{SINEW_LAYER_BASE, 1}};
  sinew_character_desc desc{};
  desc.layers = layers;
  desc.num_layers = 1;
  desc.inertialization = SINEW_INERTIALIZATION_DEFAULT;
  desc.skinned = skin > 0;
  sinew::Result<sinew::Character> created = sinew::Character::create(asset, desc);
  if (!check(created.status(), "sinew::Character::create")) return 1;
  sinew::Character character = std::move(*created);
  if (!check(character.play(asset, 0, 0, 0.0f, 1.0f, 1.0f), "play")) return 1;
  for (int frame = 0; frame < kFrames; ++frame) {
    if (frame == kTransitionFrame && !check(character.transition(asset, clips - 1, 0.0f, 1.0f, 0.25f), "transition")) {
      return 1;
    }
    if (frame == kMoveFrame && !check(character.relocate(), "relocate")) return 1;
    if (!check(character.update(asset, 1.0f / 30.0f), "update")) return 1;
    sinew::Result<sinew::Matrices<16>> model = character.model_matrices();
    sinew::Result<sinew::Matrices<12>> palette = character.palette();
    if (!check(model.status(), "model_matrices") || !check(palette.status(), "palette")) return 1;
    print_floats('m', frame, model->floats());
    print_floats('p', frame, palette->floats());
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s BLOB\n", argv[0]);
    return 2;
  }
  return run(argv[1]);
}
