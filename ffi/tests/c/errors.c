/* Every error path of the C ABI, from C: bad blobs, bad descriptions, undersized or misaligned memory, bad
 * handles and bad arguments each return their status, and leave the outputs and the character as they were.
 * Usage: errors BLOB (a blob with at least one clip). Exit status 0 when every check passes. */
#include "sinew.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0, checks = 0;

#define EXPECT(call, status)                                                                              \
  do {                                                                                                    \
    sinew_status got_ = (call);                                                                           \
    ++checks;                                                                                             \
    if (got_ != (status)) {                                                                               \
      ++failures;                                                                                         \
      fprintf(stderr, "line %d: %s returned %d (%s), expected %s\n", __LINE__, #call, (int)got_,          \
              sinew_status_message(got_), #status);                                                       \
    }                                                                                                     \
  } while (0)

#define EXPECT_TRUE(condition)                                                  \
  do {                                                                          \
    ++checks;                                                                   \
    if (!(condition)) {                                                         \
      ++failures;                                                               \
      fprintf(stderr, "line %d: expected %s\n", __LINE__, #condition);          \
    }                                                                           \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  FILE *file = fopen(argv[1], "rb");
  if (!file) return 2;
  fseek(file, 0, SEEK_END);
  size_t len = (size_t)ftell(file);
  fseek(file, 0, SEEK_SET);
  /* One spare alignment unit: the blob is also tried one byte off its alignment. */
  uint8_t *storage = aligned_alloc(SINEW_BLOB_ALIGN, (len / SINEW_BLOB_ALIGN + 2) * SINEW_BLOB_ALIGN);
  if (!storage || fread(storage, 1, len, file) != len) return 2;
  fclose(file);

  /* Messages exist for every status and for unknown ones. */
  for (sinew_status s = -1; s <= SINEW_ERROR_BUFFER + 1; ++s) EXPECT_TRUE(sinew_status_message(s) != NULL);
  EXPECT_TRUE(strcmp(sinew_status_message(SINEW_OK), "success") == 0);

  /* Blobs. */
  sinew_asset asset, untouched;
  memset(&asset, 0xAB, sizeof asset);
  memcpy(&untouched, &asset, sizeof asset);
  EXPECT(sinew_asset_load(NULL, len, &asset), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_asset_load(storage, len, NULL), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_asset_load(storage, 0, &asset), SINEW_ERROR_BLOB_CORRUPT);
  EXPECT(sinew_asset_load(storage, len / 2, &asset), SINEW_ERROR_BLOB_CORRUPT);
  EXPECT(sinew_asset_load(storage, len - 1, &asset), SINEW_ERROR_BLOB_CORRUPT);
  memmove(storage + 1, storage, len);
  EXPECT(sinew_asset_load(storage + 1, len, &asset), SINEW_ERROR_BLOB_ALIGNMENT);
  memmove(storage, storage + 1, len);
  storage[0] ^= 0xFF;
  EXPECT(sinew_asset_load(storage, len, &asset), SINEW_ERROR_BLOB_FORMAT);
  storage[0] ^= 0xFF;
  /* A corrupted byte in every 64: each is either refused or loads (a value that is still valid), never worse. */
  for (size_t at = 16; at < len; at += 64) {
    storage[at] ^= 0x5A;
    sinew_asset scratch;
    sinew_status s = sinew_asset_load(storage, len, &scratch);
    EXPECT_TRUE(s == SINEW_OK || s == SINEW_ERROR_BLOB_CORRUPT || s == SINEW_ERROR_BLOB_FORMAT);
    storage[at] ^= 0x5A;
  }
  EXPECT_TRUE(memcmp(&asset, &untouched, sizeof asset) == 0);
  /* A handle that was never loaded. */
  uint32_t count = 77;
  EXPECT(sinew_asset_num_joints(&asset, &count), SINEW_ERROR_INVALID_HANDLE);
  EXPECT(sinew_asset_num_joints(NULL, &count), SINEW_ERROR_NULL_POINTER);
  EXPECT_TRUE(count == 77);

  EXPECT(sinew_asset_load(storage, len, &asset), SINEW_OK);
  uint32_t joints = 0, clips = 0;
  EXPECT(sinew_asset_num_joints(&asset, &joints), SINEW_OK);
  EXPECT(sinew_asset_num_clips(&asset, &clips), SINEW_OK);
  EXPECT(sinew_asset_num_joints(&asset, NULL), SINEW_ERROR_NULL_POINTER);
  float duration = -1.0f;
  EXPECT(sinew_asset_clip_duration(&asset, clips, &duration), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT_TRUE(duration == -1.0f);
  const char *name = NULL;
  size_t name_len = 0;
  EXPECT(sinew_asset_joint_name(&asset, joints, &name, &name_len), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_joint_name(&asset, 0, NULL, &name_len), SINEW_ERROR_NULL_POINTER);
  uint32_t found = 99;
  EXPECT(sinew_asset_find_clip(&asset, "no such clip", 12, &found), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_find_clip(&asset, "\xff\xfe", 2, &found), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_find_clip(&asset, NULL, 0, &found), SINEW_ERROR_NULL_POINTER);
  EXPECT_TRUE(found == 99);

  /* Descriptions. */
  sinew_layer_desc layers[9];
  for (int i = 0; i < 9; ++i) layers[i] = (sinew_layer_desc){SINEW_LAYER_OVERLAY, 1};
  layers[0].kind = SINEW_LAYER_BASE;
  sinew_character_desc desc = {0};
  desc.layers = layers;
  desc.num_layers = 1;
  desc.inertialization = SINEW_INERTIALIZATION_NONE;
  size_t bytes = 12345;
  EXPECT(sinew_character_required_bytes(&asset, NULL, &bytes), SINEW_ERROR_NULL_POINTER);
  sinew_character_desc bad = desc;
  bad.num_layers = 0;
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad.num_layers = 9;
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad = desc;
  bad.layers = NULL;
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_NULL_POINTER);
  bad = desc;
  bad.layers = layers + 1; /* an overlay first */
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad = desc;
  bad.num_layers = 2;
  layers[1].kind = SINEW_LAYER_BASE; /* two bases */
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  layers[1].kind = 42; /* no such kind */
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  layers[1] = (sinew_layer_desc){SINEW_LAYER_OVERLAY, 0}; /* a layer without controls */
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  layers[1] = (sinew_layer_desc){SINEW_LAYER_OVERLAY, 1000000};
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  layers[1] = (sinew_layer_desc){SINEW_LAYER_OVERLAY, 1};
  bad = desc;
  bad.sampling = SINEW_SAMPLING_CUBIC | 0x200u; /* a flag that does not exist */
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad.sampling = SINEW_SAMPLING_CUBIC | 2u; /* no such sampling */
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad = desc;
  bad.num_masks = 0xFFFFFFFFu;
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad = desc;
  bad.num_curves = 0x7FFFFFFFu;
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad = desc;
  bad.inertialization = 7;
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  bad = desc;
  bad.sampling = 2;
  EXPECT(sinew_character_required_bytes(&asset, &bad, &bytes), SINEW_ERROR_INVALID_DESC);
  EXPECT_TRUE(bytes == 12345);
  EXPECT(sinew_character_required_bytes(&asset, &desc, &bytes), SINEW_OK);
  EXPECT_TRUE(bytes % SINEW_CHARACTER_ALIGN == 0);

  /* Memory. */
  uint8_t *memory = aligned_alloc(SINEW_CHARACTER_ALIGN, bytes + SINEW_CHARACTER_ALIGN);
  memset(memory, 0xCD, bytes + SINEW_CHARACTER_ALIGN);
  sinew_character *character = (sinew_character *)(uintptr_t)0x1;
  EXPECT(sinew_character_init(memory, bytes - 1, &asset, &desc, &character), SINEW_ERROR_MEMORY_TOO_SMALL);
  EXPECT(sinew_character_init(memory, 0, &asset, &desc, &character), SINEW_ERROR_MEMORY_TOO_SMALL);
  EXPECT(sinew_character_init(memory + 16, bytes, &asset, &desc, &character), SINEW_ERROR_MEMORY_ALIGNMENT);
  EXPECT(sinew_character_init(NULL, bytes, &asset, &desc, &character), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_init(memory, bytes, &asset, &desc, NULL), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_init(memory, bytes, &untouched, &desc, &character), SINEW_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(character == (sinew_character *)(uintptr_t)0x1);
  int pristine = 1;
  for (size_t i = 0; i < bytes + SINEW_CHARACTER_ALIGN; ++i) pristine &= memory[i] == 0xCD;
  EXPECT_TRUE(pristine); /* nothing written on an error */
  EXPECT(sinew_character_init(memory, bytes, &asset, &desc, &character), SINEW_OK);
  EXPECT_TRUE((void *)character == (void *)memory);

  /* Arguments. */
  EXPECT(sinew_character_play(character, &asset, 0, clips, 0.0f, 1.0f, 1.0f), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_play(character, &asset, 1, 0, 0.0f, 1.0f, 1.0f), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_play(character, &asset, 0, 0, NAN, 1.0f, 1.0f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_play(character, &asset, 0, 0, 0.0f, INFINITY, 1.0f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_play(character, &asset, 0, 0, 0.0f, 1.0f, -1.0f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_play(character, &asset, 0, 0, 1e9f, 1.0f, 1.0f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_play(NULL, &asset, 0, 0, 0.0f, 1.0f, 1.0f), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_play(character, NULL, 0, 0, 0.0f, 1.0f, 1.0f), SINEW_ERROR_NULL_POINTER);
  sinew_play play = {0, 1, 0, 0.0f, 1.0f, 1.0f, SINEW_WRAP_LOOP, SINEW_NO_MASK};
  EXPECT(sinew_character_play_slot(character, &asset, &play), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  play.slot = 0;
  play.wrap = 9;
  EXPECT(sinew_character_play_slot(character, &asset, &play), SINEW_ERROR_INVALID_ARGUMENT);
  play.wrap = SINEW_WRAP_CLAMP;
  play.mask = 0; /* no masks */
  EXPECT(sinew_character_play_slot(character, &asset, &play), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_play_slot(character, &asset, NULL), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_transition(character, &asset, 0, 0.0f, 1.0f, 0.2f), SINEW_ERROR_NO_INERTIALIZER);
  EXPECT(sinew_character_play(character, &asset, 0, 0, 0.0f, 1.0f, 1.0f), SINEW_OK);
  EXPECT(sinew_character_update(character, &asset, NAN), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_update(character, &asset, -1.0f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_update(character, &asset, 1.0f / 30.0f), SINEW_OK);

  /* Masks, layer masks, fades and curves on a character with none of either. */
  float factors[1024];
  for (int i = 0; i < 1024; ++i) factors[i] = 1.0f;
  EXPECT(sinew_character_set_mask(character, 0, factors, joints), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_set_mask(character, 0, NULL, joints), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_set_layer_masks(character, 0, 0, SINEW_NO_MASK), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_set_layer_masks(character, 1, SINEW_NO_MASK, SINEW_NO_MASK), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_set_layer_masks(character, 0, SINEW_NO_MASK, SINEW_NO_MASK), SINEW_OK);
  EXPECT(sinew_character_fade_layer(character, 3, 1.0f, 0.1f), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_fade_layer(character, 0, NAN, 0.1f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_fade_layer(character, 0, 1.0f, -1.0f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_set_curves(character, factors, 1), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_set_curves(character, NULL, 0), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_set_curves(character, factors, 0), SINEW_OK);

  /* The same on a character with one mask and two curves. */
  sinew_character_desc rich = desc;
  rich.num_masks = 1;
  rich.num_curves = 2;
  size_t rich_bytes = 0;
  EXPECT(sinew_character_required_bytes(&asset, &rich, &rich_bytes), SINEW_OK);
  uint8_t *rich_memory = aligned_alloc(SINEW_CHARACTER_ALIGN, rich_bytes);
  sinew_character *other = NULL;
  EXPECT(sinew_character_init(rich_memory, rich_bytes, &asset, &rich, &other), SINEW_OK);
  EXPECT(sinew_character_set_mask(other, 0, factors, joints + 1), SINEW_ERROR_INVALID_ARGUMENT);
  factors[1] = NAN;
  EXPECT(sinew_character_set_mask(other, 0, factors, joints), SINEW_ERROR_INVALID_ARGUMENT);
  factors[1] = -0.5f;
  EXPECT(sinew_character_set_mask(other, 0, factors, joints), SINEW_ERROR_INVALID_ARGUMENT);
  factors[1] = 0.5f;
  EXPECT(sinew_character_set_mask(other, 0, factors, joints), SINEW_OK);
  EXPECT(sinew_character_set_layer_masks(other, 0, 1, SINEW_NO_MASK), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_set_layer_masks(other, 0, 0, 0), SINEW_OK);
  float curves[2] = {0.25f, INFINITY};
  EXPECT(sinew_character_set_curves(other, curves, 2), SINEW_ERROR_INVALID_ARGUMENT);
  curves[1] = 0.5f;
  EXPECT(sinew_character_set_curves(other, curves, 2), SINEW_OK);
  EXPECT(sinew_character_play(other, &asset, 0, 0, 0.0f, 1.0f, 1.0f), SINEW_OK);
  EXPECT(sinew_character_fade_layer(other, 0, 0.5f, 0.25f), SINEW_OK);
  EXPECT(sinew_character_update(other, &asset, 1.0f / 30.0f), SINEW_OK);
  free(rich_memory);

  /* Outputs, and a character whose memory was overwritten. */
  const float *values = NULL;
  size_t matrices = 0;
  EXPECT(sinew_character_model_matrices(character, &values, &matrices), SINEW_OK);
  EXPECT_TRUE(matrices == joints && values != NULL && (uintptr_t)values % 32 == 0);
  EXPECT(sinew_character_palette_3x4(character, &values, &matrices), SINEW_OK);
  EXPECT_TRUE(matrices == 0);
  EXPECT(sinew_character_model_matrices(character, NULL, &matrices), SINEW_ERROR_NULL_POINTER);
  float translation[3], yaw;
  EXPECT(sinew_character_root_motion(character, translation, &yaw), SINEW_OK);
  EXPECT(sinew_character_root_motion(character, NULL, &yaw), SINEW_ERROR_NULL_POINTER);

  /* Markers, curves, ranges, the motion-only update and bounds (ABI 1003). */
  int32_t parent = 7;
  EXPECT(sinew_asset_joint_parent(&asset, 0, &parent), SINEW_OK);
  EXPECT_TRUE(parent == -1);
  EXPECT(sinew_asset_joint_parent(&asset, joints, &parent), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_joint_parent(&asset, 0, NULL), SINEW_ERROR_NULL_POINTER);
  uint32_t count32 = 7, clip = 7;
  EXPECT(sinew_asset_num_markers(&asset, 0, &count32), SINEW_OK);
  EXPECT(sinew_asset_num_markers(&asset, 99, &count32), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_num_markers(&asset, 0, NULL), SINEW_ERROR_NULL_POINTER);
  float marker_time = 7.0f, marker_value = 7.0f;
  const char *marker_name = NULL;
  size_t marker_len = 7;
  EXPECT(sinew_asset_marker(&asset, 0, count32, &marker_time, &marker_value, &marker_name, &marker_len),
         SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_marker(&asset, 0, 0, NULL, &marker_value, &marker_name, &marker_len), SINEW_ERROR_NULL_POINTER);
  EXPECT_TRUE(marker_time == 7.0f && marker_len == 7);
  EXPECT(sinew_asset_find_curve(&asset, 0, "no such curve", 13, &count32), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_find_curve(&asset, 99, "x", 1, &count32), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_asset_find_curve(&asset, 0, NULL, 0, &count32), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_slot_clip(character, 0, 0, &clip), SINEW_OK);
  EXPECT_TRUE(clip == 0);
  EXPECT(sinew_character_slot_clip(character, 9, 0, &clip), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_crossfade(character, &asset, clips, 0.0f, 1.0f, 0.3f), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_crossfade(character, &asset, 0, 0.0f, 1.0f, NAN), SINEW_ERROR_INVALID_ARGUMENT);
  float slot_time = 7.0f;
  EXPECT(sinew_character_slot_time(character, 0, 9, &slot_time), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_slot_time(character, 0, 0, NULL), SINEW_ERROR_NULL_POINTER);
  EXPECT_TRUE(slot_time == 7.0f);
  EXPECT(sinew_character_slot_time(character, 0, 0, &slot_time), SINEW_OK);
  EXPECT_TRUE(slot_time >= 0.0f);
  uint32_t crossed[4];
  size_t crossed_count = 7;
  EXPECT(sinew_character_crossed_markers(character, &asset, 0, 0, NULL, 0, &crossed_count), SINEW_OK);
  EXPECT(sinew_character_crossed_markers(character, &asset, 0, 0, NULL, 4, &crossed_count), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_crossed_markers(character, &asset, 9, 0, crossed, 4, &crossed_count),
         SINEW_ERROR_INDEX_OUT_OF_RANGE);
  float range_weight = 7.0f;
  EXPECT(sinew_character_range_weight(character, &asset, 0, "plant:x", 7, &range_weight), SINEW_OK);
  EXPECT_TRUE(range_weight == 0.0f);
  EXPECT(sinew_character_range_weight(character, &asset, 9, "plant:x", 7, &range_weight),
         SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_range_weight(character, &asset, 0, "\xff", 1, &range_weight), SINEW_ERROR_INVALID_ARGUMENT);
  float entered = 7.0f;
  EXPECT(sinew_character_transition_synced(character, &asset, 0, 0.0f, 1.0f, 0.0f, 3, &entered),
         SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_transition_synced(character, &asset, 0, 0.0f, 1.0f, 0.0f, SINEW_SYNC_PHASE, NULL),
         SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_transition_synced(character, &asset, 99, 0.0f, 1.0f, 0.0f, SINEW_SYNC_PHASE, &entered),
         SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT_TRUE(entered == 7.0f);
  EXPECT(sinew_character_transition_synced(character, &asset, 0, 0.25f, 1.0f, 0.0f, SINEW_SYNC_PHASE, &entered),
         SINEW_OK);
  EXPECT_TRUE(entered == 0.25f); /* the example's clips have no phase: the time given */
  EXPECT(sinew_character_update_motion(character, &asset, NAN), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_update_motion(character, &asset, 1.0f / 30.0f), SINEW_OK);
  _Alignas(16) sinew_joint_box boxes[2] = {{{0, 0, 0}, 0, {1, 1, 1}, 0}, {{0, 0, 0}, 1, {1, 1, 1}, 0}};
  float box_min[3], box_max[3];
  EXPECT(sinew_character_bounds(character, boxes, 2, box_min, box_max), SINEW_OK);
  EXPECT_TRUE(box_min[0] <= box_max[0] && box_min[1] <= box_max[1] && box_min[2] <= box_max[2]);
  EXPECT(sinew_character_bounds(character, boxes, 0, box_min, box_max), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_bounds(character, NULL, 2, box_min, box_max), SINEW_ERROR_NULL_POINTER);
  boxes[1].half_extent[0] = -1.0f;
  EXPECT(sinew_character_bounds(character, boxes, 2, box_min, box_max), SINEW_ERROR_INVALID_ARGUMENT);
  boxes[1].half_extent[0] = 1.0f;
  boxes[1].joint = joints;
  EXPECT(sinew_character_bounds(character, boxes, 2, box_min, box_max), SINEW_ERROR_INDEX_OUT_OF_RANGE);

  /* Post-process edits (ABI 1003): two-bone, aim, foot planting. */
  sinew_two_bone reach = {{1, 2, 3}, {0, 1, 0}, {0, 0, 1}, 1, 1.0f, 1.0f, {0, 0, 0, 1}, 0};
  uint32_t answer = 7;
  EXPECT(sinew_character_two_bone_ik(character, &asset, NULL, &answer), SINEW_ERROR_NULL_POINTER);
  reach.chain[2] = joints;
  EXPECT(sinew_character_two_bone_ik(character, &asset, &reach, &answer), SINEW_ERROR_INVALID_ARGUMENT);
  reach.chain[2] = 3;
  reach.weight = 2.0f;
  EXPECT(sinew_character_two_bone_ik(character, &asset, &reach, &answer), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(answer == 7);
  sinew_aim look = {0, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}, 0, {0, 1, 5}, 0.0f, 0.0f, 1.0f};
  EXPECT(sinew_character_aim_ik(character, &asset, &look, &answer), SINEW_OK);
  look.joint = joints;
  EXPECT(sinew_character_aim_ik(character, &asset, &look, &answer), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  look.joint = 0;
  look.forward[2] = 0.0f;
  EXPECT(sinew_character_aim_ik(character, &asset, &look, &answer), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_foot_planter planter = {{0}};
  sinew_foot_planting plant;
  memset(&plant, 0, sizeof plant);
  plant.legs[0][0] = joints; /* out of the skeleton */
  plant.ground_normal[0][1] = plant.ground_normal[1][1] = 1.0f;
  plant.world[0] = plant.world[5] = plant.world[10] = plant.world[15] = 1.0f;
  sinew_planting_report report;
  float probes[6];
  EXPECT(sinew_character_plant_feet(character, &asset, &planter, &plant, &report), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_plant_feet(character, &asset, NULL, &plant, &report), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_foot_probes(character, &planter, &plant, probes), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_character_foot_probes(character, &planter, &plant, NULL), SINEW_ERROR_NULL_POINTER);

  /* The stage jobs, IK over caller buffers, motion correction (ABI 1004). */
  size_t groups = 0, context_bytes = 0;
  EXPECT(sinew_asset_num_soa_joints(&asset, &groups), SINEW_OK);
  EXPECT(sinew_sampling_context_required_bytes(0, 0, &context_bytes), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_sampling_context_required_bytes(joints, 0, &context_bytes), SINEW_OK);
  uint8_t *context_memory = aligned_alloc(SINEW_STATE_ALIGN, context_bytes + SINEW_STATE_ALIGN);
  sinew_sampling_context *context = NULL;
  EXPECT(sinew_sampling_context_init(context_memory + 8, context_bytes, joints, 0, &context),
         SINEW_ERROR_MEMORY_ALIGNMENT);
  EXPECT(sinew_sampling_context_init(context_memory, context_bytes - 1, joints, 0, &context),
         SINEW_ERROR_MEMORY_TOO_SMALL);
  EXPECT_TRUE(context == NULL);
  EXPECT(sinew_sampling_context_init(context_memory, context_bytes, joints, 0, &context), SINEW_OK);
  sinew_soa_transform *pose = aligned_alloc(16, (groups + 1) * sizeof(sinew_soa_transform));
  memset(pose, 0x7F, (groups + 1) * sizeof(sinew_soa_transform));
  sinew_soa_transform sentinel = pose[0];
  EXPECT(sinew_sample(&asset, clips, 0.0f, SINEW_WRAP_LOOP, context, pose, groups, NULL, 0),
         SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_sample(&asset, 0, NAN, SINEW_WRAP_LOOP, context, pose, groups, NULL, 0), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_sample(&asset, 0, 0.0f, SINEW_WRAP_PING_PONG, context, pose, groups, NULL, 0),
         SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_sample(&asset, 0, 0.0f, SINEW_WRAP_LOOP, context, pose, groups + 1, NULL, 0), SINEW_ERROR_BUFFER);
  EXPECT(sinew_sample(&asset, 0, 0.0f, SINEW_WRAP_LOOP, context, (sinew_soa_transform *)((uint8_t *)pose + 4), groups,
                      NULL, 0),
         SINEW_ERROR_BUFFER);
  EXPECT(sinew_sample(&asset, 0, 0.0f, SINEW_WRAP_LOOP, (sinew_sampling_context *)memory, pose, groups, NULL, 0),
         SINEW_ERROR_INVALID_HANDLE);
  EXPECT(sinew_sample(&asset, 0, 0.0f, SINEW_WRAP_LOOP, context, (sinew_soa_transform *)context_memory, groups, NULL,
                      0),
         SINEW_ERROR_BUFFER);
  EXPECT_TRUE(memcmp(&pose[0], &sentinel, sizeof sentinel) == 0);
  EXPECT(sinew_sample(&asset, 0, 0.25f, SINEW_WRAP_LOOP, context, pose, groups, NULL, 0), SINEW_OK);

  sinew_soa_transform *blended = aligned_alloc(16, groups * sizeof(sinew_soa_transform));
  sinew_blend_layer layer = {pose, NULL, 1.0f, 0};
  EXPECT(sinew_blend(&asset, &layer, 1, NULL, 0, 0.0f, blended, groups), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_blend(&asset, &layer, SINEW_MAX_BLEND_LAYERS + 1, NULL, 0, 0.1f, blended, groups),
         SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_blend(&asset, &layer, 1, NULL, 0, 0.1f, pose, groups), SINEW_ERROR_BUFFER);
  layer.weight = -1.0f;
  EXPECT(sinew_blend(&asset, &layer, 1, NULL, 0, 0.1f, blended, groups), SINEW_ERROR_INVALID_ARGUMENT);
  layer.weight = 1.0f;
  EXPECT(sinew_blend(&asset, &layer, 1, NULL, 0, 0.1f, blended, groups), SINEW_OK);
  EXPECT(sinew_additive_delta(pose, blended, blended, groups), SINEW_ERROR_BUFFER);
  sinew_transform joint_value = {{0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1}};
  EXPECT(sinew_pose_set_joint(blended, groups, 0, &joint_value), SINEW_ERROR_INVALID_ARGUMENT);
  joint_value.rotation[3] = 1.0f;
  EXPECT(sinew_pose_set_joint(blended, groups, 4 * (uint32_t)groups, &joint_value), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  EXPECT(sinew_pose_joint(blended, groups, 0, &joint_value), SINEW_OK);

  sinew_mat4 *model = aligned_alloc(32, (joints + 1) * sizeof(sinew_mat4));
  EXPECT(sinew_local_to_model(&asset, blended, groups, NULL, model, joints + 1), SINEW_ERROR_BUFFER);
  EXPECT(sinew_local_to_model(&asset, blended, groups, NULL, (sinew_mat4 *)blended, joints), SINEW_ERROR_BUFFER);
  EXPECT(sinew_local_to_model(&asset, blended, groups, NULL, model, joints), SINEW_OK);
  uint32_t skin_joints = 0;
  EXPECT(sinew_asset_num_skin_joints(&asset, &skin_joints), SINEW_OK);
  if (skin_joints > 0) {
    sinew_mat3x4 *rows = aligned_alloc(16, (skin_joints + 1) * sizeof(sinew_mat3x4));
    EXPECT(sinew_skinning_palette_3x4(&asset, model, joints, rows, skin_joints + 1), SINEW_ERROR_BUFFER);
    EXPECT(sinew_skinning_palette_3x4(&asset, model, joints - 1, rows, skin_joints), SINEW_ERROR_BUFFER);
    free(rows);
    sinew_mat4 *palette = aligned_alloc(32, skin_joints * sizeof(sinew_mat4));
    EXPECT(sinew_skinning_palette(&asset, model, joints, palette, skin_joints), SINEW_OK);
    float vertices[2 * 6] = {0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1}, skinned[2 * 6];
    uint16_t vertex_joints[2] = {0, (uint16_t)skin_joints};
    float vertex_weights[2] = {1.0f, 1.0f};
    sinew_influences influences = {vertex_joints, vertex_weights, 2, 1, 0};
    sinew_vertex_layout layout = {0, 24, 12, 24, 0, 0};
    EXPECT(sinew_skin_vertices(palette, skin_joints, &influences, SINEW_NORMALS_RIGID, vertices, sizeof vertices,
                               &layout, skinned, sizeof skinned, &layout),
           SINEW_ERROR_INDEX_OUT_OF_RANGE);
    vertex_joints[1] = 0;
    EXPECT(sinew_skin_vertices(palette, skin_joints, &influences, 9, vertices, sizeof vertices, &layout, skinned,
                               sizeof skinned, &layout),
           SINEW_ERROR_INVALID_ARGUMENT);
    EXPECT(sinew_skin_vertices(palette, skin_joints, &influences, SINEW_NORMALS_RIGID, vertices, sizeof vertices,
                               &layout, skinned, sizeof skinned - 4, &layout),
           SINEW_ERROR_BUFFER);
    EXPECT(sinew_skin_vertices(palette, skin_joints, &influences, SINEW_NORMALS_RIGID, vertices, sizeof vertices,
                               &layout, vertices, sizeof vertices, &layout),
           SINEW_ERROR_BUFFER);
    EXPECT(sinew_skin_vertices(palette, skin_joints, &influences, SINEW_NORMALS_FOR_PALETTE, vertices,
                               sizeof vertices, &layout, skinned, sizeof skinned, &layout),
           SINEW_OK);
    free(palette);
  }

  /* Inertializers. */
  size_t inertializer_bytes = 0;
  EXPECT(sinew_inertializer_required_bytes(joints, 1u << 20, &inertializer_bytes), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_inertializer_required_bytes(joints, 0, &inertializer_bytes), SINEW_OK);
  uint8_t *inertializer_memory = aligned_alloc(SINEW_STATE_ALIGN, inertializer_bytes);
  sinew_inertializer *inertializer = NULL;
  EXPECT(sinew_inertializer_init(inertializer_memory, inertializer_bytes, joints, 0, 8, &inertializer),
         SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_inertializer_init(inertializer_memory, inertializer_bytes, joints, 0, SINEW_INERTIALIZE_DEFAULT,
                                 &inertializer),
         SINEW_OK);
  EXPECT(sinew_inertializer_request(inertializer, 0.0f, NULL, groups), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_inertialize(inertializer, -1.0f, pose, groups, NULL, 0, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_inertialize(inertializer, 0.1f, pose, groups - 1, NULL, 0, NULL, NULL), SINEW_ERROR_BUFFER);
  EXPECT(sinew_inertialize(inertializer, 0.1f, pose, groups, NULL, 0, NULL, NULL), SINEW_OK);
  EXPECT(sinew_inertializer_request(inertializer, 0.2f, NULL, groups), SINEW_OK);
  EXPECT(sinew_inertialize(inertializer, 0.1f, pose, groups, NULL, 0, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_inertializer_reset((sinew_inertializer *)context_memory), SINEW_ERROR_INVALID_HANDLE);
  free(inertializer_memory);

  /* IK over caller buffers and attachments. */
  sinew_soa_transform *local = aligned_alloc(16, groups * sizeof(sinew_soa_transform));
  memcpy(local, blended, groups * sizeof(sinew_soa_transform));
  reach.weight = 1.0f;
  answer = 7;
  EXPECT(sinew_two_bone_ik(&asset, model, joints, (sinew_soa_transform *)model, groups, &reach, &answer),
         SINEW_ERROR_BUFFER);
  reach.chain[2] = joints;
  EXPECT(sinew_two_bone_ik(&asset, model, joints, local, groups, &reach, &answer), SINEW_ERROR_INVALID_ARGUMENT);
  uint32_t chain[3] = {0, 1, 2};
  float shares[3] = {0.5f, 0.5f, 2.0f};
  sinew_aim_chain spine = {chain, shares, 3, {0, 0, 1}, {0, 1, 5}, 0.0f};
  EXPECT(sinew_aim_chain_ik(&asset, model, joints, local, groups, &spine, &answer), SINEW_ERROR_INVALID_ARGUMENT);
  spine.num_joints = SINEW_MAX_IK_CHAIN + 1;
  EXPECT(sinew_aim_chain_ik(&asset, model, joints, local, groups, &spine, &answer), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_joint_limit limits[2] = {{7, {0, 0, 1}, 0, 0, 0, 0, 0}, {SINEW_LIMIT_FREE, {0, 0, 1}, 0, 0, 0, 0, 0}};
  sinew_ccd tail = {chain, limits, 3, {0, 1, 0}, 0.001f, 8, 0.5f};
  sinew_ccd_result solved = {77, 0.0f, 0};
  EXPECT(sinew_ccd_ik(&asset, model, joints, local, groups, &tail, &solved), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_ccd_ik(character, &asset, &tail, &solved), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_aim_chain_ik(character, &asset, &spine, &answer), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(solved.iterations == 77 && answer == 7);
  sinew_two_bone_chain batch = {&asset, model, joints, local, groups, reach};
  sinew_two_bone_rotations rotations;
  EXPECT(sinew_two_bone_ik_batch(&batch, 1, &rotations), SINEW_ERROR_INVALID_ARGUMENT);
  batch.request.chain[2] = 3;
  batch.request.soften = 0.5f;
  EXPECT(sinew_two_bone_ik_batch(&batch, 1, &rotations), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_two_bone_rotations zero = {{0, 0, 0, 0}, {0, 0, 0, 1}};
  EXPECT(sinew_two_bone_store(&zero, chain, local, groups), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_mat4 offset = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}, placed;
  sinew_mat4 projective = offset;
  projective.m[3] = 0.5f;
  EXPECT(sinew_attach(model, joints, 0, &projective, &offset, &placed), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_attach(model, joints, joints, &offset, &offset, &placed), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  float no_turn[4] = {0, 0, 0, 0};
  EXPECT(sinew_hang(model, joints, 0, &offset, &offset, no_turn, &placed), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_character_edit_pose(character, &asset, NULL, NULL), SINEW_ERROR_NULL_POINTER);
  EXPECT(sinew_character_update_unskinned(character, &asset, NAN), SINEW_ERROR_INVALID_ARGUMENT);
  free(local);
  free(model);
  free(blended);
  /* A blend graph of two leaves lerped: a NaN parameter and an unknown node kind refused, the pose untouched. */
  sinew_blend_node graph_nodes[3];
  memset(graph_nodes, 0, sizeof graph_nodes);
  graph_nodes[0].kind = SINEW_BLEND_NODE_CLIP;
  graph_nodes[1].kind = SINEW_BLEND_NODE_CLIP;
  graph_nodes[1].leaf = 1;
  graph_nodes[2].kind = SINEW_BLEND_NODE_LERP;
  graph_nodes[2].b = 1;
  sinew_blend_graph_desc graph_desc = {graph_nodes, 3, 1, 0, SINEW_INTERPOLATION_LINEAR};
  size_t graph_bytes = 0;
  EXPECT(sinew_blend_graph_required_bytes(&asset, &graph_desc, &graph_bytes), SINEW_OK);
  void *graph_memory = aligned_alloc(SINEW_STATE_ALIGN, graph_bytes);
  sinew_blend_graph *graph = NULL;
  EXPECT(sinew_blend_graph_init(graph_memory, graph_bytes - SINEW_STATE_ALIGN, &asset, &graph_desc, &graph),
         SINEW_ERROR_MEMORY_TOO_SMALL);
  EXPECT(sinew_blend_graph_init(graph_memory, graph_bytes, &asset, &graph_desc, &graph), SINEW_OK);
  sinew_blend_leaf graph_leaves[2] = {{0, SINEW_WRAP_LOOP, 0.1f, 0}, {0, SINEW_WRAP_CLAMP, 0.3f, 0}};
  float graph_params[1] = {NAN};
  memset(pose, 0x7F, groups * sizeof(sinew_soa_transform));
  EXPECT(sinew_blend_graph_evaluate(graph, &asset, &graph_desc, graph_leaves, 2, graph_params, 1, pose, groups),
         SINEW_ERROR_INVALID_ARGUMENT);
  graph_nodes[2].kind = 99;
  graph_params[0] = 0.5f;
  EXPECT(sinew_blend_graph_evaluate(graph, &asset, &graph_desc, graph_leaves, 2, graph_params, 1, pose, groups),
         SINEW_ERROR_INVALID_DESC);
  EXPECT_TRUE(memcmp(&pose[0], &sentinel, sizeof sentinel) == 0);
  graph_nodes[2].kind = SINEW_BLEND_NODE_LERP;
  EXPECT(sinew_blend_graph_evaluate(graph, &asset, &graph_desc, graph_leaves, 2, graph_params, 1, pose, groups),
         SINEW_OK);
  uint64_t graph_decoded = 0;
  EXPECT(sinew_blend_graph_decoded_frames(graph, 1, &graph_decoded), SINEW_OK);
  EXPECT_TRUE(graph_decoded > 0);
  EXPECT(sinew_blend_graph_decoded_frames(graph, 2, &graph_decoded), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  free(graph_memory);
  free(pose);
  free(context_memory);

  /* Motion correction. */
  float turned = 7.0f, offset3[3] = {7, 7, 7};
  sinew_turn_to_face turn = {0.8f, 0.2f, 0.0f, 1.0f};
  EXPECT(sinew_turn_to_face_step(&turn, 0.0f, 1.0f, &turned), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_shift_to_spot shift = {0.0f, 1.0f, {INFINITY, 0, 0}, {0, 0, 0}};
  EXPECT(sinew_shift_to_spot_step(&shift, 0.0f, 1.0f, offset3), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_dynamic_turn(NAN, 0.0f, 0.1f, 0.0f, 1.0f, &turned), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_steering steering = {0.0f, 1.0f};
  sinew_facing facing = {7.0f, 7.0f};
  EXPECT(sinew_steering_step(&steering, &facing, 1.0f, 0.1f), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_lean lean = {1.0f, 0.0f, 0.1f};
  sinew_lean_state leaning = {7.0f, 7.0f};
  EXPECT(sinew_lean_step(&lean, &leaning, 1.0f, 0.1f), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_playback_rate(1.0f, 0.0f, 0.5f, 2.0f, &turned), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_curve_key keys[2] = {{0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
  EXPECT(sinew_speed_curve_enter(keys, 2, 0.5f, &turned), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_root_motion place = {{0, 0, 0}, 0.0f}, warped = {{7, 7, 7}, 7.0f};
  sinew_warp_point warp = {place, place, 0.5f, {{0.0f, 0.9f}, {0.0f, 0.5f}, {0.0f, 0.5f}}};
  EXPECT(sinew_warp_point_apply(&warp, &place, 0.2f, &warped), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT(sinew_clip_motion_between(&asset, clips, 0.0f, 1.0f, &warped), SINEW_ERROR_INDEX_OUT_OF_RANGE);
  sinew_speed_step late_first[1] = {{0.3f, 5.5f}};
  EXPECT(sinew_target_speed(late_first, 1, 0.5f, &turned), SINEW_ERROR_INVALID_ARGUMENT);
  sinew_speed_range apart[2] = {{0.0f, 2.0f, 1.5f, 0}, {3.0f, 5.5f, 5.5f, 1}};
  sinew_speed_share speed_shares[2];
  uint32_t num_shares = 7;
  EXPECT(sinew_speed_ranges_select(apart, 2, 0.5f, 2.0f, 2.5f, speed_shares, &num_shares), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(num_shares == 7);
  sinew_aim_blend_request aim_grid = {NULL, NULL, NULL, 2, 1, 0, {0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 1.0f}, 99};
  sinew_aim_blend_result aimed = {{7.0f, 7.0f}, {7.0f, 7.0f, 7.0f}, 7.0f};
  EXPECT(sinew_aim_blend(&asset, &aim_grid, NULL, 0, NULL, 0, &aimed), SINEW_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(aimed.error == 7.0f);
  EXPECT_TRUE(turned == 7.0f && offset3[0] == 7.0f && facing.yaw == 7.0f);
  EXPECT_TRUE(leaning.angle == 7.0f && warped.yaw == 7.0f);

  uint8_t saved[SINEW_CHARACTER_ALIGN];
  memcpy(saved, memory, sizeof saved);
  memset(memory, 0, sizeof saved);
  EXPECT(sinew_character_update(character, &asset, 1.0f / 30.0f), SINEW_ERROR_INVALID_HANDLE);
  EXPECT(sinew_character_model_matrices(character, &values, &matrices), SINEW_ERROR_INVALID_HANDLE);
  memcpy(memory, saved, sizeof saved);
  memset(memory + SINEW_CHARACTER_ALIGN, 0xEE, 64); /* the block's own header */
  EXPECT(sinew_character_update(character, &asset, 1.0f / 30.0f), SINEW_ERROR_STATE_MISMATCH);
  EXPECT(sinew_character_update((sinew_character *)(memory + 8), &asset, 1.0f / 30.0f), SINEW_ERROR_INVALID_HANDLE);

  free(memory);
  free(storage);
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
