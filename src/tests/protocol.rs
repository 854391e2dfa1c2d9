//! The protocol with `native.js`: the scratch's layout and the reports, as JS decodes them.

use super::{decode, private, NOW};
use crate::error::FlakeError;
use crate::generator::Ids;
use crate::input::Input;
use crate::js::seam::protocol::{
  encode, issued, issued_run, waits, MET_CLOCK_BEHIND, MET_NONE, MET_OVERFLOW, REPORT_UNIT,
};
use crate::options::RawOptions;
use crate::sequencer::Met;

const UNIT: f64 = REPORT_UNIT as f64;

fn ids(count: u32, met: Option<Met>) -> Ids {
  Ids {
    first: 0x0123_4567_89ab_cdef,
    count,
    step: 1,
    time: 0,
    met,
  }
}

#[test]
fn the_scratch_holds_the_id_big_endian_then_in_the_platform_order() {
  let bytes = encode(0x0123_4567_89ab_cdef);
  assert_eq!(bytes[..8], [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]);
  assert_eq!(
    u64::from_ne_bytes(bytes[8..].try_into().unwrap()),
    0x0123_4567_89ab_cdef
  );
}

#[test]
fn one_id_that_met_nothing_reports_nothing() {
  assert_eq!(issued(&ids(1, None)), None);
  // issueRun always reports its count.
  assert_eq!(issued_run(&ids(1, None)), UNIT + f64::from(MET_NONE));
}

#[test]
fn issued_ids_report_count_times_the_unit_plus_what_they_met() {
  assert_eq!(
    issued(&ids(1, Some(Met::Overflow))),
    Some(UNIT + f64::from(MET_OVERFLOW))
  );
  assert_eq!(
    issued(&ids(7, Some(Met::ClockBehind))),
    Some(7.0 * UNIT + f64::from(MET_CLOCK_BEHIND))
  );
  assert_eq!(issued(&ids(4096, None)), Some(4096.0 * UNIT));
  assert_eq!(
    issued_run(&ids(4096, Some(Met::Overflow))),
    4096.0 * UNIT + 1.0
  );
}

#[test]
fn a_wait_reports_minus_wait_times_the_unit_plus_why() {
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  assert_eq!(waits(&overflow, 1), -(UNIT + f64::from(MET_OVERFLOW)));
  let behind = FlakeError::ClockBackwards {
    ms: 300,
    wait_ms: 300,
  };
  assert_eq!(
    waits(&behind, 300),
    -(300.0 * UNIT + f64::from(MET_CLOCK_BEHIND))
  );
  // Never wraps to a positive report, however long the wait.
  assert!(waits(&overflow, u64::MAX) < 0.0);
}

#[test]
fn the_ids_of_a_run_are_its_first_plus_k_within_one_millisecond() {
  // JS rebuilds a run from its first id by adding k to the low 32 bits: that must never carry
  // out of the sequence bits, for any mask and any split of a millisecond into runs.
  for bits in 1..=12u32 {
    let seq_mask = (1u16 << bits) - 1;
    let generator = private(RawOptions {
      id: Input::Number(1023.0),
      seq_mask: Input::Number(f64::from(seq_mask)),
      ..RawOptions::default()
    });
    for (ms, max) in [1u32, 3, 255, 4096].into_iter().enumerate() {
      let now = NOW + ms as u64;
      let mut issued = 0;
      while let Ok(run) = generator.take(now, max) {
        let last = run.first + u64::from(run.count) - 1;
        let (delta, node, sequence) = decode(last);
        assert_eq!((delta, node), (decode(run.first).0, 1023));
        assert!(sequence <= seq_mask);
        assert_eq!(u32::from(sequence - decode(run.first).2), run.count - 1);
        // The low 32 bits, as JS adds to them, do not wrap.
        assert!((run.first & 0xffff_ffff) + u64::from(run.count) - 1 <= 0xffff_ffff);
        issued += run.count;
      }
      assert_eq!(issued, u32::from(seq_mask) + 1);
    }
  }
}
