//! The per-id path of 128-bit ids: as `id_functions`, raw N-API functions that serve the
//! generator whose call fields JS wrote into the scratch, one set per thread for every 128-bit
//! kind. Each takes an id of the generator's 64-bit layout (shared by the host's processes),
//! and the kind that layout makes (a UUIDv7, or a flake of the call's worker id) makes the
//! 128-bit id of it, by the system clock:
//! - `issueWide()` writes it into the scratch (`SCRATCH_WIDE_ID`);
//! - `issueWideText()` returns its text instead (a UUID's canonical form, a flake's base 62);
//!
//! and `issueWideAt(now)`, `issueWideTextAt(now)` the same by `now`, a reading of the
//! generator's own clock.
//!
//! Unlike `issue()`, none throws when the host's ids of a millisecond are used up: on the
//! system clock it spins to the next millisecond (under one), as `uuid`'s `v7()` and
//! synchronous batches never fail for that. A clock of the user's may never move, so with one
//! it throws, as `next()` does. On the system clock, a clock behind the shared state (another
//! process's clock ahead) goes on from the state's time (`Generator::counting_on`); a clock of
//! the user's that steps back further than borrowing covers throws: it may last for hours.

use std::ffi::CStr;
use std::ptr;

use napi::sys;

use super::calls::{arguments, latin1, thread_of, thrown, with_generator, Callback};
use super::thread::Thread;
use crate::batch;
use crate::clock;
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::js::values::error::throw_unusable;
use crate::js::values::input::clock_reading;
use crate::kinds::{each_wide, Wide, WIDE};

/// Whether a call writes the id into the scratch or returns its text.
type Form = bool;
const BYTES: Form = false;
const TEXT: Form = true;

/// The 128-bit id functions, by name.
pub(crate) const WIDE_FUNCTIONS: [(&CStr, Callback); 4] = [
  (c"issueWide", by_system_clock::<BYTES>),
  (c"issueWideText", by_system_clock::<TEXT>),
  (c"issueWideAt", by_reading::<BYTES>),
  (c"issueWideTextAt", by_reading::<TEXT>),
];

/// A 128-bit id by the system clock, as `FORM`.
///
/// # Safety
/// Called by N-API only, as the callback of a function made from `WIDE_FUNCTIONS`.
unsafe extern "C" fn by_system_clock<const FORM: Form>(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let Some(thread) = (unsafe { thread_of(env, info) }) else {
    return unsafe { throw_unusable(env) };
  };
  let issued = with_generator(thread, |generator, _| {
    of_its_kind(&generator.counting_on(), Waiting)
  });
  unsafe { answer::<FORM>(env, thread, issued.flatten(), false) }
}

/// A 128-bit id by the reading passed, as `FORM`.
///
/// # Safety
/// As `by_system_clock`.
unsafe extern "C" fn by_reading<const FORM: Form>(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let Some((thread, Some(now))) = (unsafe { arguments(env, info) }) else {
    return unsafe { throw_unusable(env) };
  };
  let now_ms = match unsafe { clock_reading(env, now) } {
    Ok(now_ms) => now_ms,
    Err(err) => return unsafe { thrown(env, &err) },
  };
  let issued = with_generator(thread, |generator, _| of_its_kind(generator, At(now_ms)));
  unsafe { answer::<FORM>(env, thread, issued.flatten(), true) }
}

/// How a call takes its id from the generator.
trait Take {
  fn take(&self, generator: &Generator) -> Result<Ids, FlakeError>;
}

/// By the system clock, spinning past a millisecond whose ids are used up (`take_waiting`).
struct Waiting;

impl Take for Waiting {
  #[inline(always)]
  fn take(&self, generator: &Generator) -> Result<Ids, FlakeError> {
    take_waiting(generator)
  }
}

/// By a reading of the generator's own clock, ms since 1970.
struct At(u64);

impl Take for At {
  #[inline(always)]
  fn take(&self, generator: &Generator) -> Result<Ids, FlakeError> {
    generator.take(self.0, 1)
  }
}

/// The 128-bit kind `generator`'s layout makes, with what `take` took from it; `None` for a
/// layout no kind is made from (only a caller other than native.js writes such fields).
///
/// One `take` per kind (`each_wide!`; a `Take`, always inlined, where a closure was not in
/// two places), each after a comparison with the kind's own shape, a constant: the shape's
/// bits are then constants in the take, which costs a fifth less than one over bits read from
/// the generator (11 ns of ~55 a call here, side by side).
#[inline(always)]
fn of_its_kind(generator: &Generator, take: impl Take) -> Option<(Wide, Result<Ids, FlakeError>)> {
  let kind = WIDE
    .into_iter()
    .find(|kind| kind.shape() == generator.shape())?;
  each_wide!(
    kind,
    |AT| {
      let kind = kind.at::<AT>();
      (kind.shape() == generator.shape()).then(|| (kind, take.take(generator)))
    },
    None
  )
}

/// Makes the 128-bit id of `issued`, of its kind, and writes it into the scratch or returns its
/// text; or throws, in the kind's words (`own_clock`: the reading was the `clock` option's).
///
/// # Safety
/// `env` must be the env of the current call, and `thread` its thread.
#[inline(always)]
unsafe fn answer<const FORM: Form>(
  env: sys::napi_env,
  thread: &Thread,
  issued: Option<(Wide, Result<Ids, FlakeError>)>,
  own_clock: bool,
) -> sys::napi_value {
  match issued {
    Some((kind, Ok(Ids { first, .. }))) => {
      each_wide!(
        kind,
        |AT| unsafe { made::<AT, FORM>(env, thread, kind, first) },
        unsafe { throw_unusable(env) }
      )
    }
    Some((kind, Err(err))) => unsafe { thrown(env, &kind.reworded(err, own_clock)) },
    None => unsafe { throw_unusable(env) },
  }
}

/// Makes the 128-bit id of `kind` from `first`, and writes it into the scratch or returns its
/// text; or throws. Compiled once per kind, its place `AT` in `WIDE` (see `each_wide!`).
///
/// # Safety
/// As `answer`.
#[inline(always)]
unsafe fn made<const AT: usize, const FORM: Form>(
  env: sys::napi_env,
  thread: &Thread,
  kind: Wide,
  first: u64,
) -> sys::napi_value {
  let kind = kind.at::<AT>();
  // Only what the kind's ids carry is read: a flake's worker id, a UUIDv7's random bits.
  let row = kind.row();
  let worker = if row.worker.is_some() {
    thread.scratch.worker()
  } else {
    Some(0)
  };
  let Some(worker) = worker else {
    return unsafe { throw_unusable(env) };
  };
  let random = if row.random_bits > 0 {
    thread.random.borrow_mut().next_u64()
  } else {
    Ok(0)
  };
  let random = match random {
    Ok(random) => random,
    Err(err) => return unsafe { thrown(env, &err) },
  };
  let id = kind.make(first, worker, random);
  if FORM == TEXT {
    return unsafe { latin1(env, kind.text(&id).as_bytes()) };
  }
  thread.scratch.write_wide(&id);
  ptr::null_mut()
}

/// One id by the system clock, spinning past a millisecond whose ids are used up (see above).
#[inline(always)]
fn take_waiting(generator: &Generator) -> Result<Ids, FlakeError> {
  match generator.take_by(|| Ok(clock::system_now_ms()), 1) {
    Err(FlakeError::SequenceOverflow { .. }) => spin(generator),
    taken_or_final => taken_or_final,
  }
}

#[cold]
#[inline(never)]
fn spin(generator: &Generator) -> Result<Ids, FlakeError> {
  let mut wait = batch::system_clock_waiter::<FlakeError>(generator.unit_ms());
  loop {
    let now = clock::system_now_ms();
    match generator.take(now, 1) {
      // Waited or not (a stale reading), the next turn reads the clock again.
      Err(err) => _ = wait(&err, now)?,
      taken => return taken,
    }
  }
}
