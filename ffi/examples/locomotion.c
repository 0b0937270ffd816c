/* A walking character driven through sinew's C ABI as gameplay drives one: footsteps counted from the markers
 * each update crossed, a foot-phase-matched switch from walk to run, both feet planted on a slope (the ground
 * asked for under the probe points), the head looking at a point, and culling bounds. Prints each frame's
 * footsteps, planting report, bounds and model matrices as IEEE-754 bit patterns, so a test compares them with
 * the Rust API's, bit for bit.
 *
 *   sinew-bake bake --bvh walk.bvh run.bvh --phase --out loco.snw
 *   cc -std=c11 locomotion.c -I ffi/include target/release/libsinew_ffi.a -o locomotion && ./locomotion loco.snw
 *
 * The blob's clip 0 walks and clip 1 runs; both carry footstep markers and plant ranges for two feet, each the
 * child of a knee, the child of a hip, the child of the pelvis. The head is the joint named "Head".
 */
#include "sinew.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 150
#define RUN_FRAME 70
#define DT (1.0f / 60.0f)
#define SLOPE 0.2f /* the ground rises 0.2 units per unit along +Z */
#define MAX_JOINTS 1024 /* a skeleton's most */

static int check(sinew_status status, const char *what) {
  if (status != SINEW_OK) fprintf(stderr, "%s: %s (status %d)\n", what, sinew_status_message(status), (int)status);
  return status == SINEW_OK;
}

static void print_floats(const char *tag, int frame, const float *values, size_t count) {
  printf("%s %d:", tag, frame);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    memcpy(&bits, &values[i], sizeof bits);
    printf(" %08x", (unsigned)bits);
  }
  printf("\n");
}

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

/* The joint named by the `len` bytes at `name`, or -1. */
static int32_t find_joint(const sinew_asset *asset, uint32_t joints, const char *name, size_t len) {
  for (uint32_t j = 0; j < joints; ++j) {
    const char *text;
    size_t text_len;
    if (sinew_asset_joint_name(asset, j, &text, &text_len) == SINEW_OK && text_len == len &&
        memcmp(text, name, len) == 0) {
      return (int32_t)j;
    }
  }
  return -1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s BLOB\n", argv[0]);
    return 2;
  }
  size_t blob_len = 0;
  uint8_t *blob = read_blob(argv[1], &blob_len);
  sinew_asset asset;
  uint32_t joints = 0, markers = 0;
  if (!blob || !check(sinew_asset_load(blob, blob_len, &asset), "sinew_asset_load") ||
      !check(sinew_asset_num_joints(&asset, &joints), "sinew_asset_num_joints") ||
      !check(sinew_asset_num_markers(&asset, 0, &markers), "sinew_asset_num_markers")) {
    return 1;
  }

  /* The feet from the walk's footstep markers (`footstep:<joint>`), in order of first appearance; each leg up
   * the hierarchy from there. */
  uint32_t legs[2][3];
  int feet = 0;
  char plant[2][80];
  for (uint32_t m = 0; m < markers && feet < 2; ++m) {
    float time, value;
    const char *name;
    size_t len;
    if (!check(sinew_asset_marker(&asset, 0, m, &time, &value, &name, &len), "sinew_asset_marker")) return 1;
    if (len <= 9 || memcmp(name, "footstep:", 9) != 0 || len - 9 >= sizeof plant[0] - 6) continue;
    int32_t foot = find_joint(&asset, joints, name + 9, len - 9);
    if (foot < 0 || (feet == 1 && (uint32_t)foot == legs[0][2])) continue;
    int32_t knee, hip;
    if (!check(sinew_asset_joint_parent(&asset, (uint32_t)foot, &knee), "parent") || knee < 0 ||
        !check(sinew_asset_joint_parent(&asset, (uint32_t)knee, &hip), "parent") || hip < 0) {
      return 1;
    }
    legs[feet][0] = (uint32_t)hip;
    legs[feet][1] = (uint32_t)knee;
    legs[feet][2] = (uint32_t)foot;
    snprintf(plant[feet], sizeof plant[feet], "plant:%.*s", (int)(len - 9), name + 9);
    ++feet;
  }
  int32_t pelvis = -1, head = find_joint(&asset, joints, "Head", 4);
  if (feet != 2 || head < 0 || !check(sinew_asset_joint_parent(&asset, legs[0][0], &pelvis), "parent") || pelvis < 0) {
    fprintf(stderr, "the blob needs footsteps on two legs and a Head joint\n");
    return 1;
  }

  const sinew_layer_desc layers[1] = {{SINEW_LAYER_BASE, 2}};
  sinew_character_desc desc = {0};
  desc.layers = layers;
  desc.num_layers = 1;
  desc.inertialization = SINEW_INERTIALIZATION_DEFAULT;
  size_t bytes = 0;
  sinew_character *character = NULL;
  void *memory = NULL;
  if (!check(sinew_character_required_bytes(&asset, &desc, &bytes), "sinew_character_required_bytes") ||
      !(memory = aligned_alloc(SINEW_CHARACTER_ALIGN, bytes)) ||
      !check(sinew_character_init(memory, bytes, &asset, &desc, &character), "sinew_character_init") ||
      !check(sinew_character_play(character, &asset, 0, 0, 0.0f, 1.0f, 1.0f), "sinew_character_play")) {
    return 1;
  }

  sinew_foot_planter planter;
  memset(&planter, 0, sizeof planter);
  sinew_foot_planting planting;
  memset(&planting, 0, sizeof planting); /* zero settings: the defaults */
  planting.pelvis = (uint32_t)pelvis;
  memcpy(planting.legs, legs, sizeof legs);
  for (int f = 0; f < 2; ++f) {
    planting.ground_normal[f][1] = 1.0f;
    planting.ground_normal[f][2] = -SLOPE;
  }
  planting.world[0] = planting.world[5] = planting.world[10] = planting.world[15] = 1.0f;
  planting.dt = DT;
  planting.weight = 1.0f;
  sinew_aim look = {(uint32_t)head, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}, 1, {40, 150, 300}, 1.2f, 0.0f, 0.8f};
  _Alignas(16) sinew_joint_box boxes[MAX_JOINTS];
  if (joints > MAX_JOINTS) return 1;
  for (uint32_t j = 0; j < joints; ++j) {
    sinew_joint_box box = {{0, 0, 0}, j, {5, 5, 5}, 0};
    boxes[j] = box;
  }

  int footsteps = 0;
  for (int frame = 0; frame < FRAMES; ++frame) {
    if (frame == RUN_FRAME) {
      float start;
      if (!check(sinew_character_transition_synced(character, &asset, 1, 0.0f, 1.0f, 0.25f, SINEW_SYNC_FOOT_PHASE,
                                                   &start),
                 "sinew_character_transition_synced")) {
        return 1;
      }
      print_floats("run", frame, &start, 1);
    }
    if (!check(sinew_character_update(character, &asset, DT), "sinew_character_update")) return 1;

    /* Footsteps: the markers this update crossed, in the order playback met them. */
    uint32_t crossed[8], clip;
    size_t count;
    if (!check(sinew_character_crossed_markers(character, &asset, 0, 0, crossed, 8, &count), "crossed_markers") ||
        !check(sinew_character_slot_clip(character, 0, 0, &clip), "sinew_character_slot_clip")) {
      return 1;
    }
    for (size_t k = 0; k < count && k < 8; ++k) {
      float time, value;
      const char *name;
      size_t len;
      if (!check(sinew_asset_marker(&asset, clip, crossed[k], &time, &value, &name, &len), "marker")) return 1;
      if (len > 9 && memcmp(name, "footstep:", 9) == 0) {
        ++footsteps;
        printf("step %d: %.*s\n", frame, (int)(len - 9), name + 9);
      }
    }

    /* Feet planted where the clip says, on the slope under the probe points. */
    for (int f = 0; f < 2; ++f) {
      float weight;
      if (!check(sinew_character_range_weight(character, &asset, 0, plant[f], strlen(plant[f]), &weight), "range")) {
        return 1;
      }
      planting.planted[f] = weight > 0.5f;
    }
    float probes[6];
    if (!check(sinew_character_foot_probes(character, &planter, &planting, probes), "foot_probes")) return 1;
    planting.ground_height[0] = SLOPE * probes[2];
    planting.ground_height[1] = SLOPE * probes[5];
    sinew_planting_report report;
    uint32_t aimed;
    float bounds[6];
    if (!check(sinew_character_plant_feet(character, &asset, &planter, &planting, &report), "plant_feet") ||
        !check(sinew_character_aim_ik(character, &asset, &look, &aimed), "aim_ik") ||
        !check(sinew_character_bounds(character, boxes, joints, bounds, bounds + 3), "bounds")) {
      return 1;
    }
    float planted[5] = {report.pelvis_drop, (float)report.reached[0], (float)report.reached[1], report.lock[0],
                        report.lock[1]};
    print_floats("plant", frame, planted, 5);
    print_floats("bounds", frame, bounds, 6);
    const float *model;
    size_t matrices;
    if (!check(sinew_character_model_matrices(character, &model, &matrices), "model_matrices")) return 1;
    print_floats("m", frame, model, matrices * 16);
  }
  printf("footsteps %d\n", footsteps);
  free(memory);
  free(blob);
  return 0;
}
