//! Batches: many ids written into a Buffer that JS allocated, so its memory is V8's and the GC
//! alone frees it (a Buffer made on the native side is external, and Node frees those only
//! when the event loop turns: a synchronous loop of batches would keep every one). Not on the
//! per-id path, so plain napi-rs functions; each serves the generator the call fields in the
//! scratch describe (see `protocol`), as the id functions do.

use std::ptr;

use napi::bindgen_prelude::{Object, Unknown};
use napi::{sys, Env, JsValue, Result, Status};
use napi_derive::napi;

use crate::batch;
use crate::clock::{self, SystemClock};
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::js::seam::calls::{generator, with_generator};
use crate::js::seam::instance_tally::CallTally;
use crate::js::seam::protocol::{self, PRIVATE_SLOT};
use crate::js::seam::thread::Thread;
use crate::js::values::error::{error_value, thrown, unusable, CallError};
use crate::js::values::input::{clock_reading, describe, typed_array};
use crate::kinds::{Kind, Wide};
use crate::sequencer::Met;
use crate::sequencer::Sequencer;
use crate::stats::Counts;

/// Issues ascending ids into the whole of `ids` (a Buffer of a multiple of 8 bytes),
/// synchronously: a full millisecond waits (spinning, under a millisecond) for the next; a
/// longer wait (a state another process borrowed ahead of the clock) or anything else fails as
/// `next()` does. With `clock`, that function is the clock, read once a millisecond and again
/// while waiting, until it stands still for 2 ms of real time (such a clock cannot be waited
/// for). Returns what the batch met, with `error` if it failed; throws what `clock` throws.
#[napi(
  ts_args_type = "ids: Uint8Array, clock?: () => number",
  ts_return_type = "{ error?: Error; overflows: number; clockBackwards: number; waits: number }"
)]
pub fn issue_batch(env: Env, ids: Unknown, clock: Option<Unknown>) -> Result<Object<'static>> {
  fill(env, ids, clock, Width::Narrow, |_, out, run| {
    run.write_be(out);
    Ok(())
  })
}

/// As `issueBatch`, for 128-bit ids of the kind the generator's layout makes (a UUIDv7 or a
/// flake of the call's worker id): `ids` is a Buffer of a multiple of 16 bytes.
#[napi(
  ts_args_type = "ids: Uint8Array, clock?: () => number",
  ts_return_type = "{ error?: Error; overflows: number; clockBackwards: number; waits: number }"
)]
pub fn issue_wide_batch(env: Env, ids: Unknown, clock: Option<Unknown>) -> Result<Object<'static>> {
  let thread = Thread::of(&env)?;
  let worker = thread.scratch.worker().ok_or_else(unusable)?;
  fill(env, ids, clock, Width::Wide, |wide, out, run| {
    let kind = wide.ok_or_else(unusable)?;
    // Borrowed a run at a time: the user's clock, called between runs, may issue UUIDs.
    let mut random = thread.random.borrow_mut();
    Ok(kind.make_all(out, run.ids(), worker, || random.next_u64())?)
  })
}

/// Bytes of each id a batch writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Width {
  /// 8: 64-bit ids.
  Narrow = 8,
  /// 16: ids of a 128-bit kind, made from the generator's.
  Wide = 16,
}

/// Fills the whole of `ids` with ids written by `write_run` a run at a time (see
/// `issueBatch`), `width` bytes each; a wide batch's generator must have a layout a 128-bit
/// kind is made from, and `write_run` is told that kind (`None`: 64-bit ids).
fn fill(
  env: Env,
  ids: Unknown,
  clock: Option<Unknown>,
  width: Width,
  write_run: impl Fn(Option<Wide>, &mut [u8], &Ids) -> std::result::Result<(), CallError>,
) -> Result<Object<'static>> {
  let thread = Thread::of(&env)?;
  let width_bytes = width as usize;
  let length = unsafe { bytes(&env, ids.raw()) }?.len();
  if !length.is_multiple_of(width_bytes) {
    return Err(unusable());
  }
  let total = length / width_bytes;
  let scratch = &thread.scratch;
  let slot = scratch.slot();
  // A private state is worked on in a copy, put back whatever happens: the user's clock may
  // call other generators, whose calls write their own fields into the scratch.
  let copy = Sequencer::holding(scratch.private_state().word());
  let generator = if slot == PRIVATE_SLOT {
    let settings = thread.private_settings().ok_or_else(unusable)?;
    Generator::private(&settings, &copy, scratch.ceiling())
  } else {
    let slots = thread.slots.borrow();
    generator(scratch, &slots).ok_or_else(unusable)?.0
  };
  let instance = scratch.instance();
  let wide = match width {
    Width::Narrow => None,
    Width::Wide => Some(Kind::wide_of(generator.shape()).ok_or_else(unusable)?),
  };
  let kind = wide.map_or(Kind::FlakeId, Wide::kind);
  // 128-bit ids go on from the shared state when the system clock is behind it, as one at a
  // time does (see `Generator::counting_on`).
  let generator = match width {
    Width::Wide => generator.counting_on(),
    Width::Narrow => generator,
  };
  // The Buffer is looked up again for each run: the user's clock could have detached it.
  let write = |index: usize, run: &Ids| -> std::result::Result<(), CallError> {
    let out = unsafe { bytes(&env, ids.raw()) }?;
    if out.len() != length {
      return Err(
        napi::Error::from_reason("flake-idgen-rs: the batch Buffer changed while it was filled")
          .into(),
      );
    }
    write_run(wide, &mut out[index * width_bytes..], run)?;
    let run_bytes = run.count as usize * width_bytes;
    unsafe { protocol::written(&env, ids.raw(), index * width_bytes, run_bytes) }?;
    // The instance and slot of the call, read before the user's clock (called between runs)
    // could write another's into the scratch; a private state has no tally (see CallTally).
    CallTally::new(thread.slots.borrow().tally(slot), instance).count(run);
    Ok(())
  };
  let mut counts = Counts::default();
  let issued = match clock {
    None => batch::issue_all(
      &generator,
      total,
      || Ok::<_, CallError>(clock::system_now_ms()),
      batch::system_clock_waiter(generator.unit_ms()),
      &mut counts,
      write,
    ),
    Some(clock) => {
      let read = || unsafe { call_clock(&env, clock.raw()) };
      batch::issue_all(
        &generator,
        total,
        read,
        batch::custom_clock_waiter(read, clock::system_now_ms),
        &mut counts,
        write,
      )
    }
  };
  if slot == PRIVATE_SLOT {
    thread.scratch.private_state().set_word(copy.word());
  }
  let error = match issued {
    Ok(()) => None,
    Err(CallError::Flake(err)) => Some(kind.reworded(err, clock.is_some())),
    Err(call_error) => return Err(call_error.into_napi(&env)),
  };
  outcome(&env, error, counts)
}

/// Real ms past a millisecond's end that a slice spins for it, before it leaves the wait to the
/// event loop: a clock that stands still (or crawls) must not block a turn for longer.
const SLICE_GRACE_MS: u64 = 2;

/// Up to `max` ids into `ids` from its `start`-th id on, as many as the clock (the system's, or
/// the reading `now` of the generator's own) allows now, without waiting. Returns a report as
/// `issueRun` does (see `protocol`): how many were written, or how long to wait before any can
/// be; throws what waiting cannot cure. Its ids count as no instance's (`CallTally::count_apart`):
/// the generator's own `next()` waits out a unit a batch used up rather than throw.
#[napi(ts_args_type = "ids: Uint8Array, start: number, max: number, now?: unknown")]
pub fn issue_slice(
  env: Env,
  ids: Unknown,
  start: u32,
  max: u32,
  now: Option<Unknown>,
) -> Result<f64> {
  let thread = Thread::of(&env)?;
  let out = unsafe { bytes(&env, ids.raw()) }?;
  let (start, max) = (start as usize, max as usize);
  if max == 0 || (start + max) * 8 > out.len() {
    return Err(unusable());
  }
  let now = match now {
    Some(now) => Some(unsafe { clock_reading(env.raw(), now.raw()) }.map_err(|e| thrown(&env, e))?),
    None => None,
  };
  // No JS runs in here: the Buffer and the scratch stay as they are until it returns.
  let taken = with_generator(thread, |generator, tally| {
    take_slice(generator, max, now, |index, run| {
      run.write_be(&mut out[(start + index) * 8..]);
      tally.count_apart();
    })
  })
  .ok_or_else(unusable)?;
  match taken {
    Ok((count, met)) => {
      unsafe { protocol::written(&env, ids.raw(), start * 8, count * 8) }?;
      Ok(protocol::count_report(count as u64, met))
    }
    Err(err) => match err.wait_ms() {
      Some(ms) => Ok(protocol::waits(&err, ms)),
      None => Err(thrown(&env, err)),
    },
  }
}

/// Bytes before a member's runs (see `issueRuns`): the runs' node id and their count.
#[napi]
pub const RUNS_HEADER_BYTES: u32 = 8;
/// Bytes of each run `issueRuns` writes: a range as the members' wire sends it.
#[napi]
pub const RUN_BYTES: u32 = 16;

/// As `issueSlice`, for a member, which sends a batch as its runs (lib/wire/batch-wire.js): up to
/// `max` ids, written as their runs rather than as ids. Into `runs`: `RUNS_HEADER_BYTES` (the
/// ids' node id and the count of runs, u32 each), then `RUN_BYTES` a run, in the wire's form of
/// a range (the time in units since the epoch, u64; the first sequence and the count of ids, u32
/// each), all big-endian. A run that goes on from the one before it (one time unit, the next
/// sequence) is merged into it. Room for `max` runs: a run holds one id at least.
#[napi(ts_args_type = "runs: Uint8Array, max: number, now?: unknown")]
pub fn issue_runs(env: Env, runs: Unknown, max: u32, now: Option<Unknown>) -> Result<f64> {
  let thread = Thread::of(&env)?;
  let out = unsafe { bytes(&env, runs.raw()) }?;
  let (header, run_bytes) = (RUNS_HEADER_BYTES as usize, RUN_BYTES as usize);
  let max = max as usize;
  if max == 0 || header + max * run_bytes > out.len() {
    return Err(unusable());
  }
  let now = match now {
    Some(now) => Some(unsafe { clock_reading(env.raw(), now.raw()) }.map_err(|e| thrown(&env, e))?),
    None => None,
  };
  // The run being written: its time, first sequence and count, and where it goes.
  let mut written = 0;
  let mut node = 0;
  let mut last: Option<(u64, u64, u64)> = None;
  let taken = with_generator(thread, |generator, tally| {
    let shape = generator.shape();
    take_slice(generator, max, now, |_, run| {
      let (time, run_node, sequence) = shape.split(run.first);
      let (sequence, count) = (u64::from(sequence), u64::from(run.count));
      node = run_node;
      last = match last {
        Some((at, first, size)) if at == time && first + size == sequence => {
          Some((at, first, size + count))
        }
        _ => {
          written += 1;
          Some((time, sequence, count))
        }
      };
      if let Some((time, first, size)) = last {
        let range = &mut out[header + (written - 1) * run_bytes..][..run_bytes];
        range[..8].copy_from_slice(&time.to_be_bytes());
        range[8..12].copy_from_slice(&(first as u32).to_be_bytes());
        range[12..].copy_from_slice(&(size as u32).to_be_bytes());
      }
      tally.count_apart();
    })
  })
  .ok_or_else(unusable)?;
  out[..4].copy_from_slice(&u32::from(node).to_be_bytes());
  out[4..8].copy_from_slice(&(written as u32).to_be_bytes());
  unsafe { protocol::written(&env, runs.raw(), 0, header + written * run_bytes) }?;
  match taken {
    Ok((count, met)) => Ok(protocol::count_report(count as u64, met)),
    Err(err) => match err.wait_ms() {
      Some(ms) => Ok(protocol::waits(&err, ms)),
      None => Err(thrown(&env, err)),
    },
  }
}

/// Up to `max` ids of `generator` that the clock (the system's, or the reading `now` of the
/// generator's own) allows now, each run handed to `write` with the index of its first id:
/// how many were taken and what the first run met, or what stopped them before any was taken.
fn take_slice(
  generator: &Generator,
  max: usize,
  now: Option<u64>,
  mut write: impl FnMut(usize, &Ids),
) -> std::result::Result<(usize, Option<Met>), FlakeError> {
  let (mut issued, mut met) = (0, None);
  let mut spun = false;
  loop {
    let (count, first_met, stop) = batch::issue_available(
      max - issued,
      generator.ids_per_unit(),
      |most| match now {
        None => generator.take_by(|| Ok(clock::system_now_ms()), most),
        Some(now) => generator.take(now, most),
      },
      |index, run| write(issued + index, run),
    );
    issued += count;
    met = met.or(first_met);
    match stop {
      // One millisecond's end per slice is waited for here, spinning (less than a
      // millisecond): through the event loop, every one would cost a turn's latency, 7 % of
      // the layout's limit in `npm run bench`. The event loop still turns once a millisecond.
      // Bounded (`SLICE_GRACE_MS`): a clock stepped back or standing still is waited for
      // between turns of the event loop instead (the overflow, or the step, as reported).
      Some(FlakeError::SequenceOverflow { wait_ms: 1 }) if now.is_none() && !spun => {
        spun = true;
        let from = clock::system_now_ms();
        match clock::wait_for(&mut SystemClock::new(), from, from + 1, SLICE_GRACE_MS) {
          Ok(()) => {}
          Err(_) if issued > 0 => return Ok((issued, met)),
          Err(err @ FlakeError::ClockBackwards { .. }) => return Err(err),
          Err(_) => return Err(FlakeError::SequenceOverflow { wait_ms: 1 }),
        }
      }
      Some(err) if issued == 0 => return Err(err),
      _ => return Ok((issued, met)),
    }
  }
}

/// Validates a batch size (an integer from 1 to 2^24) and returns it.
#[napi(ts_args_type = "count: unknown")]
pub fn check_count(env: Env, count: Unknown) -> Result<u32> {
  let got = unsafe { describe(env.raw(), count.raw()) }?;
  batch::count(&got).map_err(|err| thrown(&env, err))
}

/// The bytes of `view`, a Uint8Array of a multiple of 8 bytes, at least 8.
///
/// # Safety
/// `view` must belong to the current call, and the slice not outlive it nor any JS call.
unsafe fn bytes<'a>(env: &Env, view: sys::napi_value) -> Result<&'a mut [u8]> {
  match unsafe { typed_array(env.raw(), view) } {
    Ok(array)
      if array.kind == sys::TypedarrayType::uint8_array
        && array.length >= 8
        && array.length.is_multiple_of(8)
        && !array.data.is_null() =>
    {
      Ok(unsafe { std::slice::from_raw_parts_mut(array.data.cast::<u8>(), array.length) })
    }
    _ => Err(unusable()),
  }
}

/// Calls the user's clock; an exception it throws stays pending.
///
/// # Safety
/// `env` and `clock` must belong to the current call.
unsafe fn call_clock(env: &Env, clock: sys::napi_value) -> std::result::Result<u64, CallError> {
  let (mut receiver, mut reading) = (ptr::null_mut(), ptr::null_mut());
  let called = unsafe {
    sys::napi_get_undefined(env.raw(), &mut receiver) == sys::Status::napi_ok
      && sys::napi_call_function(env.raw(), receiver, clock, 0, ptr::null(), &mut reading)
        == sys::Status::napi_ok
  };
  if !called {
    return Err(napi::Error::from_status(Status::PendingException).into());
  }
  Ok(unsafe { clock_reading(env.raw(), reading) }?)
}

/// What a batch returns to `lib/binding/native.js`: `overflows`, `clockBackwards` and `waits` met on
/// the way (for `stats()`), and `error` (for it to throw) if it failed.
fn outcome(env: &Env, error: Option<FlakeError>, counts: Counts) -> Result<Object<'static>> {
  let mut outcome = Object::new(env)?;
  if let Some(err) = error {
    let error = unsafe { error_value(env.raw(), &err) };
    outcome.set("error", unsafe {
      Unknown::from_raw_unchecked(env.raw(), error)
    })?;
  }
  outcome.set("overflows", counts.overflows as f64)?;
  outcome.set("clockBackwards", counts.clock_backwards as f64)?;
  outcome.set("waits", counts.waits as f64)?;
  Ok(outcome)
}
