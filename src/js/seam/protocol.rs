//! The protocol between the id functions and `lib/binding/native.js`, its counterpart: this module and
//! that one are the only places that know it.
//!
//! **The scratch.** One block of `SCRATCH_BYTES` per thread, in a `SharedArrayBuffer` that
//! `native.js` makes and `setup` checks: a shared buffer can never be detached (transferring
//! one throws), so the memory the native side writes stays the memory it was given for as long
//! as the reference the thread keeps on it. Every field is read and written as a relaxed atomic:
//! the buffer could be posted to another thread. The fields, by their offsets in bytes (each
//! exported, so `native.js` reads them from here), numbers in the platform's byte order unless
//! said:
//! - `SCRATCH_ID_BE` (0, `u64`) the first (or only) id issued, big-endian; `SCRATCH_ID_NE` (8,
//!   `u64`) the same id, for a `BigUint64Array` (half the time of a big-endian `DataView`). A
//!   run of `count` ids is only its first id: the others are `first + k * step` for `k` in
//!   `1..count` (`step` is the generator's, from `configure`), all of one time unit, so adding
//!   `k * step` to the id's low 32 bits never carries out of them (see `Shape::step`).
//! - `SCRATCH_SLOT` (16, `u32`) the slot of the call: which configuration, or which shared
//!   state, it issues from (see `slots`), with `SLOT_FENCED` for a leased generator on it, or
//!   `PRIVATE_SLOT` for a generator whose state is the word at `SCRATCH_PRIVATE_STATE`.
//! - `SCRATCH_SETTINGS` (20, `u32`) the generator's settings: `id | allowedFutureMs << 16`;
//!   `SCRATCH_SHAPE` (48, `u32`) its layout's bits and its `seqMask`: `Shape::pack() | seqBits
//!   << 22`, with `seqMask = 2^seqBits - 1` (see `encode_settings`); `SCRATCH_EPOCH` (24,
//!   `f64`) its epoch. Read only for a slot with `SLOT_READS_FIELDS`: a configuration's slot
//!   says them itself.
//! - `SCRATCH_PRIVATE_STATE` (32, `u64`) a private generator's state word, which JS keeps
//!   between calls (copied in before, out after): no native memory per instance, so nothing to
//!   free. `SCRATCH_CEILING` (40, `f64`) the ceiling of a private or leased (`SLOT_FENCED`)
//!   generator, ms since 1970 (`Infinity`: none; below 1, or `NaN`: a closed lease), read for
//!   those slots only: a plain generator's call neither writes nor checks one.
//!
//! - `SCRATCH_INSTANCE` (52, `u32`) the generator instance whose fields the scratch holds: a
//!   number of its own in the thread (from `configure`; never 0). The `Tally` that a
//!   synchronous call needs, so as to throw the overflow only for a unit the instance used up
//!   itself (see `sync_take`), is kept by the slot, for the instance that last took ids through
//!   it (see `instance_tally`): one store when JS switches instances, where carrying the tally
//!   itself in and out of the scratch cost a switch two loads and two stores.
//! - `SCRATCH_WORKER` (56, `f64`) a flake generator's 48-bit worker id, written with the call's
//!   fields (0 for every other generator); `SCRATCH_WIDE_ID` (64, 16 bytes) a 128-bit id (a
//!   UUIDv7 or a flake) issued, big-endian, for JS to copy into a Buffer.
//!
//! JS writes the call's fields before a call, unless they are in the scratch already (the
//! same generator as the call before). `readScratch` reads them back as the id functions do,
//! for the test that both sides agree on the layout.
//!
//! **The report.** What an id function returns besides the id, as one number, so that the
//! per-id path creates no object:
//! - `undefined`: one id was issued and nothing met (the usual `issue`/`tryIssue` answer);
//! - `count * REPORT_UNIT + met` (≥ 0): `count` ids were issued; `met` says why they were
//!   borrowed ahead of the clock, or waited for, if they were;
//! - `-(wait_ms * REPORT_UNIT + met)` (< 0): none was issued; the clock must advance
//!   `wait_ms` first, because of `met`.
//!
//! `met` is `MET_NONE`, `MET_OVERFLOW` (the millisecond's ids were used up),
//! `MET_CLOCK_BEHIND` (the clock reads earlier than ids already issued) or `MET_WAITED` (the
//! millisecond's ids were used up by other generators, and `issue` waited for the next one:
//! the report of one id then says so too). The constants are exported, so `native.js` reads
//! them from here rather than repeating them.
//!
//! **The WebAssembly build's plain exports** (`wasm_exports`) answer in a number only: a
//! report as above, but `PLAIN_ISSUED_ONE` for `undefined`, and `PLAIN_REFUSED` when nothing
//! was issued, after which the thread's `refusal()` throws why.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use napi::{check_status, sys, Env, Error, Result, Status};
use napi_derive::napi;

use crate::error::FlakeError;
use crate::generator::{Ids, Settings, CLOSED};
use crate::js::values::input::typed_array;
use crate::kinds::layout::Shape;
use crate::number::{whole, MAX_SAFE_INTEGER};
use crate::sequencer::{Met, Sequencer};

/// Real ms a promise's wait for the system clock goes on past the time the clock needed, before
/// it is given up on (lib/generator/wait.js): the sync calls' grace, `clock::STALL_GRACE_MS`.
#[napi]
pub const STALL_GRACE_MS: u32 = crate::clock::STALL_GRACE_MS as u32;
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
/// `met`: the clock's millisecond had no id left, taken by other generators; the call waited
/// for the next (only a synchronous call by the system clock waits: see `sync_take`).
#[napi]
pub const MET_WAITED: u32 = 3;

/// A plain export's answer (see above) for one id issued and nothing met.
#[napi]
pub const PLAIN_ISSUED_ONE: u32 = 0;
/// A plain export's answer (see above) for a call that issued nothing.
#[napi]
pub const PLAIN_REFUSED: i32 = -1;

/// Byte offset in the scratch of the first id issued: a `u64`, big-endian.
#[napi]
pub const SCRATCH_ID_BE: u32 = 0;
/// Byte offset in the scratch of the first id issued again: a `u64` in the platform's order.
#[napi]
pub const SCRATCH_ID_NE: u32 = 8;
/// Byte offset in the scratch of the call's slot: a `u32`.
#[napi]
pub const SCRATCH_SLOT: u32 = 16;
/// Byte offset in the scratch of the call's packed settings (id, `allowedFutureMs`): a `u32`.
#[napi]
pub const SCRATCH_SETTINGS: u32 = 20;
/// Byte offset in the scratch of the call's epoch, in ms since 1970: an `f64`.
#[napi]
pub const SCRATCH_EPOCH: u32 = 24;
/// Byte offset in the scratch of a private generator's state word: a `u64`.
#[napi]
pub const SCRATCH_PRIVATE_STATE: u32 = 32;
/// Byte offset in the scratch of a private or leased generator's ceiling, in ms since 1970: an
/// `f64`.
#[napi]
pub const SCRATCH_CEILING: u32 = 40;
/// Byte offset in the scratch of the call's packed layout bits and `seqMask`: a `u32`.
#[napi]
pub const SCRATCH_SHAPE: u32 = 48;
/// Byte offset in the scratch of the call's instance (see `instance_tally`): a `u32`.
#[napi]
pub const SCRATCH_INSTANCE: u32 = 52;
/// Byte offset in the scratch of the call's flake worker id: an `f64`.
#[napi]
pub const SCRATCH_WORKER: u32 = 56;
/// Byte offset in the scratch of a 128-bit id issued: 16 bytes, big-endian.
#[napi]
pub const SCRATCH_WIDE_ID: u32 = 64;
/// Bytes in the scratch.
#[napi]
pub const SCRATCH_BYTES: u32 = SCRATCH_WIDE_ID + 16;

// The fields in order, each aligned to its size (`Scratch::new` checks the block is 8-aligned)
// as the atomics that read it require, none overlapping the next, the last in bounds.
const _: () = {
  let fields = [
    (SCRATCH_ID_BE, 8),
    (SCRATCH_ID_NE, 8),
    (SCRATCH_SLOT, 4),
    (SCRATCH_SETTINGS, 4),
    (SCRATCH_EPOCH, 8),
    (SCRATCH_PRIVATE_STATE, 8),
    (SCRATCH_CEILING, 8),
    (SCRATCH_SHAPE, 4),
    (SCRATCH_INSTANCE, 4),
    (SCRATCH_WORKER, 8),
    (SCRATCH_WIDE_ID, 16),
  ];
  let mut end = 0;
  let mut i = 0;
  while i < fields.len() {
    let (offset, size): (u32, u32) = fields[i];
    assert!(offset >= end && offset.is_multiple_of(size));
    end = offset + size;
    i += 1;
  }
  assert!(end <= SCRATCH_BYTES);
};

/// The slot of a call whose generator's state is the scratch's private word.
#[napi]
pub const PRIVATE_SLOT: u32 = u32::MAX;
/// Set in the slots whose calls must write their settings too (see `slots`): private ones, and
/// those of configurations past the first 4,096 of a thread.
#[napi]
pub const SLOT_READS_FIELDS: u32 = 1 << 30;
/// Set in the slot of a leased generator on a shared state: its calls write the lease's
/// ceiling into `SCRATCH_CEILING` too, and issue nothing past it. The other generators of the
/// state (given the same id, leased from other namespaces) share its word, not its ceiling.
/// Private slots have it too (`PRIVATE_SLOT` has every bit): their ceiling is read as well.
#[napi]
pub const SLOT_FENCED: u32 = 1 << 29;

const ALLOWED_SHIFT: u32 = 16;
const SEQ_BITS_SHIFT: u32 = 22;

/// The thread's scratch: the memory of a `SharedArrayBuffer`, held by a strong reference for as
/// long as the thread's env lives.
pub(crate) struct Scratch {
  bytes: *mut u8,
  /// The strong reference that keeps the memory alive; read only to share the view.
  view: sys::napi_ref,
}

impl Scratch {
  /// The scratch `view` (a `Uint8Array` of `SCRATCH_BYTES` over the whole of a
  /// `SharedArrayBuffer`), checked, and kept alive with the env.
  ///
  /// # Safety
  /// `env` and `view` must belong to the current call.
  pub unsafe fn new(env: &Env, view: sys::napi_value) -> Result<Self> {
    #[cfg_attr(target_family = "wasm", allow(unused_variables))]
    let data = unsafe { Self::check(env, view) }?;
    // The WebAssembly build cannot write into a JS buffer: the runtime hands it a copy of one
    // in the module's memory. Its scratch is a block of that memory instead, which JS reads
    // through a Buffer over it (a view, not a copy), in place of the one it gave.
    #[cfg(target_family = "wasm")]
    let (data, view) = unsafe { module_scratch(env) }?;
    let mut reference = ptr::null_mut();
    check_status!(unsafe { sys::napi_create_reference(env.raw(), view, 1, &mut reference) })?;
    Ok(Self {
      bytes: data.cast(),
      view: reference,
    })
  }

  /// The memory of `view` if it is a scratch `new` takes, or the error that says what is.
  ///
  /// # Safety
  /// As `new`.
  pub unsafe fn check(env: &Env, view: sys::napi_value) -> Result<*mut c_void> {
    let array = unsafe { typed_array(env.raw(), view) };
    // A plain ArrayBuffer could be detached under the id functions' feet; a typed array whose
    // buffer is no ArrayBuffer is over a SharedArrayBuffer, which cannot be.
    let mut detachable = true;
    let shared = array.as_ref().is_ok_and(|array| {
      let status = unsafe { sys::napi_is_arraybuffer(env.raw(), array.buffer, &mut detachable) };
      status == sys::Status::napi_ok && !detachable
    });
    let data = match array {
      Ok(array)
        if shared
          && array.kind == sys::TypedarrayType::uint8_array
          && array.length == SCRATCH_BYTES as usize
          && array.offset == 0
          && !array.data.is_null()
          && (array.data as usize).is_multiple_of(8) =>
      {
        array.data
      }
      _ => {
        return Err(Error::new(
          Status::InvalidArg,
          "flake-idgen-rs: the scratch must be a Uint8Array over a whole SharedArrayBuffer of SCRATCH_BYTES",
        ))
      }
    };
    Ok(data)
  }

  /// The scratch's `Uint8Array`, for another copy of native.js in the thread to share (in the
  /// WebAssembly build, a Buffer over the module's memory, at an offset into it).
  pub fn view(&self, env: &Env) -> Result<sys::napi_value> {
    let mut view = ptr::null_mut();
    check_status!(unsafe { sys::napi_get_reference_value(env.raw(), self.view, &mut view) })?;
    Ok(view)
  }

  #[inline(always)]
  fn word(&self, offset: u32) -> &AtomicU64 {
    // In bounds and 8-aligned (checked by `new`), alive while the reference is.
    unsafe { AtomicU64::from_ptr(self.bytes.add(offset as usize).cast()) }
  }

  #[inline(always)]
  fn half(&self, offset: u32) -> &AtomicU32 {
    unsafe { AtomicU32::from_ptr(self.bytes.add(offset as usize).cast()) }
  }

  /// Writes the first of `ids` (the whole run, see above).
  #[inline(always)]
  pub fn write(&self, ids: &Ids) {
    self
      .word(SCRATCH_ID_BE)
      .store(u64::from_ne_bytes(ids.first.to_be_bytes()), Relaxed);
    self.word(SCRATCH_ID_NE).store(ids.first, Relaxed);
  }

  /// The instance JS wrote for this call.
  #[inline(always)]
  pub fn instance(&self) -> u32 {
    self.half(SCRATCH_INSTANCE).load(Relaxed)
  }

  /// Writes a 128-bit id, big-endian.
  #[inline(always)]
  pub fn write_wide(&self, id: &[u8; 16]) {
    for (half, bytes) in id.chunks_exact(8).enumerate() {
      let bytes = bytes.try_into().expect("8 bytes");
      self
        .word(SCRATCH_WIDE_ID + 8 * half as u32)
        .store(u64::from_ne_bytes(bytes), Relaxed);
    }
  }

  /// The worker id JS wrote for this call, if it is one (a whole number, at most the largest a
  /// kind's ids carry).
  #[inline(always)]
  pub fn worker(&self) -> Option<u64> {
    whole(f64::from_bits(self.word(SCRATCH_WORKER).load(Relaxed)))
      .filter(|&worker| worker <= crate::kinds::MAX_WORKER)
  }

  /// The slot JS wrote for this call.
  #[inline(always)]
  pub fn slot(&self) -> u32 {
    self.half(SCRATCH_SLOT).load(Relaxed)
  }

  /// The settings fields JS wrote for this call: the packed settings and shape, and the
  /// epoch's bits.
  #[inline(always)]
  pub fn settings_fields(&self) -> SettingsFields {
    SettingsFields {
      packed: self.half(SCRATCH_SETTINGS).load(Relaxed),
      shape: self.half(SCRATCH_SHAPE).load(Relaxed),
      epoch: self.word(SCRATCH_EPOCH).load(Relaxed),
    }
  }

  /// The private generator's state word JS wrote for this call.
  #[inline(always)]
  pub fn private_state(&self) -> &Sequencer {
    Sequencer::from_word(self.word(SCRATCH_PRIVATE_STATE))
  }

  /// The private or leased generator's ceiling JS wrote for this call, as written (see
  /// `ceiling`).
  #[inline(always)]
  pub fn ceiling_field(&self) -> f64 {
    f64::from_bits(self.word(SCRATCH_CEILING).load(Relaxed))
  }

  /// The private or leased generator's ceiling JS wrote for this call (`u64::MAX`: none;
  /// `CLOSED`).
  #[inline(always)]
  pub fn ceiling(&self) -> u64 {
    let ceiling = self.ceiling_field();
    if ceiling >= MAX_SAFE_INTEGER {
      u64::MAX
    } else if ceiling >= 1.0 {
      ceiling as u64
    } else {
      CLOSED
    }
  }

  /// Sets the private generator's state word (see `Sequencer::set_word`).
  pub fn set_private_state(&self, word: u64) {
    self.word(SCRATCH_PRIVATE_STATE).store(word, Relaxed);
  }
}

/// A call's settings as the scratch holds them: the `u32`s at `SCRATCH_SETTINGS` and
/// `SCRATCH_SHAPE`, and the bits of the `f64` at `SCRATCH_EPOCH`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SettingsFields {
  pub packed: u32,
  pub shape: u32,
  pub epoch: u64,
}

/// `settings` as the scratch holds them: (`SCRATCH_SETTINGS`, `SCRATCH_SHAPE`, `SCRATCH_EPOCH`).
pub(crate) fn encode_settings(settings: &Settings) -> (u32, u32, f64) {
  let seq_bits = 16 - settings.seq_mask.leading_zeros();
  (
    u32::from(settings.node) | settings.allowed_future_ms << ALLOWED_SHIFT,
    settings.shape.pack() | seq_bits << SEQ_BITS_SHIFT,
    settings.epoch as f64,
  )
}

/// The settings `encode_settings` made `fields` from; `None` for anything it cannot have made
/// (only a caller other than `native.js` writes such a thing).
#[inline(always)]
pub(crate) fn decode_settings(fields: SettingsFields) -> Option<Settings> {
  let shape = Shape::unpack(fields.shape)?;
  let seq_bits = fields.shape >> SEQ_BITS_SHIFT;
  let node = fields.packed & 0xffff;
  let allowed = fields.packed >> ALLOWED_SHIFT;
  let valid = (1..=u32::from(shape.sequence_bits)).contains(&seq_bits)
    && node <= u32::from(shape.max_node())
    && u64::from(allowed) <= shape.max_allowed_future_ms();
  let epoch = whole(f64::from_bits(fields.epoch)).filter(|_| valid)?;
  Some(Settings {
    node: node as u16,
    epoch,
    seq_mask: ((1u32 << seq_bits) - 1) as u16,
    allowed_future_ms: allowed,
    shape,
  })
}

/// The scratch's first 16 bytes for `id`.
#[cfg(test)]
pub(crate) fn encode(id: u64) -> [u8; 16] {
  let (be, ne) = (SCRATCH_ID_BE as usize, SCRATCH_ID_NE as usize);
  let mut bytes = [0; 16];
  bytes[be..be + 8].copy_from_slice(&id.to_be_bytes());
  bytes[ne..ne + 8].copy_from_slice(&id.to_ne_bytes());
  bytes
}

fn met_code(met: Option<Met>) -> u32 {
  match met {
    None => MET_NONE,
    Some(Met::Overflow) => MET_OVERFLOW,
    Some(Met::ClockBehind) => MET_CLOCK_BEHIND,
    Some(Met::Waited) => MET_WAITED,
  }
}

/// The report of `ids`; `None` stands for `undefined` (one id, nothing met).
#[inline(always)]
pub(crate) fn issued(ids: &Ids) -> Option<f64> {
  (ids.count != 1 || ids.met.is_some()).then(|| issued_run(ids))
}

/// The report of `ids` for `issueRun`, which always reports its count.
#[inline(always)]
pub(crate) fn issued_run(ids: &Ids) -> f64 {
  count_report(u64::from(ids.count), ids.met)
}

/// The report of `count` ids issued, having met `met` on the way.
pub(crate) fn count_report(count: u64, met: Option<Met>) -> f64 {
  count as f64 * f64::from(REPORT_UNIT) + f64::from(met_code(met))
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

/// A scratch in the WebAssembly module's own memory: a block of `SCRATCH_BYTES` (8-aligned),
/// kept for the thread's life, and the Buffer over it that JS reads (the runtime makes a
/// Buffer of external memory a view of the module's memory). A worker thread's block is not
/// freed when the thread ends: a few bytes, and the scratch is never let go of before.
///
/// # Safety
/// `env` must belong to the current call.
#[cfg(target_family = "wasm")]
unsafe fn module_scratch(env: &Env) -> Result<(*mut c_void, sys::napi_value)> {
  let block: &'static mut [u64] =
    Box::leak(vec![0u64; SCRATCH_BYTES as usize / 8].into_boxed_slice());
  let data = block.as_mut_ptr().cast::<c_void>();
  let mut view = ptr::null_mut();
  check_status!(unsafe {
    sys::napi_create_external_buffer(
      env.raw(),
      SCRATCH_BYTES as usize,
      data,
      None,
      ptr::null_mut(),
      &mut view,
    )
  })?;
  Ok((data, view))
}

/// Makes the `len` bytes from `offset` of `view` (a Buffer of JS's) that an id function just
/// wrote seen by JS. Nothing to do natively, where it wrote into the Buffer's own memory; the
/// WebAssembly build's runtime gave it a copy in the module's memory, copied back here.
///
/// # Safety
/// `env` and `view` must belong to the current call.
#[inline(always)]
pub(crate) unsafe fn written(
  env: &Env,
  view: sys::napi_value,
  offset: usize,
  len: usize,
) -> Result<()> {
  #[cfg(target_family = "wasm")]
  {
    extern "C" {
      /// emnapi's: copies between a JS buffer and the module's copy of it (`js_to_wasm`: to
      /// the copy).
      fn emnapi_sync_memory(
        env: sys::napi_env,
        js_to_wasm: bool,
        arraybuffer_or_view: *mut sys::napi_value,
        offset: usize,
        len: usize,
      ) -> sys::napi_status;
    }
    // Through a view of just those bytes: emnapi applies `offset` to the JS side only.
    let (mut kind, mut length, mut buffer, mut start) = (0, 0, ptr::null_mut(), 0);
    check_status!(unsafe {
      sys::napi_get_typedarray_info(
        env.raw(),
        view,
        &mut kind,
        &mut length,
        ptr::null_mut(),
        &mut buffer,
        &mut start,
      )
    })?;
    let mut part = ptr::null_mut();
    check_status!(unsafe {
      sys::napi_create_typedarray(
        env.raw(),
        sys::TypedarrayType::uint8_array,
        len,
        buffer,
        start + offset,
        &mut part,
      )
    })?;
    check_status!(unsafe { emnapi_sync_memory(env.raw(), false, &mut part, 0, len) })?;
  }
  #[cfg(not(target_family = "wasm"))]
  let _ = (env, view, offset, len);
  Ok(())
}
