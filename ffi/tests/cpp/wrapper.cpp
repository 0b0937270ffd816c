// sinew.hpp's own behaviour, built without exceptions: statuses and results on every error, the allocator
// called once per character and once per relocation and given everything back, moves that leave nothing to
// free twice. Prints "N checks, F failed" and exits nonzero on a failure.
#include "sinew.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <vector>

namespace {

int failures = 0, checks = 0;

void expect(bool condition, const char *what, int line) {
  ++checks;
  if (!condition) {
    ++failures;
    std::printf("FAILED line %d: %s\n", line, what);
  }
}
#define EXPECT(condition) expect((condition), #condition, __LINE__)

struct Counts {
  int allocations = 0, frees = 0;
  std::size_t live_bytes = 0;
  bool fail = false;
};

sinew::Allocator counting(Counts &counts) {
  return sinew::Allocator{
      [](void *user, std::size_t bytes, std::size_t align) noexcept -> void * {
        Counts &c = *static_cast<Counts *>(user);
        if (c.fail) return nullptr;
        ++c.allocations;
        c.live_bytes += bytes;
        return ::operator new(bytes, std::align_val_t(align), std::nothrow);
      },
      [](void *user, void *memory, std::size_t bytes, std::size_t align) noexcept {
        Counts &c = *static_cast<Counts *>(user);
        ++c.frees;
        c.live_bytes -= bytes;
        ::operator delete(memory, std::align_val_t(align), std::nothrow);
      },
      &counts};
}

struct alignas(SINEW_BLOB_ALIGN) Word {
  unsigned char bytes[SINEW_BLOB_ALIGN];
};

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<Word> blob((bytes.size() + SINEW_BLOB_ALIGN - 1) / SINEW_BLOB_ALIGN + 1);
  std::memcpy(blob.data(), bytes.data(), bytes.size());

  // Loading: a bad blob is a status, not an exception.
  sinew::Result<sinew::Asset> bad = sinew::Asset::load(blob.data(), 7);
  EXPECT(!bad.ok() && !bad && bad.status().code() == SINEW_ERROR_BLOB_CORRUPT);
  std::vector<Word> shifted(blob.size() + 1);
  std::memcpy(shifted[0].bytes + 1, bytes.data(), bytes.size());
  sinew::Result<sinew::Asset> misaligned = sinew::Asset::load(shifted[0].bytes + 1, bytes.size());
  EXPECT(misaligned.status().code() == SINEW_ERROR_BLOB_ALIGNMENT);
  EXPECT(std::strlen(misaligned.status().message()) > 0);
  sinew::Asset unloaded;
  EXPECT(unloaded.num_joints() == 0 && unloaded.find_clip("x").status().code() == SINEW_ERROR_INVALID_HANDLE);
  sinew::Result<sinew::Asset> loaded = sinew::Asset::load(blob.data(), bytes.size());
  EXPECT(loaded.ok());
  if (!loaded) return 1;
  const sinew::Asset asset = *loaded;  // copyable: a view of the blob
  EXPECT(asset.num_joints() > 0 && asset.num_clips() >= 2);
  EXPECT(asset.clip_duration(asset.num_clips()).status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(asset.clip_duration(0).value_or(-1.0f) > 0.0f);
  EXPECT(asset.joint_name(0).ok() && asset.joint_name(asset.num_joints()).status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(asset.find_clip("no such clip").status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(asset.num_markers(0).ok() && asset.marker(0, 1000).status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
  // The example's clips have uniform frames: no knots, and none for a clip it lacks.
  EXPECT(asset.clip_knots(0).ok() && asset.clip_knots(0)->count == 0);
  EXPECT(asset.clip_knots(1000).status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
  // The example has no motion database: each motion-matching call says so, and writes nothing.
  EXPECT(asset.motion_database().status().code() == SINEW_ERROR_INVALID_ARGUMENT);
  float features[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  EXPECT(asset.motion_features(0, features, 4).code() == SINEW_ERROR_INVALID_ARGUMENT && features[0] == 0.0f);
  sinew_motion_search_request request{};
  request.query = features;
  request.current = -1;
  EXPECT(asset.motion_search(request).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
  sinew_motion_matcher_settings matcher_settings = sinew::MotionMatcher::default_settings();
  EXPECT(matcher_settings.interval > 0.0f && matcher_settings.method == SINEW_SEARCH_PRUNED);
  EXPECT(sinew::MotionMatcher::create(asset, matcher_settings).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
  // A matcher never laid out is refused, not trusted.
  sinew::MotionMatcher blank;
  EXPECT(blank.trajectory_samples().status().code() == SINEW_ERROR_STATE_MISMATCH);

  const sinew_layer_desc layers[1] = {{SINEW_LAYER_BASE, 2}};
  sinew_character_desc desc{};
  desc.layers = layers;
  desc.num_layers = 1;
  desc.inertialization = SINEW_INERTIALIZATION_DEFAULT;
  Counts counts;
  {
    // A description the core refuses never reaches the allocator.
    sinew_character_desc broken = desc;
    broken.num_layers = 0;
    EXPECT(sinew::Character::create(asset, broken, counting(counts)).status().code() == SINEW_ERROR_INVALID_DESC);
    EXPECT(counts.allocations == 0);
    // An allocator that fails is a status.
    counts.fail = true;
    EXPECT(sinew::Character::create(asset, desc, counting(counts)).status().code() == SINEW_ERROR_MEMORY_TOO_SMALL);
    counts.fail = false;

    sinew::Result<sinew::Character> created = sinew::Character::create(asset, desc, counting(counts));
    EXPECT(created.ok() && counts.allocations == 1 && counts.live_bytes == created->bytes());
    sinew::Character character = std::move(*created);
    EXPECT(created->get() == nullptr && character.get() != nullptr);
    EXPECT(character.play(asset, 0, 0, 0.0f, 1.0f, 1.0f).ok());
    EXPECT(character.play(asset, 0, 99, 0.0f, 1.0f, 1.0f).code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
    EXPECT(character.update(asset, 1.0f / 30.0f).ok());
    sinew::Result<sinew::Matrices<16>> before = character.model_matrices();
    EXPECT(before.ok() && before->count == asset.num_joints());
    std::vector<float> first(before->floats().begin(), before->floats().end());
    // Relocation: one more allocation, the old memory freed, the character unchanged.
    EXPECT(character.relocate().ok() && counts.allocations == 2 && counts.frees == 1);
    sinew::Result<sinew::Matrices<16>> after = character.model_matrices();
    EXPECT(after.ok() && std::memcmp(after->data, first.data(), first.size() * sizeof(float)) == 0);
    EXPECT(character.update(asset, std::numeric_limits<float>::quiet_NaN()).code() == SINEW_ERROR_INVALID_ARGUMENT);
    EXPECT(character.update_motion(asset, 1.0f / 30.0f).ok());
    EXPECT(character.transition_synced(asset, 1, 0.5f, 1.0f, 0.0f, SINEW_SYNC_FOOT_PHASE).value_or(-1.0f) == 0.5f);
    EXPECT(character.transition_synced(asset, 1, 0.5f, 1.0f, 0.0f, 9).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
    EXPECT(character.slot_clip(0, 1).value_or(0) == SINEW_NO_CLIP);
    EXPECT(character.slot_clip(1, 0).status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
    std::uint32_t crossed[4];
    EXPECT(character.crossed_markers(asset, 0, 0, crossed).ok());
    EXPECT(character.range_weight(asset, 3, "plant:x").status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
    alignas(16) sinew_joint_box boxes[1] = {{{0, 0, 0}, 0, {1, 1, 1}, 0}};
    sinew::Result<sinew::Bounds> bounds = character.bounds(boxes);
    EXPECT(bounds.ok() && bounds->min[0] <= bounds->max[0]);
    EXPECT(character.bounds(sinew::Span<const sinew_joint_box>()).status().code() == SINEW_ERROR_NULL_POINTER);
    EXPECT(character.root_motion().ok());
    sinew_aim look{};
    look.forward[2] = 1.0f;
    look.target[2] = 5.0f;
    look.weight = 1.0f;
    EXPECT(character.aim_ik(asset, look).ok());
    look.weight = 3.0f;
    EXPECT(character.aim_ik(asset, look).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
    sinew_two_bone reach{};
    reach.chain[2] = asset.num_joints();
    EXPECT(character.two_bone_ik(asset, reach).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
    sinew_foot_planter planter{};
    sinew_foot_planting plant{};
    plant.legs[1][2] = asset.num_joints();
    EXPECT(character.foot_probes(planter, plant).status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
    EXPECT(character.plant_feet(asset, planter, plant).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
    // The engine's own edit through a lambda: a two-bone solve on the pose view; its status comes back.
    EXPECT(character.update_unskinned(asset, 1.0f / 30.0f).ok());
    EXPECT(character.slot_time(0, 0).value_or(-2.0f) >= 0.0f && character.slot_time(0, 1).value_or(0.0f) == -1.0f);
    int edits = 0;
    sinew_two_bone bend{};
    bend.chain[0] = 0;
    bend.chain[1] = 1;
    bend.chain[2] = 2;
    bend.weight = 1.0f;
    bend.soften = 1.0f;
    bend.target[1] = 1.0f;
    sinew::Status edited = character.edit_pose(asset, [&](const sinew::PoseView &pose) {
      ++edits;
      EXPECT(pose.model.size() == asset.num_joints() && !pose.local.empty());
      return sinew::two_bone_ik(pose, bend).status();
    });
    EXPECT(edits == 1 && (edited.ok() || edited.code() == SINEW_ERROR_INVALID_ARGUMENT));
    EXPECT(character.edit_pose(asset, [](const sinew::PoseView &) { return sinew::Status(SINEW_ERROR_INDEX_OUT_OF_RANGE); })
               .code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
    sinew_aim_chain no_chain{};
    EXPECT(character.aim_chain_ik(asset, no_chain).status().code() == SINEW_ERROR_NULL_POINTER);
    sinew_ccd no_ccd{};
    EXPECT(character.ccd_ik(asset, no_ccd).status().code() == SINEW_ERROR_NULL_POINTER);

    // A sampling context and an inertializer from the same allocator: a clip sampled, a transition settled.
    const std::size_t allocations = static_cast<std::size_t>(counts.allocations);
    sinew::Result<sinew::SamplingContext> context = sinew::SamplingContext::create(asset.num_joints(), 0, counting(counts));
    sinew::Result<sinew::Inertializer> inertializer =
        sinew::Inertializer::create(asset.num_joints(), 0, SINEW_INERTIALIZE_DEFAULT, counting(counts));
    EXPECT(context.ok() && inertializer.ok() && static_cast<std::size_t>(counts.allocations) == allocations + 2);
    EXPECT(sinew::Inertializer::create(0, 0).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
    EXPECT(sinew::Inertializer::create(asset.num_joints(), 0, 8).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
    std::size_t groups = 0;
    EXPECT(sinew_asset_num_soa_joints(asset.get(), &groups) == SINEW_OK);
    std::vector<sinew_soa_transform> pose(groups);
    sinew::Span<sinew_soa_transform> view(pose.data(), pose.size());
    EXPECT(context->sample(asset, 0, 0.2f, SINEW_WRAP_LOOP, view).ok());
    EXPECT(context->sample(asset, 0, 0.2f, SINEW_WRAP_PING_PONG, view).code() == SINEW_ERROR_INVALID_ARGUMENT);
    EXPECT(context->relocate().ok());
    EXPECT(context->sample(asset, 1, 0.3f, SINEW_WRAP_LOOP, view).ok());
    // A cubic context (standard allocator): between keys its pose is not the linear one; a bad mode is refused.
    sinew::Result<sinew::SamplingContext> cubic =
        sinew::SamplingContext::create(asset.num_joints(), 0, sinew::Allocator::standard(), SINEW_INTERPOLATION_CUBIC);
    std::vector<sinew_soa_transform> smooth(groups);
    EXPECT(cubic.ok() && cubic->sample(asset, 1, 0.31f, SINEW_WRAP_LOOP, {smooth.data(), smooth.size()}).ok());
    EXPECT(context->sample(asset, 1, 0.31f, SINEW_WRAP_LOOP, view).ok());
    EXPECT(std::memcmp(smooth.data(), pose.data(), groups * sizeof pose[0]) != 0);
    EXPECT(sinew::SamplingContext::create(asset.num_joints(), 0, sinew::Allocator::standard(), 2).status().code() ==
           SINEW_ERROR_INVALID_ARGUMENT);
    sinew::Span<const sinew_soa_transform> target(pose.data(), pose.size());
    EXPECT(inertializer->advance(1.0f / 30.0f, target).ok());
    EXPECT(inertializer->request(0.0f).code() == SINEW_ERROR_INVALID_ARGUMENT);
    EXPECT(inertializer->request(0.1f).ok() && inertializer->advance(1.0f / 30.0f, target, {}, target).ok());
    for (int frame = 0; frame < 6; ++frame) EXPECT(inertializer->advance(1.0f / 30.0f, target).ok());
    EXPECT(!inertializer->transitioning().value_or(true));
    sinew::Result<sinew::Span<const sinew_soa_transform>> shown = inertializer->output();
    EXPECT(shown.ok() && shown->size() == groups && std::memcmp(shown->data(), pose.data(), groups * sizeof pose[0]) == 0);
    // A blend graph (standard allocator): a 1-D space over clips 0 and 1 at position 0 reads clip 0 only.
    {
      sinew_blend_node nodes[3]{};
      const std::uint32_t line[2] = {0, 1};
      const float positions[2] = {0.0f, 1.0f};
      nodes[0].kind = SINEW_BLEND_NODE_CLIP;
      nodes[1].kind = SINEW_BLEND_NODE_CLIP;
      nodes[1].leaf = 1;
      nodes[2].kind = SINEW_BLEND_NODE_SPACE_1D;
      nodes[2].num_children = 2;
      nodes[2].children = line;
      nodes[2].positions = positions;
      sinew_blend_graph_desc graph_desc{nodes, 3, 1, 0, SINEW_INTERPOLATION_LINEAR};
      sinew::Result<sinew::BlendGraph> graph = sinew::BlendGraph::create(asset, graph_desc);
      EXPECT(graph.ok());
      sinew_blend_leaf leaves[2] = {{0, SINEW_WRAP_LOOP, 0.0f, 0}, {1, SINEW_WRAP_LOOP, 0.0f, 0}};
      const float at_first[1] = {0.0f};
      for (int frame = 0; frame < 8; ++frame) {
        leaves[0].time = leaves[1].time = frame / 30.0f;
        EXPECT(graph->evaluate(asset, graph_desc, {leaves, 2}, {at_first, 1}, view).ok());
        if (frame == 4) EXPECT(graph->relocate().ok());
      }
      EXPECT(graph->decoded_frames(0).value_or(0) > 0 && graph->decoded_frames(1).value_or(1) == 0);
      EXPECT(graph->decoded_frames(2).status().code() == SINEW_ERROR_INDEX_OUT_OF_RANGE);
      EXPECT(graph->evaluate(asset, graph_desc, {leaves, 1}, {at_first, 1}, view).code() == SINEW_ERROR_BUFFER);
      nodes[2].num_children = 0;
      EXPECT(sinew::BlendGraph::create(asset, graph_desc).status().code() == SINEW_ERROR_INVALID_ARGUMENT);
    }
    // Move assignment frees what the target held.
    sinew::Result<sinew::Character> second = sinew::Character::create(asset, desc, counting(counts));
    EXPECT(second.ok() && counts.allocations == 6);
    character = std::move(*second);
    EXPECT(counts.frees == 3 && character.get() != nullptr);
  }
  // Everything given back, once: two characters, a context, an inertializer, and two relocations.
  EXPECT(counts.allocations == 6 && counts.frees == 6 && counts.live_bytes == 0);
  sinew::Character empty;
  EXPECT(empty.relocate().code() == SINEW_ERROR_NULL_POINTER && empty.update(asset, 0.1f).code() == SINEW_ERROR_NULL_POINTER);

  std::printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
