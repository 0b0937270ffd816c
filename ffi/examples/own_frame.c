/* An engine that wires its own frame from sinew's stage jobs, over buffers it owns: sample two clips through
 * sampling contexts, blend them, run local-to-model, a two-bone reach, local-to-model again, the skinning
 * palette, and CPU vertex skinning of a few vertices. Beside it a sinew character plays the same clips and
 * applies the same reach; each frame the two must agree bit for bit (the jobs are what the character runs).
 * Then the engine switches to the second clip alone through its own inertializer, and the offset must be gone,
 * bit for bit, once the transition's time has passed.
 *
 *   cc -std=c11 own_frame.c -I ffi/include target/release/libsinew_ffi.a -lm -o own_frame
 *   ./own_frame docs/example.snw
 */
#include "sinew.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 30
#define SETTLE_FRAMES 12
#define DT (1.0f / 30.0f)

static int check(sinew_status status, const char *what) {
  if (status != SINEW_OK) {
    fprintf(stderr, "%s: %s (status %d)\n", what, sinew_status_message(status), (int)status);
    return 0;
  }
  return 1;
}

/* The whole file, in memory aligned to SINEW_BLOB_ALIGN. */
static uint8_t *read_blob(const char *path, size_t *len) {
  FILE *file = fopen(path, "rb");
  if (!file) return NULL;
  uint8_t *blob = NULL;
  if (fseek(file, 0, SEEK_END) == 0) {
    long size = ftell(file);
    size_t padded = ((size_t)(size > 0 ? size : 0) + SINEW_BLOB_ALIGN - 1) / SINEW_BLOB_ALIGN * SINEW_BLOB_ALIGN;
    if (size > 0 && fseek(file, 0, SEEK_SET) == 0 && (blob = aligned_alloc(SINEW_BLOB_ALIGN, padded)) != NULL) {
      if (fread(blob, 1, (size_t)size, file) != (size_t)size) {
        free(blob);
        blob = NULL;
      }
      *len = (size_t)size;
    }
  }
  fclose(file);
  return blob;
}

/* `bytes` rounded up to `align` and allocated so. */
static void *alloc_aligned(size_t align, size_t bytes) {
  return aligned_alloc(align, (bytes + align - 1) / align * align);
}

/* A sampling context for a skeleton of `joints` joints, in memory the program owns. */
static sinew_sampling_context *new_context(uint32_t joints) {
  size_t bytes = 0;
  sinew_sampling_context *context = NULL;
  if (!check(sinew_sampling_context_required_bytes(joints, 3 * joints, &bytes), "context size")) return NULL;
  void *memory = alloc_aligned(SINEW_STATE_ALIGN, bytes);
  if (!memory || !check(sinew_sampling_context_init(memory, bytes, joints, 3 * joints, &context), "context")) {
    free(memory);
    return NULL;
  }
  return context;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s BLOB\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  uint8_t *blob = read_blob(argv[1], &len);
  if (!blob) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  sinew_asset asset;
  uint32_t joints = 0, skin_joints = 0, clips = 0;
  size_t groups = 0;
  if (!check(sinew_asset_load(blob, len, &asset), "load") || !check(sinew_asset_num_joints(&asset, &joints), "joints") ||
      !check(sinew_asset_num_skin_joints(&asset, &skin_joints), "skin") ||
      !check(sinew_asset_num_clips(&asset, &clips), "clips") ||
      !check(sinew_asset_num_soa_joints(&asset, &groups), "groups")) {
    return 1;
  }
  if (skin_joints < 2 || clips < 2 || joints < 5) {
    fprintf(stderr, "the example needs a skinned asset with two clips\n");
    return 1;
  }

  /* The character the engine's frame is checked against: one base layer crossfading two clips. */
  sinew_layer_desc base = {SINEW_LAYER_BASE, 2};
  sinew_character_desc desc = {&base, 1, 0, 0, SINEW_INERTIALIZATION_NONE, 1, SINEW_SAMPLING_SHARED};
  size_t character_bytes = 0;
  sinew_character *character = NULL;
  if (!check(sinew_character_required_bytes(&asset, &desc, &character_bytes), "character size")) return 1;
  void *character_memory = alloc_aligned(SINEW_CHARACTER_ALIGN, character_bytes);
  if (!character_memory ||
      !check(sinew_character_init(character_memory, character_bytes, &asset, &desc, &character), "character")) {
    return 1;
  }
  float weights[2] = {0.7f, 0.3f};
  sinew_play first = {0, 0, 0, 0.1f, 1.0f, weights[0], SINEW_WRAP_LOOP, SINEW_NO_MASK};
  sinew_play second = {0, 1, 1, 0.4f, 1.3f, weights[1], SINEW_WRAP_LOOP, SINEW_NO_MASK};
  if (!check(sinew_character_play_slot(character, &asset, &first), "play") ||
      !check(sinew_character_play_slot(character, &asset, &second), "play")) {
    return 1;
  }

  /* The engine's own buffers: a sampling context per clip, poses, matrices, an inertializer. */
  sinew_sampling_context *contexts[2] = {new_context(joints), new_context(joints)};
  size_t inertializer_bytes = 0;
  sinew_inertializer *inertializer = NULL;
  if (!contexts[0] || !contexts[1] ||
      !check(sinew_inertializer_required_bytes(joints, 0, &inertializer_bytes), "inertializer size")) {
    return 1;
  }
  void *inertializer_memory = alloc_aligned(SINEW_STATE_ALIGN, inertializer_bytes);
  if (!inertializer_memory || !check(sinew_inertializer_init(inertializer_memory, inertializer_bytes, joints, 0,
                                                             SINEW_INERTIALIZE_DEFAULT, &inertializer),
                                     "inertializer")) {
    return 1;
  }
  size_t pose_bytes = groups * sizeof(sinew_soa_transform);
  sinew_soa_transform *samples[2] = {alloc_aligned(16, pose_bytes), alloc_aligned(16, pose_bytes)};
  sinew_soa_transform *earlier = alloc_aligned(16, pose_bytes), *pose = alloc_aligned(16, pose_bytes);
  sinew_mat4 *model = alloc_aligned(32, joints * sizeof(sinew_mat4));
  sinew_mat3x4 *rows = alloc_aligned(16, skin_joints * sizeof(sinew_mat3x4));
  sinew_mat4 *palette = alloc_aligned(32, skin_joints * sizeof(sinew_mat4));
  if (!samples[0] || !samples[1] || !earlier || !pose || !model || !rows || !palette) return 1;

  /* Three vertices bound to the first two skin joints: interleaved position and normal. */
  float vertices[3 * 6] = {0, 1, 0, 0, 0, 1, 0.1f, 1.2f, 0, 1, 0, 0, -0.1f, 0.9f, 0.05f, 0, 1, 0};
  float skinned[3 * 6];
  uint16_t influence_joints[3 * 2] = {0, 1, 1, 0, 0, 1};
  float influence_weights[3 * 2] = {0.75f, 0.25f, 0.5f, 0.5f, 1.0f, 0.0f};
  sinew_influences influences = {influence_joints, influence_weights, 3, 2, 0};
  sinew_vertex_layout layout = {0, 24, 12, 24, 0, 0};
  /* A reach of the chain 2-3-4 toward a point, half applied. */
  sinew_two_bone reach = {{2, 3, 4}, {0.1f, 1.1f, 0.3f}, {0, 0, 0}, 0, 0.5f, 1.0f, {0, 0, 0, 1}, 0};

  int agreed = 0;
  for (int frame = 0; frame < FRAMES; ++frame) {
    /* The character's frame: the update without the palette, then the reach as its one edit. */
    uint32_t reached = 0;
    if (!check(sinew_character_update_unskinned(character, &asset, DT), "update") ||
        !check(sinew_character_two_bone_ik(character, &asset, &reach, &reached), "character reach")) {
      return 1;
    }
    /* The engine's frame, at the clips and times the character's clocks reached. */
    for (uint32_t slot = 0; slot < 2; ++slot) {
      uint32_t clip = 0;
      float time = 0.0f;
      if (!check(sinew_character_slot_clip(character, 0, slot, &clip), "slot clip") ||
          !check(sinew_character_slot_time(character, 0, slot, &time), "slot time") ||
          !check(sinew_sample(&asset, clip, time, SINEW_WRAP_CLAMP, contexts[slot], samples[slot], groups, NULL, 0),
                 "sample")) {
        return 1;
      }
    }
    sinew_blend_layer layers[2] = {{samples[0], NULL, weights[0], 0}, {samples[1], NULL, weights[1], 0}};
    if (!check(sinew_blend(&asset, layers, 2, NULL, 0, 0.1f, pose, groups), "blend") ||
        !check(sinew_local_to_model(&asset, pose, groups, NULL, model, joints), "local to model") ||
        !check(sinew_two_bone_ik(&asset, model, joints, pose, groups, &reach, &reached), "reach") ||
        !check(sinew_local_to_model(&asset, pose, groups, NULL, model, joints), "local to model") ||
        !check(sinew_skinning_palette_3x4(&asset, model, joints, rows, skin_joints), "palette") ||
        !check(sinew_skinning_palette(&asset, model, joints, palette, skin_joints), "palette") ||
        !check(sinew_skin_vertices(palette, skin_joints, &influences, SINEW_NORMALS_FOR_PALETTE, vertices,
                                   sizeof vertices, &layout, skinned, sizeof skinned, &layout),
               "vertex skinning")) {
      return 1;
    }
    const float *character_model = NULL, *character_rows = NULL;
    size_t character_joints = 0, character_skin = 0;
    if (!check(sinew_character_model_matrices(character, &character_model, &character_joints), "model") ||
        !check(sinew_character_palette_3x4(character, &character_rows, &character_skin), "palette")) {
      return 1;
    }
    int same = character_joints == joints && character_skin == skin_joints &&
               memcmp(character_model, model, joints * sizeof(sinew_mat4)) == 0 &&
               memcmp(character_rows, rows, skin_joints * sizeof(sinew_mat3x4)) == 0;
    agreed += same;
    printf("frame %2d: %s; reached %u; vertex 0 at (%.4f, %.4f, %.4f)\n", frame,
           same ? "the jobs show what the character shows" : "THE JOBS DIFFER FROM THE CHARACTER", (unsigned)reached,
           (double)skinned[0], (double)skinned[1], (double)skinned[2]);
    if (!check(sinew_inertialize(inertializer, DT, pose, groups, NULL, 0, NULL, NULL), "inertialize")) return 1;
  }

  /* The engine alone: a cut to the second clip, inertialized over 0.3 s from what it showed last. */
  float duration = 0.0f;
  if (!check(sinew_asset_clip_duration(&asset, 1, &duration), "duration") ||
      !check(sinew_inertializer_request(inertializer, 0.3f, NULL, groups), "request")) {
    return 1;
  }
  int settled = 0;
  for (int frame = 0; frame < SETTLE_FRAMES; ++frame) {
    float time = (float)frame * DT;
    /* On the request frame the inertializer also reads the new target a frame earlier (relative velocity). */
    if (!check(sinew_sample(&asset, 1, time, SINEW_WRAP_LOOP, contexts[1], pose, groups, NULL, 0), "sample") ||
        !check(sinew_sample(&asset, 1, time - DT, SINEW_WRAP_LOOP, contexts[0], earlier, groups, NULL, 0), "sample") ||
        !check(sinew_inertialize(inertializer, DT, pose, groups, NULL, 0, frame == 0 ? earlier : NULL, NULL),
               "inertialize")) {
      return 1;
    }
    const sinew_soa_transform *shown = NULL;
    const float *curves = NULL;
    size_t shown_groups = 0, num_curves = 0;
    uint32_t transitioning = 0;
    if (!check(sinew_inertializer_output(inertializer, &shown, &shown_groups, &curves, &num_curves), "output") ||
        !check(sinew_inertializer_is_transitioning(inertializer, &transitioning), "transitioning")) {
      return 1;
    }
    settled = !transitioning && memcmp(shown, pose, pose_bytes) == 0;
    printf("after the cut %2d: %s\n", frame, transitioning ? "transitioning" : settled ? "on the clip" : "OFF THE CLIP");
  }
  printf("%d of %d frames match the character; %s after the cut\n", agreed, FRAMES,
         settled ? "settled on the clip" : "NOT SETTLED");
  return agreed == FRAMES && settled ? 0 : 1;
}
