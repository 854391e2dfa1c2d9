//! Batches: many ids in one Buffer. Not on the per-id path, so plain napi-rs functions (their
//! ~150 ns per call is nothing next to a batch). Each batch reports what it met, for
//! `index.js` to count (instances of one configuration share their generator).

use std::ptr;

use napi::bindgen_prelude::{AsyncTask, Buffer, Object, Unknown};
use napi::{sys, Env, JsValue, Result, Status, Task};
use napi_derive::napi;

use super::error::{error_value, thrown, Failure};
use super::input::{clock_reading, describe};
use super::thread::Thread;
use crate::batch;
use crate::clock;
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::stats::Counts;

/// `count` ascending ids in one Buffer from the generator in `slot`, synchronously: a full
/// millisecond waits (spinning) for the next; anything else fails as `next()` does. With
/// `clock`, that function is the clock, read once a millisecond and again while waiting, for
/// at most 2 ms of real time past the wait (a clock that stands still cannot be waited for).
/// Returns the outcome (see `outcome`); throws what `clock` throws.
#[napi(
  ts_args_type = "slot: number, count: unknown, clock?: () => number",
  ts_return_type = "{ ids?: Buffer; error?: Error; overflows: number; clockBackwards: number; waits: number }"
)]
pub fn batch(
  env: Env,
  slot: u32,
  count: Unknown,
  clock: Option<Unknown>,
) -> Result<Object<'static>> {
  // Cloned out of the slots: the user's clock, called while filling, may make generators.
  let generator = generator(&env, slot)?;
  let count = batch_count(&env, count)?;
  let mut out = vec![0; count * 8];
  let mut counts = Counts::default();
  let filled = match clock {
    None => batch::fill(
      &generator,
      &mut out,
      || Ok::<_, Failure>(clock::system_now_ms()),
      batch::system_clock_waiter(false),
      &mut counts,
    ),
    Some(clock) => {
      let read = || unsafe { call_clock(&env, clock.raw()) };
      batch::fill(
        &generator,
        &mut out,
        read,
        batch::custom_clock_waiter(read, clock::system_now_ms),
        &mut counts,
      )
    }
  };
  let filled = match filled {
    Ok(()) => Ok(out),
    Err(Failure::Flake(err)) => Err(err),
    Err(failure) => return Err(failure.into_napi(&env)),
  };
  outcome(&env, filled, counts)
}

/// `count` ascending ids in one Buffer from the generator in `slot`, made on a thread of the
/// libuv pool, which waits for the clock both past a full millisecond and through a step back.
/// Resolves with the outcome (see `outcome`).
#[napi(
  ts_args_type = "slot: number, count: unknown",
  ts_return_type = "Promise<{ ids?: Buffer; error?: Error; overflows: number; clockBackwards: number; waits: number }>"
)]
pub fn batch_async(env: Env, slot: u32, count: Unknown) -> Result<AsyncTask<BatchTask>> {
  let generator = generator(&env, slot)?;
  let count = batch_count(&env, count)?;
  Ok(AsyncTask::new(BatchTask { generator, count }))
}

/// Validates a batch size (an integer from 1 to 2^24) and returns it.
#[napi(ts_args_type = "count: unknown")]
pub fn check_count(env: Env, count: Unknown) -> Result<u32> {
  Ok(batch_count(&env, count)? as u32)
}

/// The generator in `slot` of this thread.
fn generator(env: &Env, slot: u32) -> Result<Generator> {
  let thread = Thread::of(env)?;
  let generator = thread.slots.borrow().get(slot).cloned();
  generator
    .ok_or_else(|| napi::Error::from_reason(format!("flake-idgen-rs: no generator in slot {slot}")))
}

fn batch_count(env: &Env, count: Unknown) -> Result<usize> {
  let got = unsafe { describe(env.raw(), count.raw()) }?;
  let count = batch::count(&got).map_err(|err| thrown(env, err))?;
  Ok(count as usize)
}

/// Calls the user's clock; an exception it throws stays pending.
///
/// # Safety
/// `env` and `clock` must belong to the current call.
unsafe fn call_clock(env: &Env, clock: sys::napi_value) -> std::result::Result<u64, Failure> {
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

/// `batchAsync`'s work.
pub struct BatchTask {
  generator: Generator,
  count: usize,
}

impl Task for BatchTask {
  type Output = (std::result::Result<Vec<u8>, FlakeError>, Counts);
  type JsValue = Object<'static>;

  fn compute(&mut self) -> Result<Self::Output> {
    let mut out = vec![0; self.count * 8];
    let mut counts = Counts::default();
    let filled = batch::fill(
      &self.generator,
      &mut out,
      || Ok(clock::system_now_ms()),
      batch::system_clock_waiter(true),
      &mut counts,
    );
    Ok((filled.map(|()| out), counts))
  }

  fn resolve(&mut self, env: Env, (filled, counts): Self::Output) -> Result<Self::JsValue> {
    outcome(&env, filled, counts)
  }
}

/// What a batch returns to `index.js`: `{ ids }` (the Buffer) or `{ error }` (for it to throw),
/// with `overflows`, `clockBackwards` and `waits` met on the way (for `stats()`).
fn outcome(
  env: &Env,
  filled: std::result::Result<Vec<u8>, FlakeError>,
  counts: Counts,
) -> Result<Object<'static>> {
  let mut outcome = Object::new(env)?;
  match filled {
    Ok(out) => outcome.set("ids", Buffer::from(out))?,
    Err(err) => {
      let error = unsafe { error_value(env.raw(), &err) };
      outcome.set("error", unsafe {
        Unknown::from_raw_unchecked(env.raw(), error)
      })?
    }
  }
  outcome.set("overflows", counts.overflows as f64)?;
  outcome.set("clockBackwards", counts.clock_backwards as f64)?;
  outcome.set("waits", counts.waits as f64)?;
  Ok(outcome)
}
