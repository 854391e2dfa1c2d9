//! The protocol between the id functions and `native.js`, its counterpart: this module and that
//! one are the only places that know it.
//!
//! **The scratch.** One Buffer per thread, 24 bytes, that the id functions write into and JS
//! reads from: the first (or only) id issued, big-endian at offset 0 and again in the
//! platform's byte order at offset 8, where a `BigUint64Array` reads it as a bigint in half the
//! time a big-endian `DataView` takes. Before each call, JS writes at offset 16 (`u32`, the
//! platform's byte order) the slot of the generator it calls (see `slots`). A run of `count` ids is only its first id: the others
//! are `first + 1 ..= first + count - 1`, all of one millisecond, so adding `k` to the id's low
//! 32 bits never carries out of its 12 sequence bits.
//!
//! **The report.** What an id function returns besides the id, as one number, so that the
//! per-id path creates no object:
//! - `undefined`: one id was issued and nothing met (the usual `fill`/`tryFill` answer);
//! - `count * REPORT_UNIT + met` (≥ 0): `count` ids were issued; `met` says why they were
//!   borrowed ahead of the clock, if they were;
//! - `-(wait_ms * REPORT_UNIT + met)` (< 0): none was issued; the clock must advance
//!   `wait_ms` first, because of `met`.
//!
//! `met` is `MET_NONE`, `MET_OVERFLOW` (the millisecond's ids were used up) or
//! `MET_CLOCK_BEHIND` (the clock reads earlier than ids already issued). The constants are
//! exported, so `native.js` reads them from here rather than repeating them.

use std::ptr;

use napi::{check_status, sys, Env, Result};
use napi_derive::napi;

use crate::error::FlakeError;
use crate::generator::Ids;
use crate::sequencer::Met;

/// A report's `count` (or `wait_ms`) is scaled by this; the remainder is `met`.
#[napi]
pub const REPORT_UNIT: u32 = 4;
/// `met`: nothing; the ids are of the clock's own millisecond.
#[napi]
pub const MET_NONE: u32 = 0;
/// `met`: the clock's millisecond had no id left.
#[napi]
pub const MET_OVERFLOW: u32 = 1;
/// `met`: the clock reads earlier than ids already issued.
#[napi]
pub const MET_CLOCK_BEHIND: u32 = 2;

/// Bytes in the scratch: one id twice, then the slot.
pub(crate) const SCRATCH_BYTES: usize = 24;
/// Where the id's two forms end and the slot starts.
const SLOT_OFFSET: usize = 16;

/// The thread's scratch Buffer. Created on the native side once, so its memory never moves,
/// and held by a strong reference, so it lives as long as the thread's env does.
pub(crate) struct Scratch {
  bytes: *mut [u8; SCRATCH_BYTES],
  buffer: sys::napi_ref,
}

impl Scratch {
  /// A new scratch Buffer in `env`.
  pub fn new(env: &Env) -> Result<Self> {
    let (mut bytes, mut buffer, mut reference) =
      (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    check_status!(unsafe {
      sys::napi_create_buffer(env.raw(), SCRATCH_BYTES, &mut bytes, &mut buffer)
    })?;
    // Released with the env: the scratch lives exactly as long as the functions that write it.
    check_status!(unsafe { sys::napi_create_reference(env.raw(), buffer, 1, &mut reference) })?;
    Ok(Self {
      bytes: bytes.cast(),
      buffer: reference,
    })
  }

  /// Writes the first of `ids` (the whole run, see above).
  ///
  /// # Safety
  /// Only on the thread of the env the scratch belongs to, while that env lives.
  #[inline(always)]
  pub unsafe fn write(&self, ids: &Ids) {
    unsafe {
      self
        .bytes
        .cast::<[u8; SLOT_OFFSET]>()
        .write(encode(ids.first))
    }
  }

  /// The slot JS wrote for this call.
  #[inline(always)]
  pub fn slot(&self) -> u32 {
    // Read while the thread's env lives (the scratch is part of its instance data), on its
    // thread: the Buffer's memory is where `napi_create_buffer` put it.
    u32::from_ne_bytes(unsafe {
      self
        .bytes
        .cast::<u8>()
        .add(SLOT_OFFSET)
        .cast::<[u8; 4]>()
        .read()
    })
  }

  /// The Buffer itself, for JS to read ids from.
  pub fn buffer(&self, env: &Env) -> Result<sys::napi_value> {
    let mut buffer = ptr::null_mut();
    check_status!(unsafe { sys::napi_get_reference_value(env.raw(), self.buffer, &mut buffer) })?;
    Ok(buffer)
  }
}

/// The scratch's bytes for `id`.
#[inline(always)]
pub(crate) fn encode(id: u64) -> [u8; SLOT_OFFSET] {
  let mut bytes = [0; SLOT_OFFSET];
  bytes[..8].copy_from_slice(&id.to_be_bytes());
  bytes[8..].copy_from_slice(&id.to_ne_bytes());
  bytes
}

fn met_code(met: Option<Met>) -> u32 {
  match met {
    None => MET_NONE,
    Some(Met::Overflow) => MET_OVERFLOW,
    Some(Met::ClockBehind) => MET_CLOCK_BEHIND,
  }
}

/// The report of `ids`; `None` stands for `undefined` (one id, nothing met).
#[inline(always)]
pub(crate) fn issued(ids: &Ids) -> Option<f64> {
  (ids.count != 1 || ids.met.is_some()).then(|| issued_run(ids))
}

/// The report of `ids` for `fillRun`, which always reports its count.
#[inline(always)]
pub(crate) fn issued_run(ids: &Ids) -> f64 {
  f64::from(ids.count) * f64::from(REPORT_UNIT) + f64::from(met_code(ids.met))
}

/// The report for a refusal that waiting `wait_ms` overcomes.
pub(crate) fn waits(refusal: &FlakeError, wait_ms: u64) -> f64 {
  let met = match refusal {
    FlakeError::SequenceOverflow { .. } => MET_OVERFLOW,
    FlakeError::ClockBackwards { .. } => MET_CLOCK_BEHIND,
    _ => MET_NONE,
  };
  -(wait_ms
    .saturating_mul(u64::from(REPORT_UNIT))
    .saturating_add(u64::from(met)) as f64)
}
