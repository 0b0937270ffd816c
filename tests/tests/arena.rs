//! The arena: typed aligned zeroed slices from any byte buffer, checkpoints, exhaustion as an error.

use sinew::math::{Mat4, SoaTransform};
use sinew::{Arena, Error};

#[test]
fn carves_aligned_zeroed_slices_from_a_misaligned_buffer() {
    let mut storage = vec![0xABu8; 4096];
    // Start one byte in, so the buffer itself is misaligned for everything wider than a byte.
    let arena = Arena::new(&mut storage[1..]);
    let bytes = arena.alloc::<u8>(3).unwrap();
    assert_eq!(bytes, &[0, 0, 0]);
    let mats = arena.alloc::<Mat4>(5).unwrap();
    assert_eq!(mats.as_ptr() as usize % 16, 0);
    assert!(mats.iter().all(|m| m.cols == [[0.0; 4]; 4]));
    let pose = arena.alloc::<SoaTransform>(2).unwrap();
    assert_eq!(pose.as_ptr() as usize % 16, 0);
    // All three are live at once and disjoint.
    bytes[0] = 1;
    mats[4].cols[3][3] = 2.0;
    pose[1].scale.x = sinew::math::F4::ONE;
    assert_eq!(bytes[0], 1);
    assert!(arena.used() >= 3 + 5 * 64 + 2 * 160);
    assert!(arena.used() <= 3 + 5 * 64 + 2 * 160 + 15 + 15);
}

#[test]
fn exhaustion_is_an_error_and_carves_nothing() {
    let mut storage = [0u8; 100];
    let arena = Arena::new(&mut storage);
    let used_before = {
        let _ = arena.alloc::<u32>(10).unwrap();
        arena.used()
    };
    let err = arena.alloc::<u32>(100).unwrap_err();
    assert!(
        matches!(err, Error::ArenaExhausted { requested, available } if requested >= 400 && available == 100 - used_before)
    );
    assert_eq!(arena.used(), used_before);
    // Overflowing size computations are exhaustion too, not a wrap-around.
    assert!(matches!(arena.alloc::<u64>(usize::MAX / 4), Err(Error::ArenaExhausted { .. })));
}

#[test]
fn checkpoint_rewind_and_high_water() {
    let mut storage = [0u8; 1024];
    let mut arena = Arena::new(&mut storage);
    arena.alloc::<u8>(100).unwrap();
    let mark = arena.checkpoint();
    {
        let scratch = arena.alloc::<u8>(500).unwrap();
        scratch.fill(7);
    }
    assert_eq!(arena.high_water(), 600);
    arena.rewind(mark).unwrap();
    assert_eq!(arena.used(), 100);
    // Memory handed out again is zeroed again.
    assert!(arena.alloc::<u8>(500).unwrap().iter().all(|&b| b == 0));
    assert_eq!(arena.high_water(), 600);
    arena.reset();
    assert_eq!(arena.used(), 0);
    assert_eq!(arena.capacity(), 1024);
}

#[test]
fn rewind_past_current_use_is_rejected() {
    let mut storage = [0u8; 256];
    let mut arena = Arena::new(&mut storage);
    arena.alloc::<u8>(200).unwrap();
    let late = arena.checkpoint();
    arena.reset();
    assert_eq!(arena.rewind(late), Err(Error::InvalidCheckpoint { checkpoint: 200, used: 0 }));
    assert_eq!(arena.used(), 0);
}

#[test]
fn sub_arena_rewinds_independently_of_long_lived_state() {
    let mut storage = vec![0u8; 2048];
    let outer = Arena::new(&mut storage);
    let state = outer.alloc::<f32>(16).unwrap();
    state[0] = 42.0;
    let mut scratch = outer.sub_arena(1024).unwrap();
    for _ in 0..3 {
        let mark = scratch.checkpoint();
        scratch.alloc::<f32>(200).unwrap();
        scratch.rewind(mark).unwrap();
    }
    assert_eq!(scratch.high_water(), 800);
    assert_eq!(state[0], 42.0);
    assert!(matches!(scratch.alloc::<u8>(2000), Err(Error::ArenaExhausted { .. })));
}

#[test]
fn required_bytes_is_enough_for_any_buffer_alignment() {
    for offset in 0..16 {
        let need = Arena::required_bytes::<Mat4>(7) + Arena::required_bytes::<SoaTransform>(3);
        let mut storage = vec![0u8; need + offset];
        let arena = Arena::new(&mut storage[offset..]);
        arena.alloc::<Mat4>(7).unwrap();
        arena.alloc::<SoaTransform>(3).unwrap();
    }
}

#[test]
fn zero_length_buffer_and_zero_count() {
    let arena = Arena::new(&mut []);
    assert_eq!(arena.alloc::<Mat4>(0).unwrap().len(), 0);
    assert!(matches!(arena.alloc::<u8>(1), Err(Error::ArenaExhausted { requested: 1, available: 0 })));
}
