//! 128-bit ids: UUIDv7s and flakes made from ids of their 64-bit layouts, their forms, and the
//! random bits.

use proptest::prelude::*;

use super::seeded_runner;
use crate::generator::{Generator, Settings};
use crate::kinds::flake128::{self, BASE62_DIGITS, MAX_WORKER};
use crate::kinds::layout::Shape;
use crate::kinds::uuid;
use crate::random::Random;
use crate::sequencer::Sequencer;

/// An id of `shape` for (ms, sequence).
fn id(shape: Shape, ms: u64, sequence: u16) -> u64 {
  shape.compose(ms, 0, sequence)
}

#[test]
fn a_uuid_has_the_rfc_9562_bits() {
  let ms = 0x0123_4567_89ab;
  let uuid = uuid::bytes(id(uuid::SHAPE, ms, 0x7fff), u64::MAX);
  // unix_ts_ms, then version 7 and the counter's high 12 bits, then variant 10, the counter's
  // low 3 bits and the random bits (all ones here).
  assert_eq!(&uuid[..6], &[0x01, 0x23, 0x45, 0x67, 0x89, 0xab]);
  assert_eq!(uuid[6] >> 4, 7);
  assert_eq!(u16::from_be_bytes([uuid[6], uuid[7]]) & 0xfff, 0xfff);
  assert_eq!(uuid[8] >> 6, 0b10);
  assert_eq!(uuid[8] & 0x3f, 0x3f);
  assert!(uuid[9..].iter().all(|&b| b == 0xff));
  let parts = uuid::parts(&uuid).unwrap();
  assert_eq!(
    (parts.timestamp, parts.sequence, parts.random),
    (ms, 0x7fff, (1 << 59) - 1)
  );
  let zero = uuid::bytes(id(uuid::SHAPE, ms, 0), 0);
  assert_eq!(&zero[6..], &[0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn the_canonical_form() {
  let uuid = uuid::bytes(
    id(uuid::SHAPE, 0x0193_a0c4_7e1f, 0x55aa),
    0x0123_4567_89ab_cdef,
  );
  let text = uuid::format(&uuid);
  let text = std::str::from_utf8(&text).unwrap();
  assert_eq!(text, "0193a0c4-7e1f-7ab5-9009-1a2b3c4d5e6f");
  assert_eq!(uuid::parse(text), Some(uuid));
  assert_eq!(uuid::parse(&text.to_uppercase()), Some(uuid));
  for bad in [
    "",
    "0193a0c4-7e1f-7ab5-9002-468acf13579",
    "0193a0c4-7e1f-7ab5-9002-468acf13579b0",
    "0193a0c47e1f-7ab5-9002-468acf13579b0",
    "0193a0c4-7e1f-7ab5-9002_468acf13579b",
    "0193a0c4-7e1f-7ab5-9002-468acf13579g",
    "0193a0c4-7e1f-7ab5-+002-468acf13579b",
    // Version 4, and variants 0, 110 and 111.
    "0193a0c4-7e1f-4ab5-9002-468acf13579b",
    "0193a0c4-7e1f-7ab5-1002-468acf13579b",
    "0193a0c4-7e1f-7ab5-c002-468acf13579b",
    "0193a0c4-7e1f-7ab5-e002-468acf13579b",
    "0193a0c4-7e1f-7ab5-9002-468acf13579é",
  ] {
    assert_eq!(uuid::parse(bad), None, "{bad}");
  }
}

#[test]
fn uuids_sort_as_their_ids_whatever_their_random_bits() {
  let strategy = (
    0..1u64 << 48,
    any::<u16>(),
    any::<u64>(),
    0..1u64 << 48,
    any::<u16>(),
    any::<u64>(),
  );
  seeded_runner("uuid order proptest", 512)
    .run(
      &strategy,
      |(ms_a, seq_a, random_a, ms_b, seq_b, random_b)| {
        let (seq_a, seq_b) = (seq_a & 0x7fff, seq_b & 0x7fff);
        let (a, b) = (id(uuid::SHAPE, ms_a, seq_a), id(uuid::SHAPE, ms_b, seq_b));
        let (uuid_a, uuid_b) = (uuid::bytes(a, random_a), uuid::bytes(b, random_b));
        if a != b {
          prop_assert_eq!(a.cmp(&b), uuid_a.cmp(&uuid_b));
          let (text_a, text_b) = (uuid::format(&uuid_a), uuid::format(&uuid_b));
          prop_assert_eq!(a.cmp(&b), text_a.cmp(&text_b));
        }
        let parts = uuid::parts(&uuid_a).unwrap();
        prop_assert_eq!((parts.timestamp, parts.sequence), (ms_a, seq_a));
        prop_assert_eq!(parts.random, random_a >> 5);
        let text = uuid::format(&uuid_a);
        prop_assert_eq!(
          uuid::parse(std::str::from_utf8(&text).unwrap()),
          Some(uuid_a)
        );
        Ok(())
      },
    )
    .unwrap();
}

#[test]
fn a_flake_is_ms_worker_sequence() {
  let flake = flake128::value(
    id(flake128::SHAPE, 0x0123_4567_89ab, 0xbeef),
    0x02fc_0000_0001,
  );
  assert_eq!(
    flake.to_be_bytes(),
    [0, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0x02, 0xfc, 0, 0, 0, 1, 0xbe, 0xef]
  );
  let parts = flake128::parts(flake);
  assert_eq!(
    (parts.timestamp, parts.worker, parts.sequence),
    (0x0123_4567_89ab, 0x02fc_0000_0001, 0xbeef)
  );
  assert_eq!(flake128::parts(u128::MAX).worker, MAX_WORKER);
}

/// Base 62 the slow way: one digit at a time.
fn reference_base62(mut value: u128) -> String {
  let alphabet = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let mut digits = vec![b'0'; BASE62_DIGITS];
  for digit in digits.iter_mut().rev() {
    *digit = alphabet[(value % 62) as usize];
    value /= 62;
  }
  String::from_utf8(digits).unwrap()
}

#[test]
fn base62_is_fixed_width_and_sorts_as_numbers() {
  let edges = [
    0,
    1,
    61,
    62,
    u128::from(u64::MAX),
    62u128.pow(10),
    62u128.pow(20) - 1,
    u128::MAX,
  ];
  for value in edges {
    let text = flake128::base62(value);
    let text = std::str::from_utf8(&text).unwrap();
    assert_eq!(text, reference_base62(value));
    assert_eq!(flake128::from_base62(text), Some(value));
  }
  assert_eq!(
    std::str::from_utf8(&flake128::base62(u128::MAX)).unwrap(),
    "7n42DGM5Tflk9n8mt7Fhc7"
  );
  seeded_runner("base62 proptest", 1024)
    .run(&(any::<u128>(), any::<u128>()), |(a, b)| {
      let (text_a, text_b) = (flake128::base62(a), flake128::base62(b));
      prop_assert_eq!(std::str::from_utf8(&text_a).unwrap(), reference_base62(a));
      prop_assert_eq!(a.cmp(&b), text_a.cmp(&text_b));
      prop_assert_eq!(
        flake128::from_base62(std::str::from_utf8(&text_a).unwrap()),
        Some(a)
      );
      Ok(())
    })
    .unwrap();
}

#[test]
fn a_flake_as_text_is_base62_or_hex() {
  let value = 0x0000_0193_a0c4_7e1f_02fc_0000_0001_beef_u128;
  let base62 = flake128::base62(value);
  let base62 = std::str::from_utf8(&base62).unwrap();
  assert_eq!(flake128::from_text(&format!(" {base62}\n")), Some(value));
  assert_eq!(
    flake128::from_text("0x00000193a0c47e1f02fc00000001BEEF"),
    Some(value)
  );
  assert_eq!(
    flake128::from_text("0X00000193a0c47e1f02fc00000001beef"),
    Some(value)
  );
  for bad in [
    "0x0193a0c47e1f02fc00000001beef",
    "0x+0000193a0c47e1f02fc00000001beef",
    "0x00000193a0c47e1f02fc00000001beeg",
  ] {
    assert_eq!(flake128::from_text(bad), None, "{bad}");
  }
}

#[test]
fn base62_refuses_what_is_not_a_flake() {
  for bad in [
    "",
    "7n42DGM5Tflk9n8mt7Fhc",
    "07n42DGM5Tflk9n8mt7Fhc7",
    // 2^128 and the largest 22 digits.
    "7n42DGM5Tflk9n8mt7Fhc8",
    "zzzzzzzzzzzzzzzzzzzzzz",
    "0000000000000000000-00",
    "000000000000000000000_",
  ] {
    assert_eq!(flake128::from_base62(bad), None, "{bad}");
  }
}

#[test]
fn the_wide_layouts_count_from_the_unix_epoch_to_the_uuid_time_field() {
  for shape in [uuid::SHAPE, flake128::SHAPE] {
    assert_eq!(shape.check(), Ok(shape));
    assert_eq!(shape.time_bits, 48);
    // 48 bits of ms: past the state word's 42 bits, so the word, not the layout, ends them.
    assert_eq!(shape.max_time(), (1 << 48) - 1);
  }
  assert_eq!(uuid::SHAPE.ids_per_unit(), 32_768);
  assert_eq!(flake128::SHAPE.ids_per_unit(), 65_536);
}

#[test]
fn a_clock_that_steps_back_never_makes_a_smaller_uuid() {
  let settings = Settings {
    node: 0,
    epoch: 0,
    seq_mask: 0x7fff,
    allowed_future_ms: 0,
    shape: uuid::SHAPE,
  };
  let state = Sequencer::new();
  let generator = Generator::private(&settings, &state, u64::MAX);
  let mut random = Random::default();
  let mut last = [0; 16];
  // Forward, back 5 ms (the last ms is reused while its counter lasts), forward again.
  for now in [1000, 1000, 1001, 996, 996, 1001, 1002] {
    let id = generator.take(now, 1).map(|ids| ids.first);
    let Ok(id) = id else {
      // Refused: the clock is behind more than allowedFutureMs (0) lets it borrow.
      assert!(now < 1001, "{now}");
      continue;
    };
    let uuid = uuid::bytes(id, random.next_u64().unwrap());
    assert!(uuid > last, "{now}");
    last = uuid;
  }
}

#[test]
fn random_bits_differ_between_generators_and_calls() {
  let (mut a, mut b) = (Random::default(), Random::default());
  let first: Vec<u64> = (0..1000).map(|_| a.next_u64().unwrap()).collect();
  let second: Vec<u64> = (0..1000).map(|_| b.next_u64().unwrap()).collect();
  let mut all: Vec<u64> = first.iter().chain(&second).copied().collect();
  all.sort_unstable();
  all.dedup();
  assert_eq!(all.len(), 2000);
  // About half of the bits set: 64,000 bits, a 5 % margin is over 25 standard deviations.
  let ones: u32 = first.iter().map(|n| n.count_ones()).sum();
  assert!((30_400..=33_600).contains(&ones), "{ones}");
}

#[test]
fn random_bits_cross_block_and_key_boundaries() {
  let mut random = Random::default();
  let mut seen = std::collections::HashSet::new();
  // Past a key's 1 MiB: 140,000 ids of 8 bytes.
  for _ in 0..140_000 {
    assert!(seen.insert(random.next_u64().unwrap()));
  }
}

#[cfg(unix)]
#[test]
fn a_forked_child_never_replays_its_parents_random_bits() {
  let mut random = Random::default();
  let _ = random.next_u64().unwrap();
  let mut fds = [0; 2];
  assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
  let pid = unsafe { libc::fork() };
  assert!(pid >= 0);
  if pid == 0 {
    // The child: what its copy of the generator gives next, to the parent, then out.
    let mut bits = [0u64; 64];
    for bit in &mut bits {
      *bit = random.next_u64().unwrap_or(0);
    }
    unsafe {
      libc::write(fds[1], bits.as_ptr().cast(), std::mem::size_of_val(&bits));
      libc::_exit(0);
    }
  }
  unsafe { libc::close(fds[1]) };
  let ours: Vec<u64> = (0..64).map(|_| random.next_u64().unwrap()).collect();
  let mut theirs = [0u64; 64];
  let mut read = 0;
  let bytes = std::mem::size_of_val(&theirs);
  while read < bytes {
    let n = unsafe {
      libc::read(
        fds[0],
        theirs.as_mut_ptr().cast::<u8>().add(read).cast(),
        bytes - read,
      )
    };
    assert!(n > 0, "the child wrote nothing");
    read += n as usize;
  }
  let mut status = 0;
  unsafe {
    libc::waitpid(pid, &mut status, 0);
    libc::close(fds[0]);
  }
  assert!(theirs.iter().all(|bits| *bits != 0));
  assert!(theirs.iter().all(|bits| !ours.contains(bits)));
}

#[test]
fn the_kinds_table_is_in_kind_order_and_each_wide_shape_names_one_kind() {
  use crate::kinds::{Kind, Wide, KINDS};
  for (at, row) in KINDS.iter().enumerate() {
    assert_eq!(row.kind as usize, at, "{} sits at {at}", row.name);
    assert_eq!(Kind::named(row.name), Some(row.kind));
    match row.shape {
      Some(shape) => {
        assert_eq!(
          Kind::wide_of(shape).map(Wide::kind),
          Some(row.kind),
          "{}",
          row.name
        );
        assert_eq!(Kind::wide_named(row.name).map(Wide::kind), Some(row.kind));
        assert_eq!(row.bytes, 16);
      }
      None => assert_eq!(Kind::wide_named(row.name), None),
    }
  }
  assert_eq!(
    Kind::wide_of(crate::kinds::layout::Layout::DEFAULT.shape),
    None
  );
}

#[test]
fn the_wide_kinds_word_their_refusals_for_their_users() {
  use crate::error::FlakeError;
  use crate::kinds::Kind;
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  let past = FlakeError::TimestampOverflow {
    delta: 1 << 42,
    bits: 48,
    unit_ms: 1,
  };
  for (kind, maker, per_ms) in [
    (Kind::Uuidv7, "uuidv7()", 32_768),
    (Kind::Flake128, "Flake128", 65_536),
  ] {
    let err = kind.reworded(overflow.clone(), true);
    assert_eq!(
      (err.code(), err.wait_ms()),
      ("ERR_FLAKE_SEQUENCE_OVERFLOW", Some(1))
    );
    let text = err.to_string();
    assert!(
      text.starts_with(&format!("{maker}: all {per_ms} ids")),
      "{text}"
    );
    assert!(!text.contains("callback"), "{text}");
    let err = kind.reworded(past.clone(), true);
    assert_eq!(err.code(), "ERR_FLAKE_TIMESTAMP_OVERFLOW");
    let text = err.to_string();
    assert!(
      text.contains(&format!(
        "reads {} ms since 1970, past {}",
        1u64 << 42,
        (1u64 << 42) - 1
      )),
      "{text}"
    );
    assert!(
      text.contains("42 bits of ms") && !text.contains("epoch"),
      "{text}"
    );
  }
  // FlakeId keeps flake-idgen's words.
  assert_eq!(Kind::FlakeId.reworded(overflow.clone(), true), overflow);
  assert_eq!(Kind::FlakeId.reworded(past.clone(), false), past);
}

/// A kind is its row: found by its name and its shape, and every function of its row agrees with
/// the others (made, written, parsed, read back, split into parts by the row's names), so no
/// kind's behaviour can live outside `KINDS`.
#[test]
fn every_wide_kind_is_its_row_and_its_functions_round_trip() {
  use crate::input::Input;
  use crate::kinds::{Kind, PartValue, KINDS, WIDE};
  let wide: Vec<_> = KINDS.iter().filter(|row| row.wide.is_some()).collect();
  assert_eq!(WIDE.len(), wide.len());
  for (kind, row) in WIDE.iter().zip(wide) {
    assert!(std::ptr::eq(kind.row(), row), "{}", row.name);
    assert_eq!(row.kind.wide(), Some(*kind));
    assert_eq!(Kind::wide_named(row.name), Some(*kind));
    let shape = row
      .shape
      .expect("a 128-bit kind is made from a 64-bit shape");
    assert_eq!(Kind::wide_of(shape), Some(*kind), "{}", row.name);
    assert_eq!(row.bytes, 16, "{}", row.name);
    // 2026-11-27 in ms, and the 5th id of that ms.
    let (ms, sequence, worker, random) = (1_795_737_600_000u64, 5u64, 0xa1b2_c3d4_e5f6, !0u64);
    let id = kind.make(ms << shape.sequence_bits | sequence, worker, random);
    assert!(kind.holds(&id), "{}", row.name);
    let text = kind.text(&id);
    let text = std::str::from_utf8(text.as_bytes()).expect("ASCII");
    assert_eq!(kind.parse(text), Some(id), "{} {text}", row.name);
    // Its text has its form and no other kind's: the command's decompose tells them apart so.
    for other in WIDE {
      assert_eq!(
        other.has_form(text),
        other == *kind,
        "{} on {text}",
        other.row().name
      );
    }
    assert_eq!(kind.read(&Input::String(text.into()), None), Ok(id));
    assert_eq!(kind.read(&Input::Bytes(16), Some(&id)), Ok(id));
    let parts = kind.parts(&id);
    assert_eq!(parts.timestamp, ms, "{}", row.name);
    assert_eq!(row.parts.len(), parts.values.len(), "{}", row.name);
    for (&name, value) in row.parts.iter().zip(parts.values) {
      let expected = match name {
        "sequence" => PartValue::Number(sequence),
        "worker" => PartValue::Number(worker),
        "random" => PartValue::BigInt(random >> (64 - row.random_bits)),
        other => panic!("{}: no test for a part named {other}", row.name),
      };
      assert_eq!(value, expected, "{} {name}", row.name);
    }
    // Only what the row says its ids carry goes into them.
    assert_eq!(
      kind.make(ms << shape.sequence_bits, 0, 0) != kind.make(ms << shape.sequence_bits, 1, 0),
      row.worker.is_some(),
      "{}: worker",
      row.name
    );
    assert_eq!(
      kind.make(ms << shape.sequence_bits, 0, 0) != kind.make(ms << shape.sequence_bits, 0, !0),
      row.random_bits > 0,
      "{}: random",
      row.name
    );
  }
}

/// A text of a 128-bit kind's form is that kind's whatever its value, so that its reader says
/// what is wrong with it; a text of none is a 64-bit id's, or nothing.
#[test]
fn a_text_of_a_kinds_form_is_that_kinds_whatever_its_value() {
  use crate::kinds::{Kind, WIDE};
  let kind_of = |text: &str| -> Option<&str> {
    let kinds: Vec<_> = WIDE.iter().filter(|kind| kind.has_form(text)).collect();
    assert!(
      kinds.len() <= 1,
      "{text}: the form of {} kinds",
      kinds.len()
    );
    kinds.first().map(|kind| kind.row().name)
  };
  let flake = Kind::Flake128.row().name;
  let uuid = Kind::Uuidv7.row().name;
  for (text, kind) in [
    // Version 4, variant 110: a UUID's form, not a UUIDv7.
    ("017f22e2-79b0-4cc3-98c4-dc0c0c07398f", Some(uuid)),
    ("017F22E2-79B0-7CC3-C8C4-DC0C0C07398F", Some(uuid)),
    ("017f22e2-79b0-7cc3-98c4-dc0c0c07398", None),
    ("017f22e279b07cc398c4dc0c0c07398f", None),
    (" 017f22e2-79b0-7cc3-98c4-dc0c0c07398f", None),
    // Past 2^128 in base 62, and 0x with 32 hex digits of any value; spaces as the reader takes.
    ("zzzzzzzzzzzzzzzzzzzzzz", Some(flake)),
    ("0X0000000000000000000000000000000f", Some(flake)),
    (" 0xffffffffffffffffffffffffffffffff\t", Some(flake)),
    // 22 characters after 0x are hex's prefix and too few digits.
    ("0x12345678901234567890", None),
    ("0x123456789012345678901234567890123", None),
    ("zzzzzzzzzzzzzzzzzzzzz", None),
    ("zzzzzzzzzzzzzzzzzzzzz-", None),
    ("12345678901234567890", None),
    ("", None),
  ] {
    assert_eq!(kind_of(text), kind, "{text:?}");
  }
}

/// The presets are their rows: found by name, in `Preset`'s order, each shape a valid one.
#[test]
fn every_preset_is_its_row() {
  use crate::kinds::layout::{Layout, Preset, PRESETS};
  assert_eq!(Preset::ALL.len(), PRESETS.len());
  for (at, row) in PRESETS.iter().enumerate() {
    assert_eq!(Preset::ALL[at], row.preset);
    assert_eq!(row.preset.index(), at);
    assert_eq!(Preset::from_name(row.name), Some(row.preset));
    assert_eq!(row.preset.shape().check(), Ok(row.shape));
    let layout = Layout::preset(row.preset);
    assert_eq!((layout.name(), layout.epoch), (row.name, row.epoch));
  }
}
