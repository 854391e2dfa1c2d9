//! The half of a `FlakeId` that is not on the per-id path: batches and statistics, as a
//! napi-rs class (its ~400 ns per call is nothing next to a batch).

use std::ptr;

use napi::bindgen_prelude::{AsyncTask, Buffer, BufferSlice, ToNapiValue, Unknown};
use napi::{sys, Env, JsValue, Result, Status, Task};
use napi_derive::napi;

use super::error::{error_value, thrown, Failure};
use super::hot::clock_reading;
use super::input::describe;
use crate::batch::{self, Waited};
use crate::clock;
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::layout::MAX_SEQUENCE;

/// Batches and statistics of one `FlakeId`.
#[napi]
pub struct GeneratorHandle {
  generator: Generator,
}

/// The counters of one `FlakeId`.
#[napi(object)]
pub struct FlakeStats {
  /// Ids issued.
  pub ids: f64,
  /// Calls that found every id of the clock's millisecond used (and threw, waited or borrowed).
  pub overflows: f64,
  /// Calls that found the clock behind an earlier reading (and threw, waited or borrowed).
  pub clock_backwards: f64,
  /// Calls that waited for the clock.
  pub waits: f64,
}

impl GeneratorHandle {
  pub(crate) fn new(generator: Generator) -> Self {
    Self { generator }
  }
}

#[napi]
impl GeneratorHandle {
  /// `count` ascending ids in one Buffer, synchronously: a full millisecond waits (spinning)
  /// for the next; anything else throws as `next()` does. With `clock`, that function is the
  /// clock, read once a millisecond and again while waiting, for at most 2 ms of real time
  /// past the wait (a clock that stands still cannot be waited for).
  #[napi(ts_args_type = "count: unknown, clock?: () => number")]
  pub fn batch(&self, env: Env, count: Unknown, clock: Option<Unknown>) -> Result<Buffer> {
    let count = batch_count(&env, count)?;
    let mut out = vec![0; count * 8];
    let filled = match clock {
      None => batch::fill(
        &self.generator,
        &mut out,
        || Ok::<_, Failure>(clock::system_now_ms()),
        batch::system_clock_waiter(false),
      ),
      Some(clock) => {
        let read = || unsafe { call_clock(&env, clock.raw()) };
        batch::fill(&self.generator, &mut out, read, |err, now| match err {
          FlakeError::SequenceOverflow { wait_ms } => {
            let give_up = clock::system_now_ms() + wait_ms + 2;
            while read()? < now + wait_ms {
              if clock::system_now_ms() > give_up {
                return Err(err.clone().into());
              }
              std::hint::spin_loop();
            }
            Ok(Waited::Yes)
          }
          _ => Err(err.clone().into()),
        })
      }
    };
    filled.map_err(|failure| failure.into_napi(&env))?;
    self.generator.stats().add_ids(count as u64);
    Ok(out.into())
  }

  /// `count` ascending ids in one Buffer, made on a thread of the libuv pool, which waits for
  /// the clock both past a full millisecond and through a step back. Resolves with the Buffer,
  /// or with the error (for the JS layer to throw) when waiting cannot help.
  #[napi(
    ts_args_type = "count: unknown",
    ts_return_type = "Promise<Buffer | Error>"
  )]
  pub fn batch_async(&self, env: Env, count: Unknown) -> Result<AsyncTask<BatchTask>> {
    let count = batch_count(&env, count)?;
    Ok(AsyncTask::new(BatchTask {
      generator: self.generator.clone(),
      count,
    }))
  }

  /// For `next(cb)` on the system clock: up to `max` (at most `out.length / 8`) ids of one
  /// millisecond, big-endian into `out`. Returns how many, or minus the ms to wait when the
  /// clock must move on first.
  #[napi]
  pub fn try_fill_run(&self, env: Env, mut out: BufferSlice, max: u32) -> Result<f64> {
    let max = max
      .min(u32::from(MAX_SEQUENCE) + 1)
      .min((out.len() / 8) as u32) as u16;
    if max == 0 {
      return Ok(0.0);
    }
    let stats = self.generator.stats();
    match self.generator.take_by(|| Ok(clock::system_now_ms()), max) {
      Ok(ids) => {
        stats.issued(&ids);
        stats.answered();
        ids.write_be(&mut out);
        Ok(f64::from(ids.count))
      }
      Err(err) => match err.wait_ms() {
        Some(ms) => {
          stats.waiting(&err);
          Ok(-(ms as f64))
        }
        None => Err(thrown(&env, err)),
      },
    }
  }

  /// Validates a batch size (an integer from 1 to 2^24) and returns it.
  #[napi(ts_args_type = "count: unknown")]
  pub fn check_count(&self, env: Env, count: Unknown) -> Result<u32> {
    Ok(batch_count(&env, count)? as u32)
  }

  /// This instance's counters.
  #[napi]
  pub fn stats(&self) -> FlakeStats {
    let counts = self.generator.stats().counts();
    FlakeStats {
      ids: counts.ids as f64,
      overflows: counts.overflows as f64,
      clock_backwards: counts.clock_backwards as f64,
      waits: counts.waits as f64,
    }
  }
}

fn batch_count(env: &Env, count: Unknown) -> Result<usize> {
  let got = unsafe { describe(env.raw(), count.raw()) }?;
  let count = batch::count(&got).map_err(|err| thrown(env, err))?;
  Ok(count as usize)
}

/// Calls the user's clock; an exception it throws stays pending.
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
  type Output = std::result::Result<Vec<u8>, FlakeError>;
  type JsValue = Unknown<'static>;

  fn compute(&mut self) -> Result<Self::Output> {
    let mut out = vec![0; self.count * 8];
    let filled = batch::fill(
      &self.generator,
      &mut out,
      || Ok(clock::system_now_ms()),
      batch::system_clock_waiter(true),
    );
    Ok(filled.map(|()| out))
  }

  fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
    let value = match output {
      Ok(out) => {
        // Here, on the JS thread, which alone adds to `ids`.
        self.generator.stats().add_ids(self.count as u64);
        unsafe { Buffer::to_napi_value(env.raw(), out.into()) }?
      }
      Err(err) => unsafe { error_value(env.raw(), &err) },
    };
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
  }
}
