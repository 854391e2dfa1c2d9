//! What each JS thread (the main thread or a worker: one N-API env each) holds: its shared
//! states by slot and the scratch its id functions write into. Instance data of the env, so it
//! lives exactly as long as the env, and the id functions, created with a pointer to it, never
//! outlive it.

use std::cell::{Cell, OnceCell, RefCell};
use std::ptr;

use napi::{check_status, sys, Env, Error, Result, Status};

use super::protocol::Scratch;
use super::slots::Slots;
use crate::generator::Settings;
use crate::random::Random;

pub(crate) struct Thread {
  /// Borrowed only for the length of a native call that calls no JS.
  pub slots: RefCell<Slots>,
  pub scratch: Scratch,
  /// The random bits of its UUIDv7s. Borrowed as `slots` is.
  pub random: RefCell<Random>,
  /// The last number `new_instance` gave.
  instances: Cell<u32>,
  /// What `setup` returned the first time, held for the env's life: every later copy of
  /// native.js in the thread gets it too, and so shares the scratch and the slots.
  set_up: OnceCell<sys::napi_ref>,
}

thread_local! {
  /// The env that this OS thread runs and its `Thread`: the per-id path finds its thread here
  /// for a memory read, where asking N-API (`napi_get_cb_info`) costs ~2 ns of a ~45 ns
  /// `next()`. Keyed by env, since an embedder may run several envs on one OS thread, and
  /// cleared when the env goes, so it never points at a freed `Thread`.
  static CURRENT: Cell<(sys::napi_env, *const Thread)> = const { Cell::new((ptr::null_mut(), ptr::null())) };
}

impl Thread {
  /// The env's, once `setup` made it.
  pub fn of(env: &Env) -> Result<&'static Thread> {
    let Some(thread) = env.get_instance_data::<Thread>()? else {
      return Err(Error::new(
        Status::GenericFailure,
        "flake-idgen-rs: native.js sets up each thread first",
      ));
    };
    let thread: &'static Thread = thread;
    CURRENT.set((env.raw(), ptr::from_ref(thread)));
    Ok(thread)
  }

  /// Makes the env's thread, writing into `scratch` (see `protocol`); once per env.
  pub fn setup(env: &Env, scratch: Scratch) -> Result<&'static Thread> {
    if env.get_instance_data::<Thread>()?.is_some() {
      return Err(Error::new(
        Status::GenericFailure,
        "flake-idgen-rs: this thread is set up already",
      ));
    }
    let thread = Thread {
      slots: RefCell::default(),
      scratch,
      random: RefCell::default(),
      instances: Cell::new(0),
      set_up: OnceCell::new(),
    };
    // The scratch's reference is released with the env itself.
    let raw = env.raw();
    env.set_instance_data(thread, (), move |_| {
      if CURRENT.get().0 == raw {
        CURRENT.set((ptr::null_mut(), ptr::null()));
      }
    })?;
    Self::of(env)
  }

  /// A number for a new generator instance (see `instance_tally`), never 0, which no tally
  /// counts for. After 2^32 - 1 instances the numbers start again: a tally then kept for an
  /// instance long gone counts a time unit long past, which no call of a new one is in.
  pub fn new_instance(&self) -> u32 {
    let instance = self.instances.get().checked_add(1).unwrap_or(1);
    self.instances.set(instance);
    instance
  }

  /// Keeps `object`, what `setup` returns, for the thread's later `setup` calls.
  pub fn keep(&self, env: &Env, object: sys::napi_value) -> Result<()> {
    let mut reference = ptr::null_mut();
    check_status!(unsafe { sys::napi_create_reference(env.raw(), object, 1, &mut reference) })?;
    // Released with the env, as the scratch's is.
    self.set_up.set(reference).map_err(|_| {
      Error::new(
        Status::GenericFailure,
        "flake-idgen-rs: this thread is set up already",
      )
    })
  }

  /// What `keep` kept, if the env has a thread already.
  pub fn kept(env: &Env) -> Result<Option<sys::napi_value>> {
    let Some(thread) = env.get_instance_data::<Thread>()? else {
      return Ok(None);
    };
    let Some(&reference) = thread.set_up.get() else {
      return Ok(None);
    };
    let mut object = ptr::null_mut();
    check_status!(unsafe { sys::napi_get_reference_value(env.raw(), reference, &mut object) })?;
    Ok(Some(object))
  }

  /// The settings JS wrote for a private call, if they are settings `encode_settings` could
  /// have made. Not for the per-id path, which has the slots borrowed already.
  pub fn private_settings(&self) -> Option<Settings> {
    self
      .slots
      .borrow()
      .private_settings(self.scratch.settings_fields())
  }

  /// The thread of the module's one env, for the WebAssembly build's plain exports, which are
  /// called with no env: each JS thread loads a module of its own, and emnapi makes one env
  /// per module.
  #[cfg(target_family = "wasm")]
  #[inline(always)]
  pub fn only() -> Option<&'static Thread> {
    let (_, thread) = CURRENT.get();
    // As `current`: cleared when the env goes.
    (!thread.is_null()).then(|| unsafe { &*thread })
  }

  /// The thread of `env` if it is the one this OS thread last used (it almost always is).
  #[inline(always)]
  pub fn current(env: sys::napi_env) -> Option<&'static Thread> {
    let (current_env, thread) = CURRENT.get();
    // Set by `of` from the env's instance data, which lives until the env goes, and cleared then.
    (current_env == env && !thread.is_null()).then(|| unsafe { &*thread })
  }
}
