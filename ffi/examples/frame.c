/* One character driven through sinew's C ABI: load a blob, lay out a character in memory the program owns,
 * play the first clip, switch to the last one with an inertialized transition, move the character's memory
 * half-way through, and print every frame's model matrices and palette as IEEE-754 bit patterns (so a test can
 * compare them with the Rust API's, bit for bit).
 *
 *   cc -std=c11 frame.c -I ffi/include target/release/libsinew_ffi.a -o frame && ./frame docs/example.snw
 */
#include "sinew.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES 24
#define TRANSITION_FRAME 12
#define MOVE_FRAME 18

static int check(sinew_status status, const char *what) {
  if (status != SINEW_OK) {
    fprintf(stderr, "%s: %s (status %d)\n", what, sinew_status_message(status), (int)status);
    return 0;
  }
  return 1;
}

static void print_floats(char tag, int frame, const float *values, size_t count) {
  printf("%c %d:", tag, frame);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    memcpy(&bits, &values[i], sizeof bits);
    printf(" %08x", (unsigned)bits);
  }
  printf("\n");
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

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s BLOB\n", argv[0]);
    return 2;
  }
  if (sinew_abi_version() / 1000 != SINEW_ABI_VERSION / 1000 || sinew_abi_version() < SINEW_ABI_VERSION) {
    fprintf(stderr, "library ABI %u, header %u\n", (unsigned)sinew_abi_version(), (unsigned)SINEW_ABI_VERSION);
    return 1;
  }
  size_t blob_len = 0;
  uint8_t *blob = read_blob(argv[1], &blob_len);
  if (!blob) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }

  sinew_asset asset;
  uint32_t joints = 0, clips = 0, skin_joints = 0;
  if (!check(sinew_asset_load(blob, blob_len, &asset), "sinew_asset_load") ||
      !check(sinew_asset_num_joints(&asset, &joints), "sinew_asset_num_joints") ||
      !check(sinew_asset_num_clips(&asset, &clips), "sinew_asset_num_clips") ||
      !check(sinew_asset_num_skin_joints(&asset, &skin_joints), "sinew_asset_num_skin_joints")) {
    return 1;
  }
  printf("abi %u joints %u clips %u skin %u\n", (unsigned)sinew_abi_version(), (unsigned)joints, (unsigned)clips,
         (unsigned)skin_joints);
  for (uint32_t j = 0; j < joints; ++j) {
    const char *name;
    size_t len;
    if (!check(sinew_asset_joint_name(&asset, j, &name, &len), "sinew_asset_joint_name")) return 1;
    printf("joint %u %.*s\n", (unsigned)j, (int)len, name);
  }
  for (uint32_t c = 0; c < clips; ++c) {
    float duration;
    if (!check(sinew_asset_clip_duration(&asset, c, &duration), "sinew_asset_clip_duration")) return 1;
    print_floats('d', (int)c, &duration, 1);
  }

  const sinew_layer_desc layers[1] = {{SINEW_LAYER_BASE, 1}};
  sinew_character_desc desc = {0};
  desc.layers = layers;
  desc.num_layers = 1;
  desc.inertialization = SINEW_INERTIALIZATION_DEFAULT;
  desc.skinned = skin_joints > 0;
  size_t bytes = 0;
  if (!check(sinew_character_required_bytes(&asset, &desc, &bytes), "sinew_character_required_bytes")) return 1;
  void *memory = aligned_alloc(SINEW_CHARACTER_ALIGN, bytes);
  sinew_character *character = NULL;
  if (!memory || !check(sinew_character_init(memory, bytes, &asset, &desc, &character), "sinew_character_init") ||
      !check(sinew_character_play(character, &asset, 0, 0, 0.0f, 1.0f, 1.0f), "sinew_character_play")) {
    return 1;
  }

  for (int frame = 0; frame < FRAMES; ++frame) {
    if (frame == TRANSITION_FRAME &&
        !check(sinew_character_transition(character, &asset, clips - 1, 0.0f, 1.0f, 0.25f), "sinew_character_transition")) {
      return 1;
    }
    if (frame == MOVE_FRAME) {
      /* The character is its memory: a byte copy at another aligned address carries on. */
      void *moved = aligned_alloc(SINEW_CHARACTER_ALIGN, bytes);
      if (!moved) return 1;
      memcpy(moved, memory, bytes);
      memset(memory, 0, bytes);
      free(memory);
      memory = moved;
      character = (sinew_character *)moved;
    }
    if (!check(sinew_character_update(character, &asset, 1.0f / 30.0f), "sinew_character_update")) return 1;
    const float *values;
    size_t count;
    if (!check(sinew_character_model_matrices(character, &values, &count), "sinew_character_model_matrices")) return 1;
    print_floats('m', frame, values, count * 16);
    if (!check(sinew_character_palette_3x4(character, &values, &count), "sinew_character_palette_3x4")) return 1;
    print_floats('p', frame, values, count * 12);
  }
  free(memory);
  free(blob);
  return 0;
}
