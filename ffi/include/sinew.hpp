// sinew: a header-only C++17 layer over the C ABI (sinew.h). No exceptions and no allocation of its own: every
// call returns a Status or a Result (a value or the status that explains its absence); a Character, a
// SamplingContext and an Inertializer own their memory through the caller's Allocator and free it when destroyed. Everything else (layouts, threading,
// what each call checks) is the C header's.
#ifndef SINEW_HPP
#define SINEW_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>

#include "sinew.h"

namespace sinew {

// A call's outcome: SINEW_OK or the error's class.
class Status {
 public:
  constexpr Status(sinew_status code = SINEW_OK) noexcept : code_(code) {}
  constexpr bool ok() const noexcept { return code_ == SINEW_OK; }
  constexpr explicit operator bool() const noexcept { return ok(); }
  constexpr sinew_status code() const noexcept { return code_; }
  // A static string; never NULL.
  const char *message() const noexcept { return sinew_status_message(code_); }

 private:
  sinew_status code_;
};

// A value, or the status that says why there is none (std::expected's shape, without exceptions).
template <class T>
class Result {
 public:
  Result(T value) noexcept : value_(std::move(value)), status_(SINEW_OK) {}
  Result(Status status) noexcept : value_(), status_(status.ok() ? Status(SINEW_ERROR_INTERNAL) : status) {}
  bool ok() const noexcept { return status_.ok(); }
  explicit operator bool() const noexcept { return ok(); }
  Status status() const noexcept { return status_; }
  // The value; meaningful only when ok().
  T &operator*() noexcept { return value_; }
  const T &operator*() const noexcept { return value_; }
  T *operator->() noexcept { return &value_; }
  const T *operator->() const noexcept { return &value_; }
  T value_or(T fallback) const noexcept { return ok() ? value_ : fallback; }

 private:
  T value_;
  Status status_;
};

// A view of `size` contiguous elements (std::span's shape, for C++17).
template <class T>
class Span {
 public:
  constexpr Span() noexcept = default;
  constexpr Span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <std::size_t N>
  constexpr Span(T (&array)[N]) noexcept : data_(array), size_(N) {}
  constexpr T *data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
  constexpr T *begin() const noexcept { return data_; }
  constexpr T *end() const noexcept { return data_ + size_; }

 private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
};

// `count` matrices of `Floats` floats each, back to back: model matrices (16, column-major) or the skinning
// palette (12, three rows of four). matrix(i) points to matrix i's first float.
template <std::size_t Floats>
struct Matrices {
  const float *data = nullptr;
  std::size_t count = 0;
  const float *matrix(std::size_t i) const noexcept { return data + Floats * i; }
  Span<const float> floats() const noexcept { return Span<const float>(data, count * Floats); }
};

// Where a character's memory comes from: `allocate` returns `bytes` bytes aligned to `align` (or NULL), and
// `deallocate` takes them back; `user` is passed to both. The default uses aligned operator new (nothrow).
struct Allocator {
  void *(*allocate)(void *user, std::size_t bytes, std::size_t align) noexcept;
  void (*deallocate)(void *user, void *memory, std::size_t bytes, std::size_t align) noexcept;
  void *user;

  static Allocator standard() noexcept {
    return Allocator{
        [](void *, std::size_t bytes, std::size_t align) noexcept -> void * {
          return ::operator new(bytes, std::align_val_t(align), std::nothrow);
        },
        [](void *, void *memory, std::size_t, std::size_t align) noexcept {
          ::operator delete(memory, std::align_val_t(align), std::nothrow);
        },
        nullptr};
  }
};

// A marker of a clip: local time (seconds), the author's value, and its name (bytes inside the blob).
struct Marker {
  float time = 0.0f;
  float value = 0.0f;
  std::string_view name;
};

// A clip's knot times (seconds, one per frame, inside the blob); empty for a clip with uniform frames.
struct Knots {
  const float *times = nullptr;
  std::uint32_t count = 0;

  const float *begin() const noexcept { return times; }
  const float *end() const noexcept { return times + count; }
};

// The root motion of the last update: the motion root's translation (file units) and its turn about +Y.
struct RootMotion {
  float translation[3] = {0.0f, 0.0f, 0.0f};
  float yaw = 0.0f;
};

// An axis-aligned box in model space.
struct Bounds {
  float min[3] = {0.0f, 0.0f, 0.0f};
  float max[3] = {0.0f, 0.0f, 0.0f};
};

// A loaded asset: a validated view of the caller's blob, which must outlive it. Copyable (it holds no pointer
// but the blob's); const, so threads may share it. A default-constructed Asset is not loaded: every call on
// it reports SINEW_ERROR_INVALID_HANDLE.
class Asset {
 public:
  Asset() noexcept : raw_() {}

  // Validates the `len` bytes at `blob` (SINEW_BLOB_ALIGN-aligned) once.
  static Result<Asset> load(const void *blob, std::size_t len) noexcept {
    Asset asset;
    Status status = sinew_asset_load(static_cast<const std::uint8_t *>(blob), len, &asset.raw_);
    if (!status) return status;
    return asset;
  }

  const sinew_asset *get() const noexcept { return &raw_; }

  std::uint32_t num_joints() const noexcept { return count(sinew_asset_num_joints); }
  std::uint32_t num_clips() const noexcept { return count(sinew_asset_num_clips); }
  std::uint32_t num_skin_joints() const noexcept { return count(sinew_asset_num_skin_joints); }

  Result<float> clip_duration(std::uint32_t clip) const noexcept {
    float duration = 0.0f;
    Status status = sinew_asset_clip_duration(&raw_, clip, &duration);
    if (!status) return status;
    return duration;
  }

  Result<std::string_view> joint_name(std::uint32_t joint) const noexcept {
    const char *name = nullptr;
    std::size_t len = 0;
    Status status = sinew_asset_joint_name(&raw_, joint, &name, &len);
    if (!status) return status;
    return std::string_view(name, len);
  }

  Result<std::uint32_t> find_clip(std::string_view name) const noexcept {
    std::uint32_t index = 0;
    return found(sinew_asset_find_clip(&raw_, name.data(), name.size(), &index), index);
  }

  Result<std::uint32_t> find_curve(std::uint32_t clip, std::string_view name) const noexcept {
    std::uint32_t index = 0;
    return found(sinew_asset_find_curve(&raw_, clip, name.data(), name.size(), &index), index);
  }

  Result<Knots> clip_knots(std::uint32_t clip) const noexcept {
    Knots knots;
    Status status = sinew_asset_clip_knots(&raw_, clip, &knots.times, &knots.count);
    if (!status) return status;
    if (knots.count == 0) knots.times = nullptr;
    return knots;
  }

  // The motion database baked with the clips (`sinew-bake bake --motion-database`): dimensions, frames, groups
  // and bytes; SINEW_ERROR_INVALID_ARGUMENT for an asset baked without one.
  Result<sinew_motion_database_info> motion_database() const noexcept {
    sinew_motion_database_info info{};
    Status status = sinew_motion_database_describe(&raw_, &info);
    if (!status) return status;
    return info;
  }

  // Frame `frame`'s features as the schema measured them, `len` (the dimension count) floats into `out`.
  Status motion_features(std::uint32_t frame, float *out, std::size_t len) const noexcept {
    return sinew_motion_database_features(&raw_, frame, out, len);
  }

  // The database frame nearest the request's query, exactly (see sinew_motion_search).
  Result<sinew_motion_match> motion_search(const sinew_motion_search_request &request) const noexcept {
    sinew_motion_match match{};
    Status status = sinew_motion_search(&raw_, &request, &match);
    if (!status) return status;
    return match;
  }

  Result<std::uint32_t> num_markers(std::uint32_t clip) const noexcept {
    std::uint32_t count = 0;
    return found(sinew_asset_num_markers(&raw_, clip, &count), count);
  }

  Result<Marker> marker(std::uint32_t clip, std::uint32_t index) const noexcept {
    Marker marker;
    const char *name = nullptr;
    std::size_t len = 0;
    Status status = sinew_asset_marker(&raw_, clip, index, &marker.time, &marker.value, &name, &len);
    if (!status) return status;
    marker.name = std::string_view(name, len);
    return marker;
  }

 private:
  std::uint32_t count(sinew_status (*query)(const sinew_asset *, std::uint32_t *)) const noexcept {
    std::uint32_t n = 0;
    return query(&raw_, &n) == SINEW_OK ? n : 0;
  }

  static Result<std::uint32_t> found(Status status, std::uint32_t value) noexcept {
    if (!status) return status;
    return value;
  }

  sinew_asset raw_;
};

// Memory from an Allocator, freed when destroyed; move-only. What a Character, a SamplingContext and an
// Inertializer live in.
class Memory {
 public:
  Memory() noexcept = default;
  Memory(Allocator allocator, std::size_t bytes, std::size_t align) noexcept
      : allocator_(allocator), memory_(allocator.allocate(allocator.user, bytes, align)), bytes_(bytes), align_(align) {
    if (memory_ == nullptr) bytes_ = 0;
  }
  Memory(Memory &&other) noexcept { *this = std::move(other); }
  Memory &operator=(Memory &&other) noexcept {
    if (this != &other) {
      release();
      allocator_ = other.allocator_;
      memory_ = std::exchange(other.memory_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
      align_ = other.align_;
    }
    return *this;
  }
  Memory(const Memory &) = delete;
  Memory &operator=(const Memory &) = delete;
  ~Memory() { release(); }

  void *get() const noexcept { return memory_; }
  std::size_t bytes() const noexcept { return bytes_; }

  // Copies the bytes to new memory from the same allocator and frees the old (a pool compaction).
  Status relocate() noexcept {
    if (memory_ == nullptr) return Status(SINEW_ERROR_NULL_POINTER);
    void *moved = allocator_.allocate(allocator_.user, bytes_, align_);
    if (moved == nullptr) return Status(SINEW_ERROR_MEMORY_TOO_SMALL);
    std::memcpy(moved, memory_, bytes_);
    allocator_.deallocate(allocator_.user, memory_, bytes_, align_);
    memory_ = moved;
    return Status();
  }

 private:
  void release() noexcept {
    if (memory_ != nullptr) allocator_.deallocate(allocator_.user, memory_, bytes_, align_);
    memory_ = nullptr;
    bytes_ = 0;
  }

  Allocator allocator_ = Allocator::standard();
  void *memory_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t align_ = 1;
};

// Lays out an object of `bytes` in memory from `allocator` with `init`; the memory, or the status why not.
template <class Init>
Result<Memory> laid_out(Allocator allocator, std::size_t bytes, std::size_t align, Init init) noexcept {
  Memory memory(allocator, bytes, align);
  if (memory.get() == nullptr) return Status(SINEW_ERROR_MEMORY_TOO_SMALL);
  Status status = init(memory.get(), bytes);
  if (!status) return status;
  return memory;
}

// A pose being edited: its model matrices (which an edit may move) and its local pose, for the job calls.
struct PoseView {
  const sinew_asset *asset = nullptr;
  Span<sinew_mat4> model;
  Span<sinew_soa_transform> local;
};

// Whether the chain's end reached the target: the two-bone solve on a pose (its model matrices read).
inline Result<bool> two_bone_ik(const PoseView &pose, const sinew_two_bone &request) noexcept {
  std::uint32_t reached = 0;
  Status status = sinew_two_bone_ik(pose.asset, pose.model.data(), pose.model.size(), pose.local.data(),
                                    pose.local.size(), &request, &reached);
  if (!status) return status;
  return reached != 0;
}

// SINEW_AIM_* flags of an aim on a pose.
inline Result<std::uint32_t> aim_ik(const PoseView &pose, const sinew_aim &request) noexcept {
  std::uint32_t flags = 0;
  Status status = sinew_aim_ik(pose.asset, pose.model.data(), pose.model.size(), pose.local.data(),
                               pose.local.size(), &request, &flags);
  if (!status) return status;
  return flags;
}

// A sampling context in memory from the caller's Allocator; keep one per clip playing forward. Move-only.
class SamplingContext {
 public:
  // `interpolation`: SINEW_INTERPOLATION_LINEAR or SINEW_INTERPOLATION_CUBIC.
  static Result<SamplingContext> create(std::uint32_t joints, std::uint32_t max_tracks,
                                        Allocator allocator = Allocator::standard(),
                                        std::uint32_t interpolation = SINEW_INTERPOLATION_LINEAR) noexcept {
    std::size_t bytes = 0;
    Status status = sinew_sampling_context_required_bytes_for(joints, max_tracks, interpolation, &bytes);
    if (!status) return status;
    sinew_sampling_context *handle = nullptr;
    Result<Memory> memory = laid_out(allocator, bytes, SINEW_STATE_ALIGN, [&](void *at, std::size_t len) {
      return Status(sinew_sampling_context_init_for(at, len, joints, max_tracks, interpolation, &handle));
    });
    if (!memory) return memory.status();
    return SamplingContext(std::move(*memory));
  }

  SamplingContext() noexcept = default;
  sinew_sampling_context *get() const noexcept { return static_cast<sinew_sampling_context *>(memory_.get()); }
  Status relocate() noexcept { return memory_.relocate(); }

  // Clip `clip` at `time` (SINEW_WRAP_LOOP or SINEW_WRAP_CLAMP) into `pose`, and its first curves into `curves`.
  Status sample(const Asset &asset, std::uint32_t clip, float time, std::uint32_t wrap, Span<sinew_soa_transform> pose,
                Span<float> curves = Span<float>()) noexcept {
    return sinew_sample(asset.get(), clip, time, wrap, get(), pose.data(), pose.size(), curves.data(), curves.size());
  }

 private:
  explicit SamplingContext(Memory memory) noexcept : memory_(std::move(memory)) {}
  Memory memory_;
};

// An inertializer in memory from the caller's Allocator. Move-only.
class Inertializer {
 public:
  // `settings`: SINEW_INERTIALIZE_* bits.
  static Result<Inertializer> create(std::uint32_t joints, std::uint32_t curves,
                                     std::uint32_t settings = SINEW_INERTIALIZE_DEFAULT,
                                     Allocator allocator = Allocator::standard()) noexcept {
    std::size_t bytes = 0;
    Status status = sinew_inertializer_required_bytes(joints, curves, &bytes);
    if (!status) return status;
    sinew_inertializer *handle = nullptr;
    Result<Memory> memory = laid_out(allocator, bytes, SINEW_STATE_ALIGN, [&](void *at, std::size_t len) {
      return Status(sinew_inertializer_init(at, len, joints, curves, settings, &handle));
    });
    if (!memory) return memory.status();
    return Inertializer(std::move(*memory));
  }

  Inertializer() noexcept = default;
  sinew_inertializer *get() const noexcept { return static_cast<sinew_inertializer *>(memory_.get()); }
  Status relocate() noexcept { return memory_.relocate(); }

  // A transition on the next advance; `profile` empty or four factors per lane group, 16-byte aligned.
  Status request(float duration, Span<const float> profile = Span<const float>()) noexcept {
    return sinew_inertializer_request(get(), duration, profile.empty() ? nullptr : profile.data(), profile.size() / 4);
  }
  // `previous` (and `previous_curves`): the target a frame earlier, on a request frame in relative mode.
  Status advance(float dt, Span<const sinew_soa_transform> target, Span<const float> curves = Span<const float>(),
                 Span<const sinew_soa_transform> previous = Span<const sinew_soa_transform>(),
                 Span<const float> previous_curves = Span<const float>()) noexcept {
    return sinew_inertialize(get(), dt, target.data(), target.size(), curves.data(), curves.size(), previous.data(),
                             previous_curves.data());
  }
  // The last output; valid until the next call or until the memory moves.
  Result<Span<const sinew_soa_transform>> output() const noexcept {
    const sinew_soa_transform *pose = nullptr;
    const float *curves = nullptr;
    std::size_t count = 0, num_curves = 0;
    Status status = sinew_inertializer_output(get(), &pose, &count, &curves, &num_curves);
    if (!status) return status;
    return Span<const sinew_soa_transform>(pose, count);
  }
  Result<bool> transitioning() const noexcept {
    std::uint32_t on = 0;
    Status status = sinew_inertializer_is_transitioning(get(), &on);
    if (!status) return status;
    return on != 0;
  }

 private:
  explicit Inertializer(Memory memory) noexcept : memory_(std::move(memory)) {}
  Memory memory_;
};

// A blend graph's state in memory from the caller's Allocator, for one description on one asset; the caller
// keeps the description (and the node arrays it points to) for every evaluate. Move-only.
class BlendGraph {
 public:
  static Result<BlendGraph> create(const Asset &asset, const sinew_blend_graph_desc &desc,
                                   Allocator allocator = Allocator::standard()) noexcept {
    std::size_t bytes = 0;
    Status status = sinew_blend_graph_required_bytes(asset.get(), &desc, &bytes);
    if (!status) return status;
    sinew_blend_graph *handle = nullptr;
    Result<Memory> memory = laid_out(allocator, bytes, SINEW_STATE_ALIGN, [&](void *at, std::size_t len) {
      return Status(sinew_blend_graph_init(at, len, asset.get(), &desc, &handle));
    });
    if (!memory) return memory.status();
    return BlendGraph(std::move(*memory));
  }

  BlendGraph() noexcept = default;
  sinew_blend_graph *get() const noexcept { return static_cast<sinew_blend_graph *>(memory_.get()); }
  Status relocate() noexcept { return memory_.relocate(); }

  // The root's pose into `pose`: one leaf per clip node (and per chunk node's leaf), one parameter per index.
  Status evaluate(const Asset &asset, const sinew_blend_graph_desc &desc, Span<const sinew_blend_leaf> leaves,
                  Span<const float> params, Span<sinew_soa_transform> pose) noexcept {
    return sinew_blend_graph_evaluate(get(), asset.get(), &desc, leaves.data(), leaves.size(), params.data(),
                                      params.size(), pose.data(), pose.size());
  }
  // Frames leaf `leaf` has decoded since the graph was made: a leaf no weight reaches does not move it.
  Result<std::uint64_t> decoded_frames(std::uint32_t leaf) const noexcept {
    std::uint64_t frames = 0;
    Status status = sinew_blend_graph_decoded_frames(get(), leaf, &frames);
    if (!status) return status;
    return frames;
  }

 private:
  explicit BlendGraph(Memory memory) noexcept : memory_(std::move(memory)) {}
  Memory memory_;
};

// A character in memory from the caller's Allocator, freed when the Character is destroyed. Move-only. The
// memory is the character: relocate() copies it to new memory, as a pool compaction would.
// A character's motion matcher: a plain value kept beside its character (copy it with the character); every
// call checks its bytes.
class MotionMatcher {
 public:
  static sinew_motion_matcher_settings default_settings() noexcept {
    sinew_motion_matcher_settings settings{};
    sinew_motion_matcher_default_settings(&settings);
    return settings;
  }
  static Result<MotionMatcher> create(const Asset &asset, const sinew_motion_matcher_settings &settings) noexcept {
    MotionMatcher matcher;
    Status status = sinew_motion_matcher_init(&matcher.raw_, asset.get(), &settings);
    if (!status) return status;
    return matcher;
  }

  sinew_motion_matcher *get() noexcept { return &raw_; }
  // Searches on the next match whatever the timer says.
  Status request() noexcept { return sinew_motion_matcher_request(&raw_); }
  // The trajectory positions and facings a match takes ([x, z] pairs each).
  Result<std::pair<std::uint32_t, std::uint32_t>> trajectory_samples() noexcept {
    std::uint32_t positions = 0, facings = 0;
    Status status = sinew_motion_matcher_trajectory_samples(&raw_, &positions, &facings);
    if (!status) return status;
    return std::make_pair(positions, facings);
  }

 private:
  sinew_motion_matcher raw_{};
};

// What one motion-matching frame did: whether it searched, and the search's answer when it did.
struct MotionMatchStep {
  bool searched = false;
  sinew_motion_match match{};
};

class Character {
 public:
  static Result<Character> create(const Asset &asset, const sinew_character_desc &desc,
                                  Allocator allocator = Allocator::standard()) noexcept {
    std::size_t bytes = 0;
    Status status = sinew_character_required_bytes(asset.get(), &desc, &bytes);
    if (!status) return status;
    sinew_character *handle = nullptr;
    Result<Memory> memory = laid_out(allocator, bytes, SINEW_CHARACTER_ALIGN, [&](void *at, std::size_t len) {
      return Status(sinew_character_init(at, len, asset.get(), &desc, &handle));
    });
    if (!memory) return memory.status();
    return Character(std::move(*memory));
  }

  Character() noexcept = default;

  sinew_character *get() const noexcept { return static_cast<sinew_character *>(memory_.get()); }
  std::size_t bytes() const noexcept { return memory_.bytes(); }

  // Copies the character to new memory from its allocator and frees the old; it carries on unchanged.
  Status relocate() noexcept { return memory_.relocate(); }

  Status play(const Asset &asset, std::uint32_t layer, std::uint32_t clip, float time, float speed,
              float weight) noexcept {
    return sinew_character_play(get(), asset.get(), layer, clip, time, speed, weight);
  }
  Status play(const Asset &asset, const sinew_play &play) noexcept {
    return sinew_character_play_slot(get(), asset.get(), &play);
  }
  Status transition(const Asset &asset, std::uint32_t clip, float time, float speed, float duration) noexcept {
    return sinew_character_transition(get(), asset.get(), clip, time, speed, duration);
  }
  Status crossfade(const Asset &asset, std::uint32_t clip, float time, float speed, float duration) noexcept {
    return sinew_character_crossfade(get(), asset.get(), clip, time, speed, duration);
  }
  // Enters the target where `sync` (SINEW_SYNC_*) matches the leading clip's phase; the start time used.
  Result<float> transition_synced(const Asset &asset, std::uint32_t clip, float time, float speed, float duration,
                                  std::uint32_t sync) noexcept {
    float start = 0.0f;
    Status status = sinew_character_transition_synced(get(), asset.get(), clip, time, speed, duration, sync, &start);
    if (!status) return status;
    return start;
  }
  Status update(const Asset &asset, float dt) noexcept { return sinew_character_update(get(), asset.get(), dt); }
  // After update: motion matching's frame (see sinew_character_match_motion). `positions` and `facings` hold
  // [x, z] pairs in the character's frame.
  Result<MotionMatchStep> match_motion(const Asset &asset, MotionMatcher &matcher, Span<const float> positions,
                                       Span<const float> facings) noexcept {
    if (positions.size() % 2 != 0 || facings.size() % 2 != 0) return Status(SINEW_ERROR_BUFFER);
    MotionMatchStep step;
    std::uint32_t searched = 0;
    Status status = sinew_character_match_motion(get(), asset.get(), matcher.get(), positions.data(),
                                                 static_cast<std::uint32_t>(positions.size() / 2), facings.data(),
                                                 static_cast<std::uint32_t>(facings.size() / 2), &step.match,
                                                 &searched);
    if (!status) return status;
    step.searched = searched != 0;
    return step;
  }
  Status update_motion(const Asset &asset, float dt) noexcept {
    return sinew_character_update_motion(get(), asset.get(), dt);
  }
  Status set_mask(std::uint32_t mask, Span<const float> weights) noexcept {
    return sinew_character_set_mask(get(), mask, weights.data(), weights.size());
  }
  Status set_layer_masks(std::uint32_t layer, std::uint32_t mask, std::uint32_t profile) noexcept {
    return sinew_character_set_layer_masks(get(), layer, mask, profile);
  }
  Status fade_layer(std::uint32_t layer, float target, float duration) noexcept {
    return sinew_character_fade_layer(get(), layer, target, duration);
  }
  Status set_curves(Span<const float> values) noexcept {
    return sinew_character_set_curves(get(), values.data(), values.size());
  }

  Result<RootMotion> root_motion() const noexcept {
    RootMotion motion;
    Status status = sinew_character_root_motion(get(), motion.translation, &motion.yaw);
    if (!status) return status;
    return motion;
  }

  // Valid until the character's memory moves or is freed.
  Result<Matrices<16>> model_matrices() const noexcept { return matrices<16>(sinew_character_model_matrices); }
  Result<Matrices<12>> palette() const noexcept { return matrices<12>(sinew_character_palette_3x4); }

  // The clip playing in a slot, or SINEW_NO_CLIP.
  Result<std::uint32_t> slot_clip(std::uint32_t layer, std::uint32_t slot) const noexcept {
    std::uint32_t clip = 0;
    Status status = sinew_character_slot_clip(get(), layer, slot, &clip);
    if (!status) return status;
    return clip;
  }

  // The markers the last update crossed in a slot: the first indices.size() into `indices` (indices into the
  // slot clip's markers), and how many there were (more than fit, when some did not).
  Result<std::size_t> crossed_markers(const Asset &asset, std::uint32_t layer, std::uint32_t slot,
                                      Span<std::uint32_t> indices) const noexcept {
    std::size_t count = 0;
    Status status = sinew_character_crossed_markers(get(), asset.get(), layer, slot, indices.data(),
                                                    indices.size(), &count);
    if (!status) return status;
    return count;
  }

  Result<float> range_weight(const Asset &asset, std::uint32_t layer, std::string_view name) const noexcept {
    float weight = 0.0f;
    Status status = sinew_character_range_weight(get(), asset.get(), layer, name.data(), name.size(), &weight);
    if (!status) return status;
    return weight;
  }

  // Post-process edits of the last pose (the model matrices and palette follow). Whether the end reached.
  Result<bool> two_bone_ik(const Asset &asset, const sinew_two_bone &request) noexcept {
    std::uint32_t reached = 0;
    Status status = sinew_character_two_bone_ik(get(), asset.get(), &request, &reached);
    if (!status) return status;
    return reached != 0;
  }
  // SINEW_AIM_* flags.
  Result<std::uint32_t> aim_ik(const Asset &asset, const sinew_aim &request) noexcept {
    std::uint32_t flags = 0;
    Status status = sinew_character_aim_ik(get(), asset.get(), &request, &flags);
    if (!status) return status;
    return flags;
  }
  // Where to query the ground this frame: left then right, world x y z.
  Result<std::array<float, 6>> foot_probes(sinew_foot_planter &planter, const sinew_foot_planting &request) noexcept {
    std::array<float, 6> points{};
    Status status = sinew_character_foot_probes(get(), &planter, &request, points.data());
    if (!status) return status;
    return points;
  }
  Result<sinew_planting_report> plant_feet(const Asset &asset, sinew_foot_planter &planter,
                                           const sinew_foot_planting &request) noexcept {
    sinew_planting_report report{};
    Status status = sinew_character_plant_feet(get(), asset.get(), &planter, &request, &report);
    if (!status) return status;
    return report;
  }

  // `boxes` 16-byte aligned, as sinew_joint_box is.
  Result<Bounds> bounds(Span<const sinew_joint_box> boxes) const noexcept {
    Bounds bounds;
    Status status = sinew_character_bounds(get(), boxes.data(), boxes.size(), bounds.min, bounds.max);
    if (!status) return status;
    return bounds;
  }

  Status update_unskinned(const Asset &asset, float dt) noexcept {
    return sinew_character_update_unskinned(get(), asset.get(), dt);
  }
  // The local time a slot was sampled at (-1 for an empty slot).
  Result<float> slot_time(std::uint32_t layer, std::uint32_t slot) const noexcept {
    float time = 0.0f;
    Status status = sinew_character_slot_time(get(), layer, slot, &time);
    if (!status) return status;
    return time;
  }
  // SINEW_AIM_* flags of an aim down a chain.
  Result<std::uint32_t> aim_chain_ik(const Asset &asset, const sinew_aim_chain &request) noexcept {
    std::uint32_t flags = 0;
    Status status = sinew_character_aim_chain_ik(get(), asset.get(), &request, &flags);
    if (!status) return status;
    return flags;
  }
  Result<sinew_ccd_result> ccd_ik(const Asset &asset, const sinew_ccd &request) noexcept {
    sinew_ccd_result result{};
    Status status = sinew_character_ccd_ik(get(), asset.get(), &request, &result);
    if (!status) return status;
    return result;
  }
  // The engine's own post-process: `edit(PoseView)` returns a Status and edits the pose with the job calls
  // (sinew::two_bone_ik, sinew_pose_set_joint, ...); the model matrices and palette then follow, once. It must
  // not throw, nor reach this character.
  template <class Edit>
  Status edit_pose(const Asset &asset, Edit &&edit) noexcept {
    using Callable = std::remove_reference_t<Edit>;
    auto trampoline = [](void *user, const sinew_asset *a, sinew_mat4 *model, std::size_t num_matrices,
                         sinew_soa_transform *local, std::size_t count) noexcept -> sinew_status {
      PoseView pose{a, Span<sinew_mat4>(model, num_matrices), Span<sinew_soa_transform>(local, count)};
      return Status((*static_cast<Callable *>(user))(pose)).code();
    };
    return sinew_character_edit_pose(get(), asset.get(), trampoline, static_cast<void *>(&edit));
  }

 private:
  explicit Character(Memory memory) noexcept : memory_(std::move(memory)) {}

  template <std::size_t Floats>
  Result<Matrices<Floats>> matrices(sinew_status (*output)(const sinew_character *, const float **,
                                                           std::size_t *)) const noexcept {
    Matrices<Floats> out;
    Status status = output(get(), &out.data, &out.count);
    if (!status) return status;
    return out;
  }

  Memory memory_;
};

}  // namespace sinew

#endif  // SINEW_HPP
